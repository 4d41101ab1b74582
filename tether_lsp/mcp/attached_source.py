"""Attached mode's :class:`~.source.Source`: the editor's workspace as the running language server holds it.

* **Roots** are the workspace folders the editor gave the server (``initialize``, and
  ``workspace/didChangeWorkspaceFolders``), read again at every call; a path outside them is refused as
  standalone refuses a path outside ``--root``.
* **Reads**: an open document is read as the editor holds it, unsaved changes included; any other file from disk
  (:class:`~.files.Files`). The version is the hash of the text either way, so an unsaved buffer and the same
  text on disk have the same version.
* **Writes** go to the editor as one ``workspace/applyEdit`` (a versioned text-document edit of the buffer the
  edits were placed on), never to disk, so they land in the buffer and in its undo history. The write is done
  when the editor has applied it *and* sent the changed text back (``didChange``, or ``didOpen`` for a file it
  had not open), within ``tether.mcp.http.editTimeout``. A buffer that moved on before the edit reached it (the
  user typed) answers None: the edit adapter places the edits again on the new text.
* **Carrying** an edit made on an older version: the server keeps each open document's exact edits (the
  ``didChange`` content changes). Each version handed out for a buffer (read, or written) is remembered with the
  document version it was (bounded), so an edit on it is carried through the recorded edits from that document
  version to the one read now (:meth:`WorkspaceSource.exact_edits`); only when the document's history no longer
  reaches it is the base diffed against the current text (:mod:`.history`).

Threads: :class:`WorkspaceSource` runs in the tool call's worker thread (of the HTTP server's own loop); what
needs the editor hops to the LSP loop (:class:`EditorLink`, ``asyncio.run_coroutine_threadsafe``) and waits
there for the answer, so the LSP loop only ever does short bookkeeping and sends the request; only the LSP loop
writes to the LSP protocol.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.files import uri_to_path
from tether_lsp.server.hooks import DocumentEvent
from tether_lsp.server.positions import LineIndex, lsp_range

from .files import Files, FileText, version_of
from .source import LiveRoots

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a read waits for the LSP loop (it answers from memory: only a stuck loop takes longer).
LOOP_TIMEOUT = 10.0
#: Versions handed out per buffer whose document version is remembered, and buffers remembered.
KEEP_VERSIONS = 64
KEEP_PATHS = 256


@dataclass(frozen=True)
class Buffer:
    """An open document as the editor last sent it."""

    uri: str
    path: Path  # as the uri spells it (not resolved)
    client_version: int
    text: bytes
    version: int  # the server's number for this text (what its history is keyed on)


@dataclass(frozen=True)
class Workspace:
    """What a read needs from the LSP loop: the workspace folders and the open documents."""

    folders: list[Path]
    buffers: list[Buffer]


@dataclass(frozen=True)
class Applied:
    """How ``workspace/applyEdit`` went: ``written`` (the buffer now reads ``expected``), ``moved`` (the buffer
    changed before the edit reached it), ``refused`` (the editor said no: ``reason``), ``unconfirmed`` (the
    editor said yes but the changed text did not come back in time: ``current`` is what it holds). ``version``:
    the document version that holds the written text (``written``)."""

    status: str
    reason: str = ""
    current: bytes | None = None
    version: int | None = None


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


class WorkspaceSource:
    """The editor's workspace as a :class:`~.source.Source` (see the module docstring)."""

    unsaved_writes = True  # edits land in the editor's buffers, which the user saves (or not)

    def __init__(self, link: EditorLink, max_bytes: int) -> None:
        self.link = link
        self.roots = LiveRoots()
        self.disk = Files(self.roots, max_bytes)
        #: The uri each real path's buffer was last read under (what the edit names).
        self._uris: dict[Path, str] = {}
        #: Per real path, the versions handed out for its buffer: version -> (uri, document version), oldest first.
        self._documents: OrderedDict[Path, OrderedDict[str, tuple[str, int]]] = OrderedDict()

    @property
    def max_bytes(self) -> int:
        return self.disk.max_bytes

    @max_bytes.setter
    def max_bytes(self, value: int) -> None:
        self.disk.max_bytes = value

    def load(self, given: str, field: str = "path") -> FileText:
        workspace = self.link.workspace()
        self.roots.update(workspace.folders)
        real, shown = self.roots.resolve(given, field)
        for buffer in workspace.buffers:
            if buffer.path == real or os.path.realpath(buffer.path) == str(real):
                if len(buffer.text) > self.max_bytes:
                    raise InvalidParams(
                        field,
                        f"{shown} has {len(buffer.text)} bytes in the editor, over tether.limits.maxFileBytes "
                        f"({self.max_bytes})",
                        kind="fileRefused",
                    )
                self._uris[real] = buffer.uri
                file = FileText(real, shown, buffer.text, version_of(buffer.text))
                self._remember(real, file.version, buffer.uri, buffer.version)
                return file
        self._uris.pop(real, None)
        return self.disk.load(given, field)

    def write(self, file: FileText, data: bytes, edits: Sequence[ByteEdit] = ()) -> FileText | None:
        expected = data[3:] if file.bom else data  # the editor holds the text without a byte-order mark
        applied = self.link.apply(file.path, self._uris.get(file.path), file.text, expected, edits)
        if applied.status == "written":
            written = FileText(file.path, file.shown, expected, version_of(expected))
            uri = self._uris.get(file.path)
            if uri is not None and applied.version is not None:
                self._remember(file.path, written.version, uri, applied.version)
            return written
        if applied.status == "moved":
            return None
        if applied.status == "refused":
            raise InvalidParams(
                "edits",
                f"{file.shown}: the editor refused the edit ({applied.reason}); nothing was changed",
                kind="editRefused",
            )
        now = f" it now holds version {version_of(applied.current)}," if applied.current is not None else ""
        raise InvalidParams(
            "edits",
            f"{file.shown}: the editor did not confirm the edit within {self.link.edit_timeout():g} s "
            f"(tether.mcp.http.editTimeout);{now} read it again to see whether the edit is there before editing "
            "it again",
            kind="editUnconfirmed",
        )

    def _remember(self, path: Path, version: str, uri: str, document_version: int) -> None:
        """``version`` (a content hash handed out for ``path``'s buffer) is the document's ``document_version``."""
        seen = self._documents.get(path)
        if seen is None:
            seen = self._documents[path] = OrderedDict()
        self._documents.move_to_end(path)
        seen[version] = (uri, document_version)
        seen.move_to_end(version)
        while len(seen) > KEEP_VERSIONS:
            seen.popitem(last=False)
        while len(self._documents) > KEEP_PATHS:
            self._documents.popitem(last=False)

    def exact_edits(
        self, path: Path, base: str, base_text: bytes, current: str, current_text: bytes
    ) -> list[ByteEdit] | None:
        """The editor's own edits from version ``base`` to ``current`` of ``path``'s buffer (in order, each in the
        coordinates of the text the previous ones leave), or None when either was not a text of the buffer this
        source handed out, or the document's history no longer reaches ``base``."""
        seen = self._documents.get(path)
        if seen is None or base not in seen or current not in seen:
            return None
        (uri, old), (now_uri, now) = seen[base], seen[current]
        if uri != now_uri:
            return None
        return self.link.edits_between(uri, (old, base_text), (now, current_text))
