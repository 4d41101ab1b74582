"""Attached mode's edge in the language server: the editor's workspace and ``workspace/applyEdit``, reached from the
agents' front's worker threads (:class:`EditorLink`, the :class:`~tether_lsp.mcp.attached_source.Editor` that
:class:`~tether_lsp.mcp.attached_source.WorkspaceSource` reads and writes through).

Threads: a tool call runs in a worker thread (of the HTTP server's own loop); what needs the editor hops to the
LSP loop (``asyncio.run_coroutine_threadsafe``) and waits there for the answer, so the LSP loop only ever does
short bookkeeping and sends the request; only the LSP loop writes to the LSP protocol.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from tree_sitter import Tree

from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.files import uri_to_path
from tether_lsp.server.hooks import DocumentEvent
from tether_lsp.server.positions import LineIndex, lsp_range

from ..attached_source import Applied, Buffer, Workspace

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a read waits for the LSP loop (it answers from memory: only a stuck loop takes longer).
LOOP_TIMEOUT = 10.0
#: Seconds a tool's work in a worker process may take (an outline of the largest file allowed takes seconds).
PROCESS_TIMEOUT = 120.0


class EditorLink:
    """The LSP side of attached mode: its methods ending in ``_now`` run on the LSP loop, the others are called
    from worker threads and hop to the loop."""

    def __init__(self, server: TetherServer, loop: asyncio.AbstractEventLoop, edit_timeout: Callable[[], float]):
        self.server = server
        self.loop = loop
        self.edit_timeout = edit_timeout
        #: Edits sent and not yet seen back: real path -> (the text expected, its future).
        self._waiting: dict[Path, list[tuple[bytes, asyncio.Future[int]]]] = {}
        server.on_document(self._document_now)

    # --- from worker threads -----------------------------------------------------------------------------

    def run(self, make: Callable[[], Coroutine[Any, Any, T]], timeout: float) -> T:
        """Run a coroutine on the LSP loop and wait for its result (from a thread that is not the loop's)."""
        if self.loop.is_closed() or self.server.stopping:
            raise InvalidParams("path", "the editor's language server is shutting down: nothing was read or written")
        future = asyncio.run_coroutine_threadsafe(make(), self.loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise InvalidParams(
                "path", f"the editor's language server did not answer within {timeout:g} s: nothing was changed"
            ) from None

    def workspace(self) -> Workspace:
        return self.run(self._workspace_now, LOOP_TIMEOUT)

    def apply(self, path: Path, uri: str | None, base: bytes, expected: bytes, edits: Sequence[ByteEdit]) -> Applied:
        timeout = self.edit_timeout()
        return self.run(lambda: self._apply_now(path, uri, base, expected, edits, timeout), timeout + LOOP_TIMEOUT)

    def edits_between(self, uri: str, base: tuple[int, bytes], current: tuple[int, bytes]) -> list[ByteEdit] | None:
        """The document's recorded edits from document version ``base`` to ``current`` (each given with the text
        it had then), or None when its history no longer holds them."""
        return self.run(lambda: self._edits_between_now(uri, base, current), LOOP_TIMEOUT)

    def tree(self, uri: str, version: int, language: str, text: bytes) -> Tree | None:
        """The language server's own tree of the document's version ``version`` when it parsed it already and
        keeps it in memory (it holds ``text`` in ``language``), else None: never a parse on the server's loop."""
        return self.run(lambda: self._tree_now(uri, version, language, text), LOOP_TIMEOUT)

    def in_process(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the language server's worker processes (``tether.limits.processes``), waited for here."""
        return self.run(lambda: self.server.run_in_process(fn, *args), PROCESS_TIMEOUT)

    # --- on the LSP loop ---------------------------------------------------------------------------------

    async def _workspace_now(self) -> Workspace:
        folders = [p for p in (uri_to_path(f.uri) for f in self.server.workspace.folders.values()) if p]
        if not folders and self.server.workspace_root is not None:
            folders = [self.server.workspace_root]
        buffers = []
        for doc in self.server.documents:
            path = uri_to_path(doc.uri)
            if path is not None:
                buffers.append(Buffer(doc.uri, path, doc.client_version, doc.current.text, doc.version))
        return Workspace(folders, buffers)

    async def _apply_now(
        self, path: Path, uri: str | None, base: bytes, expected: bytes, edits: Sequence[ByteEdit], limit: float
    ) -> Applied:
        workspace = self.server.client_capabilities.workspace
        if workspace is None or not workspace.apply_edit:
            return Applied("refused", "the editor does not take edits from the server: no workspace.applyEdit")
        doc = self.server.document(uri) if uri is not None else None
        if uri is not None and (doc is None or doc.current.text != base):
            return Applied("moved")  # typed in, closed, or reverted since the edits were placed
        index = doc.current.index if doc is not None else LineIndex(base)
        encoding = self.server.encoding
        ascending = sorted(edits, key=lambda e: e.start)
        text_edits = [
            types.TextEdit(range=lsp_range(index, e.start, e.old_end, encoding), new_text=e.new_text.decode("utf-8"))
            for e in ascending
        ]
        identifier = types.OptionalVersionedTextDocumentIdentifier(
            uri=uri or path.as_uri(), version=doc.client_version if doc is not None else None
        )
        params = types.ApplyWorkspaceEditParams(
            label="Tether: agent edit",
            edit=types.WorkspaceEdit(
                document_changes=[types.TextDocumentEdit(text_document=identifier, edits=list(text_edits))]
            ),
        )
        seen: asyncio.Future[int] = self.loop.create_future()
        waiters = self._waiting.setdefault(path, [])
        waiters.append((expected, seen))
        try:
            async with asyncio.timeout(limit):
                try:
                    result = await self.server.workspace_apply_edit_async(params)
                except TimeoutError:
                    raise
                except Exception as exc:  # the editor answered with an error
                    return Applied("refused", f"the editor answered with an error: {exc}")
                if not result.applied:
                    now = self.server.document(uri) if uri is not None else None
                    if uri is not None and (now is None or now.current.text != base):
                        return Applied("moved")
                    return Applied("refused", result.failure_reason or "no reason given")
                version = await seen
            return Applied("written", version=version)
        except TimeoutError:
            return Applied("unconfirmed", current=self._text_now(path))
        finally:
            waiters.remove((expected, seen))
            if not waiters:
                self._waiting.pop(path, None)

    async def _edits_between_now(
        self, uri: str, base: tuple[int, bytes], current: tuple[int, bytes]
    ) -> list[ByteEdit] | None:
        doc = self.server.document(uri)
        if doc is None or base[0] > current[0]:
            return None
        old, now = doc.get(base[0]), doc.get(current[0])
        # the texts are compared too: a document closed and opened again numbers its versions anew
        if old is None or now is None or old.text != base[1] or now.text != current[1]:
            return None
        return [edit for item in doc.versions() if base[0] < item.version <= current[0] for edit in item.edits]

    async def _tree_now(self, uri: str, version: int, language: str, text: bytes) -> Tree | None:
        snapshot = self.server.syntax.get(uri, version)
        if snapshot is None or snapshot.language != language or snapshot.text != text:
            return None
        slot = snapshot.slot
        if not (slot.is_parsed and slot.resident) or snapshot.text_only is not None:
            return None
        return slot.get()

    def _text_now(self, path: Path) -> bytes | None:
        for doc in self.server.documents:
            if uri_to_path(doc.uri) is not None and _same(uri_to_path(doc.uri), path):
                return doc.current.text
        return None

    def _document_now(self, event: DocumentEvent) -> None:
        if not self._waiting or event.kind not in ("open", "change"):
            return
        changed = uri_to_path(event.uri)
        doc = self.server.document(event.uri)
        if changed is None or doc is None:
            return
        for path, waiters in self._waiting.items():
            if _same(changed, path):
                for expected, seen in waiters:
                    if not seen.done() and doc.current.text == expected:
                        seen.set_result(doc.version)


def _same(a: Path | None, b: Path) -> bool:
    """Whether ``a`` (as a uri spells it) names the real path ``b`` (no file system access: the loop's side)."""
    return a is not None and (a == b or os.path.normpath(a) == str(b))
