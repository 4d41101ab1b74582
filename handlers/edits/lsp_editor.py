"""The editor over LSP, for the streams and the tasks (:class:`~.editor.Editor`): the server's open documents
and parses; writes and new files through ``workspace/applyEdit``; a stream's change told with
``tether/edits/didUpdate``; a suggested command shown as a message. Byte spans become ranges here.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from lsprotocol import types

from tether_lsp.server.documents import Document
from tether_lsp.server.positions import Encoding, LineIndex, Pos, lsp_range

from .wire import DidUpdate, StreamStatus

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer
    from tether_lsp.server.syntax import Snapshot

    from .stream import StreamState

log = logging.getLogger(__name__)


def to_range(start: Pos, end: Pos) -> types.Range:
    return types.Range(start=types.Position(start.line, start.character), end=types.Position(end.line, end.character))


class LspEditor:
    """The editor behind one language server (see the module docstring)."""

    def __init__(self, server: TetherServer) -> None:
        self.ls = server

    @property
    def encoding(self) -> Encoding:
        return self.ls.encoding

    def document(self, uri: str) -> Document | None:
        return self.ls.document(uri)

    def open_documents(self) -> Iterable[Document]:
        return self.ls.documents

    def snapshot(self, uri: str) -> Snapshot | None:
        return self.ls.snapshot(uri)

    def range(self, state: StreamState) -> types.Range | None:
        """A stream's span as a range of its document's current version (call it before any wait)."""
        doc = self.ls.document(state.uri)
        if doc is None or state.span is None:
            return None
        return lsp_range(doc.current.index, *state.span, self.ls.encoding)

    def status(self, state: StreamState) -> StreamStatus:
        return StreamStatus(state.status, self.range(state))

    def changed(self, state: StreamState) -> None:
        self.ls.protocol.notify("tether/edits/didUpdate", DidUpdate(state.edit_id, state.status, self.range(state)))

    def suggest(self, command: str) -> None:
        self.ls.window_show_message(
            types.ShowMessageParams(types.MessageType.Info, f"Tether suggests running (not run): {command}")
        )

    async def write(
        self, uri: str, version: int | None, index: LineIndex, start: int, end: int, text: str, label: str
    ) -> bool:
        edit = types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=[types.TextEdit(range=lsp_range(index, start, end, self.ls.encoding), new_text=text)],
        )
        return await self._apply(types.WorkspaceEdit(document_changes=[edit]), label)

    async def create(self, uri: str, text: str) -> bool:
        return await self._apply(
            types.WorkspaceEdit(
                document_changes=[
                    types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)),
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                        edits=[types.TextEdit(range=to_range(Pos(0, 0), Pos(0, 0)), new_text=text)],
                    ),
                ]
            ),
            "Tether task",
        )

    async def _apply(self, edit: types.WorkspaceEdit, label: str) -> bool:
        """Send the edit and wait for the editor's answer (whether it applied it)."""
        try:
            result = await self.ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=label))
        except Exception as exc:
            log.warning("%s: the client failed to apply an edit: %s", label, exc)
            return False
        if not result.applied:
            log.info("%s: the client refused an edit (%s)", label, result)
            return False
        return True
