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

The editor is reached through an :class:`Editor` (the language server's side: :mod:`.attached_lsp.editor_link`):
this module knows no LSP, only what a read and a write need of it.

Threads: :class:`WorkspaceSource` runs in the tool call's worker thread (of the HTTP server's own loop); the
:class:`Editor` waits there for the language server's loop to answer.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.errors import InvalidParams

from .files import Files, FileText, version_of
from .source import LiveRoots

if TYPE_CHECKING:
    from tree_sitter import Tree

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


class Editor(Protocol):
    """What the source needs of the editor, called from worker threads (each waits for the editor's server)."""

    def workspace(self) -> Workspace:
        """The workspace folders and the open documents as they are now."""
        ...

    def apply(self, path: Path, uri: str | None, base: bytes, expected: bytes, edits: Sequence[ByteEdit]) -> Applied:
        """Apply ``edits`` (placed on ``base``) to the buffer of ``uri`` (None: a file the editor has not open),
        which then reads ``expected``."""
        ...

    def edits_between(self, uri: str, base: tuple[int, bytes], current: tuple[int, bytes]) -> list[ByteEdit] | None:
        """The document's recorded edits from document version ``base`` to ``current`` (each given with the text
        it had then), or None when its history no longer holds them."""
        ...

    def edit_timeout(self) -> float:
        """Seconds an edit waits for the editor to confirm it (``tether.mcp.http.editTimeout``)."""
        ...

    def tree(self, uri: str, version: int, language: str, text: bytes) -> Tree | None:
        """The editor's language server's tree of that document version, if it parsed it already (else None)."""
        ...


class WorkspaceSource:
    """The editor's workspace as a :class:`~.source.Source` (see the module docstring)."""

    unsaved_writes = True  # edits land in the editor's buffers, which the user saves (or not)

    def __init__(self, link: Editor, max_bytes: int) -> None:
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

    def server_tree(self, file: FileText, language: str) -> Tree | None:
        """The language server's parse of ``file`` when it is a buffer's text this source handed out and the server
        parsed that version already: the front does not parse it a second time."""
        seen = self._documents.get(file.path)
        document = seen.get(file.version) if seen is not None else None
        if document is None:
            return None
        uri, document_version = document
        return self.link.tree(uri, document_version, language, file.text)

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
