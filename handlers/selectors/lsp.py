"""LSP edge of the selectors feature: method names, conversions, registration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from server.positions import lsp_offset, lsp_range

from .spans import expansion

if TYPE_CHECKING:
    from server.app import TetherServer


def register(server: TetherServer) -> None:
    @server.handler(types.TEXT_DOCUMENT_SELECTION_RANGE)
    def selection_range(ls: TetherServer, params: types.SelectionRangeParams) -> list[types.SelectionRange]:
        snapshot = ls.snapshot(params.text_document.uri)
        if snapshot is None or snapshot.tree is None:
            return []
        index, text, root = snapshot.index, snapshot.text, snapshot.tree.root_node
        results: list[types.SelectionRange] = []
        for position in params.positions:
            offset = lsp_offset(index, position, ls.encoding)
            parent: types.SelectionRange | None = None
            for start, end in reversed(expansion(text, root, offset)):
                parent = types.SelectionRange(range=lsp_range(index, start, end, ls.encoding), parent=parent)
            assert parent is not None
            results.append(parent)
        return results
