"""Endpoints that show what the server holds, for the demo, status bars, tests and benchmarks.

``tether/documentInfo`` is always there; with ``TETHER_TEST_HOOKS=1`` the test hooks are added (a handler
that raises, a notification that raises, the loop's worst stall). None of them changes any state but the
loop watch's counters. Kept apart from the lifecycle so that what exists only to look inside reads in one place.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import attrs
from lsprotocol import types
from tree_sitter import Tree

from .errors import InvalidParams
from .nodes import preorder

if TYPE_CHECKING:
    from .app import TetherServer


@attrs.define
class DocumentInfoParams:
    text_document: types.TextDocumentIdentifier
    #: Also hash the text and every node of the tree (costly on big files; for tests and diagnostics).
    detail: bool = False


@attrs.define
class DebugParams:
    message: str


@attrs.define
class LoopStatsParams:
    reset: bool = False


@attrs.define
class LoopStats:
    """The event loop's longest stall since the last reset (``TETHER_LOOP_WATCH=1``)."""

    worst_stall_ms: float
    ticks: int


@attrs.define
class DocumentInfo:
    """What the server holds for an open document (``tether/documentInfo``; used by the demo and status bars)."""

    uri: str
    version: int
    language_id: str
    language: str | None
    bytes: int
    lines: int
    parse_ms: float
    node_count: int
    has_syntax_errors: bool
    position_encoding: str
    #: Parses of this document so far: lets tests and benchmarks see that a burst of changes parses once.
    parse_count: int = 0
    text_sha256: str | None = None
    tree_sha256: str | None = None
    #: Why a document in a parsed language has no tree (too large, nested too deeply); null otherwise.
    text_only_reason: str | None = None


def tree_digest(tree: Tree) -> str:
    """A hash of every node's type, byte span and start point, in pre-order."""
    digest = hashlib.sha256()
    for node in preorder(tree):
        digest.update(f"{node.type}:{node.start_byte}:{node.end_byte}:{node.start_point};".encode())
    return digest.hexdigest()


async def document_info(ls: TetherServer, params: DocumentInfoParams) -> DocumentInfo:
    """What the server holds for an open document: language, size, parse time, syntax errors.

    The version's tree is parsed in slices with the loop running between them (a 10,000-line file's parse after
    an edit held the loop up to 25 ms), shared with every other feature asking for it."""
    uri = params.text_document.uri
    doc, snapshot = ls.documents.get(uri), ls.snapshot(uri)
    if doc is None or snapshot is None:
        raise InvalidParams("textDocument.uri", f"{uri} is not an open document", kind="unknownDocument")
    await snapshot.slot.parse_soon()
    tree = snapshot.tree
    return DocumentInfo(
        uri=uri,
        version=snapshot.client_version,
        language_id=doc.language_id,
        language=snapshot.language,
        bytes=len(snapshot.text),
        lines=snapshot.index.line_count,
        parse_ms=round(snapshot.parse_ms, 3),
        node_count=tree.root_node.descendant_count if tree else 0,
        has_syntax_errors=bool(tree and tree.root_node.has_error),
        position_encoding=ls.encoding.value,
        parse_count=ls.syntax.parse_counts.get(uri, 0),
        text_sha256=hashlib.sha256(snapshot.text).hexdigest() if params.detail else None,
        tree_sha256=tree_digest(tree) if params.detail and tree else None,
        text_only_reason=snapshot.text_only.reason if snapshot.text_only else None,
    )


def debug_raise(ls: TetherServer, params: Any) -> None:
    """Test hook: an unexpected exception inside a handler (must become -32603, server alive)."""
    raise RuntimeError("boom (test hook)")


def loop_stats(ls: TetherServer, params: LoopStatsParams) -> LoopStats:
    """Benchmarks: the loop's worst stall since the last reset (needs ``TETHER_LOOP_WATCH=1``)."""
    stats = LoopStats(round(ls.loop_watch.worst_s * 1000, 3), ls.loop_watch.ticks)
    if params.reset:
        ls.loop_watch.reset()
    return stats


def debug_raise_notification(ls: TetherServer, params: DebugParams) -> None:
    """Test hook: a notification handler failing (logged; one popup per session at most)."""
    raise RuntimeError(f"boom in a notification: {params.message}")
