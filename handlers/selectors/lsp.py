"""LSP edge of the selectors feature: ``tether/applySelector``, ``tether/listSelectors``,
``textDocument/selectionRange``. Method names, params/result classes and conversions live here only."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from lsprotocol import types
from tree_sitter import Tree

from tether_lsp.server.lazy import imported
from tether_lsp.server.methods import Feature, Method
from tether_lsp.server.nodes import descendant_index
from tether_lsp.server.positions import Encoding, LineIndex, Pos, json_ranges, lsp_offset, lsp_range
from tether_lsp.server.settings import LimitSettings
from tether_lsp.server.syntax import language_for

from .engine import resolve, run, validate
from .kinds import KIND_NAMES, table_for
from .latest import LatestIndexes
from .settings import SelectorSettings
from .spans import expansion
from .unindexed import kind_in_document
from .vocabulary import KIND_SELECTORS, SELECTORS
from .wire import (
    ApplySelectorParams,
    ApplySelectorResult,
    ListSelectorsParams,
    ListSelectorsResult,
    SelectorArg,
    SelectorInfo,
)

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

#: Loop time ``selectionRange`` takes before it lets other messages be read (a ``$/cancelRequest`` among them):
#: thousands of positions in a large file take seconds (~1.4 ms a position in a 100,000-line file).
SLICE_S = 0.005

JsonRange = dict[str, dict[str, int]]


def apply_selector(ls: TetherServer, indexes: LatestIndexes, params: ApplySelectorParams) -> ApplySelectorResult:
    validated = validate(params.selector, params.args, ls.settings.section(SelectorSettings).limits())
    empty = ApplySelectorResult(ranges=[], cursor_node_ids=[])
    snapshot = ls.snapshot(params.uri)
    if snapshot is None:
        return empty
    tree = snapshot.tree_or_raise()
    if tree is None or snapshot.language is None or snapshot.ids is None:
        return empty
    text_index, encoding = snapshot.index, ls.encoding
    if not params.cursor_node_ids and params.ranges:
        cursors = _covering(
            tree,
            [
                (
                    text_index.offset_of(Pos(r.start.line, r.start.character), encoding),
                    text_index.offset_of(Pos(r.end.line, r.end.character), encoding),
                )
                for r in params.ranges
            ],
        )
    else:
        cursors = resolve(snapshot.ids, params.cursor_node_ids)
    if not cursors:
        return empty
    table = table_for(snapshot.language, tree.language)
    kind = KIND_SELECTORS.get(validated.selector.name)
    if kind is not None and cursors == [0] and indexes.first_without_index(snapshot):
        found = kind_in_document(table, tree, snapshot.text, kind[0])
        if found is not None:  # a fresh document's first selection: no index built for it (module doc there)
            spans = [(start, end) for _, start, end in found]
            return ApplySelectorResult(
                ranges=_json_ranges(text_index, spans, encoding),
                cursor_node_ids=[snapshot.ids.base + i for i, _, _ in found],
            )
    index = indexes.index(snapshot)
    out = run(
        validated,
        index,
        table,
        tree,
        cursors,
        lambda line, character: text_index.offset_of(Pos(line, character), encoding),
    )
    base = snapshot.ids.base
    return ApplySelectorResult(
        ranges=_json_ranges(text_index, index.spans(out), encoding),
        cursor_node_ids=[base + i for i in out],
    )


def _json_ranges(text_index: LineIndex, spans: list[tuple[int, int]], encoding: Encoding) -> list[JsonRange]:
    """The spans as JSON ranges: in bulk with numpy once it is loaded; one at a time while it is not (start-up
    leaves it for later, and the first selection of a fresh document does not wait for it)."""
    if imported("numpy"):
        return json_ranges(text_index, spans, encoding)
    out = []
    for start, end in spans:
        sl, sc = text_index.line_character(start, encoding)
        el, ec = text_index.line_character(end, encoding)
        out.append({"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}})
    return out


def _covering(tree: Tree, spans: list[tuple[int, int]]) -> list[int]:
    """Pre-order indices of the smallest named node holding each byte span (sorted, unique)."""
    found = set()
    for start, end in spans:
        low, high = min(start, end), max(start, end)
        node = tree.root_node.named_descendant_for_byte_range(low, high) or tree.root_node
        found.add(descendant_index(tree, node))
    return sorted(found)


def list_selectors(params: ListSelectorsParams | None) -> ListSelectorsResult:
    kinds = list(KIND_NAMES)
    spec = language_for(params.language_id, "") if params and params.language_id else None
    if spec is not None:
        table = table_for(spec.name, spec.language)
        kinds = [k for k in KIND_NAMES if table.candidates(k)]
    return ListSelectorsResult(
        selectors=[
            SelectorInfo(s.name, [SelectorArg(a.name, a.type) for a in s.args], s.description)
            for s in SELECTORS.values()
        ],
        kinds=kinds,
    )


class Selectors:
    """The selectors feature's context: the server and the latest selector index of each document."""

    def __init__(self, server: TetherServer) -> None:
        server.register_settings("selectors", SelectorSettings)
        self.server = server
        self.indexes = LatestIndexes()
        server.on_document(self.indexes.on_document)

    def apply(self, params: ApplySelectorParams) -> ApplySelectorResult:
        """Apply one selector to the cursors the client holds; the answer is the new cursors and their ranges."""
        return apply_selector(self.server, self.indexes, params)

    def listing(self, params: ListSelectorsParams | None) -> ListSelectorsResult:
        """The selectors (names, arguments, descriptions) and the kinds a language knows."""
        return list_selectors(params)

    async def selection_range(self, params: types.SelectionRangeParams) -> list[types.SelectionRange]:
        """Expand selection over the tree (trimmed ranges, same-range wrappers skipped)."""
        ls = self.server
        snapshot = ls.snapshot(params.text_document.uri)
        tree = snapshot.tree_or_raise() if snapshot is not None else None
        if snapshot is None or tree is None:
            return []
        index, text, root = snapshot.index, snapshot.text, tree.root_node
        depth = ls.settings.section(LimitSettings).maxSelectionRangeDepth
        results: list[types.SelectionRange] = []
        sliced = time.monotonic()
        for position in params.positions:
            if time.monotonic() - sliced > SLICE_S:  # on the snapshot taken above, whatever arrives meanwhile
                await asyncio.sleep(0)
                sliced = time.monotonic()
            offset = lsp_offset(index, position, ls.encoding)
            spans = expansion(text, root, offset)
            if len(spans) > depth:  # the innermost levels, then the whole document
                spans = [*spans[: depth - 1], spans[-1]]
            parent: types.SelectionRange | None = None
            for start, end in reversed(spans):
                parent = types.SelectionRange(range=lsp_range(index, start, end, ls.encoding), parent=parent)
            assert parent is not None
            results.append(parent)
        return results


FEATURE = Feature(
    "selectors",
    setup=Selectors,
    methods=[
        Method("tether/applySelector", Selectors.apply, ApplySelectorParams, ApplySelectorResult),
        Method("tether/listSelectors", Selectors.listing, ListSelectorsParams, ListSelectorsResult),
        Method(types.TEXT_DOCUMENT_SELECTION_RANGE, Selectors.selection_range, runs="async", cancellable=True),
    ],
)
