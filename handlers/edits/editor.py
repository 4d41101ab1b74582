"""What only an editor front gives inline edits and tasks, beside the process's
:class:`~tether_lsp.server.host.Host`: its open documents and their parses, its writes, creating a file, telling
the user. The LSP glue (``lsp_editor.py``) is one: it writes with ``workspace/applyEdit``.

Spans are byte offsets of a text the editor is given the index of; the front turns them into its own positions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tether_lsp.server.documents import Document
    from tether_lsp.server.positions import Encoding, LineIndex
    from tether_lsp.server.syntax import Snapshot

    from .stream import StreamState


class Editor(Protocol):
    """The editor the edits are written into. Positions it is handed are in its ``encoding``."""

    @property
    def encoding(self) -> Encoding: ...

    def document(self, uri: str) -> Document | None:
        """The open document ``uri`` (None when it is not open)."""

    def open_documents(self) -> Iterable[Document]: ...

    def snapshot(self, uri: str) -> Snapshot | None:
        """The parse of the open document ``uri`` (None when it is not open or not parsed)."""

    async def write(
        self, uri: str, version: int | None, index: LineIndex, start: int, end: int, text: str, label: str
    ) -> bool:
        """Have the editor replace bytes ``start:end`` of ``uri``'s text (``index``: of that text) with ``text``:
        of the open document at the client's ``version``, or of the file on disk (None). ``label`` names the
        change for the user (an undo entry). False when the edit was refused or failed."""

    async def create(self, uri: str, text: str) -> bool:
        """Have the editor create the file ``uri`` (unless it exists) and insert ``text`` at its start; False
        when the edit was refused or failed."""

    def suggest(self, command: str) -> None:
        """The model suggests running ``command`` in a terminal: tell the user (Tether never runs it)."""

    def changed(self, state: StreamState) -> None:
        """A stream's status or place changed (for the editor's decorations)."""
