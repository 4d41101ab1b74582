"""A flat pre-order index of one tree: what every selector walks instead of tree-sitter nodes.

Why: a selector chain visits tens of thousands of nodes; touching tree-sitter ``Node`` objects from Python
for each one costs microseconds apiece. The index records, for every node in pre-order, its kind id, named
flag, field id, parent and byte span, plus where its subtree ends — so a node *is* its pre-order index ``i``
(tree-sitter's own descendant index; its node id is ``base + i``, see ``server.nodes``):

* the descendants of ``i`` are ``i + 1 .. subtree_end[i] - 1``;
* its children are reached by hopping ``j = subtree_end[j]``;
* ``a`` is an ancestor of ``b`` iff ``a < b < subtree_end[a]``.

A new version's index is spliced from the previous one's (:meth:`TreeIndex.updated`, :mod:`.index_splice`),
which copies the unchanged subtrees and walks only the changed ones.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from tree_sitter import Language, Tree

from tether_lsp.server.lazy import imported, lazy_module

from .index_rows import COLUMNS, Rows
from .index_splice import spliced
from .spans import WHITESPACE

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")


def numpy_loaded() -> bool:
    """Whether numpy is imported (start-up imports it later, in a worker: until then the index scans in Python
    rather than wait for it)."""
    return imported("numpy")


@functools.cache
def _whitespace_table() -> Any:
    """A 256-entry lookup: is this byte whitespace (``spans.WHITESPACE``)?"""
    table = np.zeros(256, dtype=bool)
    table[list(WHITESPACE)] = True
    return table


class TreeIndex:
    """Pre-order arrays describing every node of one tree (named and anonymous)."""

    __slots__ = (
        "_matches",
        "_positions",
        "copied_rows",
        "end",
        "error",
        "field",
        "kind",
        "language",
        "named",
        "parent",
        "start",
        "subtree_end",
        "text",
    )

    kind: array[int]
    named: bytes
    field: array[int]
    parent: array[int]
    start: array[int]
    end: array[int]
    subtree_end: array[int]
    error: bytes

    def __init__(self, tree: Tree, text: bytes, columns: dict[str, Any] | None = None) -> None:
        self.text = text
        self.language: Language = tree.language
        if columns is None:
            rows = Rows()
            rows.walk(tree.root_node, 0, -1, 0)
            columns = {name: getattr(rows, name) for name, _, _ in COLUMNS}
        for name, code, _ in COLUMNS:
            value = columns[name]
            if name in ("named", "error"):
                setattr(self, name, bytes(value))
            elif isinstance(value, array):
                setattr(self, name, value)
            else:
                column = array(code)
                if isinstance(value, list):
                    column.fromlist(value)
                else:
                    column.frombytes(value.tobytes())  # a numpy array: one copy in C
                setattr(self, name, column)
        self._positions: dict[frozenset[int], list[int]] = {}
        self._matches: dict[str, list[int]] = {}
        #: Rows taken from the previous version's index by :meth:`updated` (0: every node was walked).
        self.copied_rows = 0

    @classmethod
    def updated(cls, old: TreeIndex, tree: Tree, text: bytes) -> TreeIndex:
        """The index of ``tree`` (over ``text``), reusing ``old``'s unchanged subtrees (see the module doc)."""
        found = spliced(old, tree, text) if old.language == tree.language else None
        if found is None:
            return cls(tree, text)
        index = cls(tree, text, found[0])
        index.copied_rows = found[1]
        return index

    def __len__(self) -> int:
        return len(self.kind)

    # --- structure ---------------------------------------------------------------------------------

    def children(self, i: int) -> Iterator[int]:
        j, stop = i + 1, self.subtree_end[i]
        while j < stop:
            yield j
            j = self.subtree_end[j]

    def child_by_field(self, i: int, field_id: int) -> int | None:
        for j in self.children(i):
            if self.field[j] == field_id:
                return j
        return None

    def is_ancestor(self, a: int, b: int) -> bool:
        """``a`` is a strict ancestor of ``b``."""
        return a < b < self.subtree_end[a]

    def ancestors(self, i: int) -> Iterator[int]:
        p = self.parent[i]
        while p >= 0:
            yield p
            p = self.parent[p]

    def positions(self, kind_ids: frozenset[int]) -> list[int]:
        """Pre-order indices of the nodes whose kind id is in ``kind_ids`` (one scan per set, cached: in C once
        numpy is loaded)."""
        found = self._positions.get(kind_ids)
        if found is None and not numpy_loaded():
            found = self._positions[kind_ids] = [i for i, k in enumerate(self.kind) if k in kind_ids]
        elif found is None:
            kinds = np.frombuffer(self.kind, dtype=np.uint16)
            wanted = np.fromiter(kind_ids, dtype=np.uint16, count=len(kind_ids))
            found = self._positions[kind_ids] = np.flatnonzero(np.isin(kinds, wanted)).tolist()
        return found

    def matches(self, key: str, build: Callable[[], list[int]]) -> list[int]:
        """The pre-order indices of every node of a kind in the whole tree (``key`` names the kind; ``build``
        finds them), found once per index: later whole-file selections slice them instead of testing each
        candidate again in Python."""
        found = self._matches.get(key)
        if found is None:
            found = self._matches[key] = build()
        return found

    def has_matches(self, key: str) -> bool:
        """Whether :meth:`matches` of ``key`` was found already."""
        return key in self._matches

    # --- text --------------------------------------------------------------------------------------

    def span(self, i: int) -> tuple[int, int]:
        """The node's resolved range: its bytes with trailing whitespace trimmed."""
        s, e = self.start[i], self.end[i]
        text = self.text
        while e > s and text[e - 1] in WHITESPACE:
            e -= 1
        return s, e

    def spans(self, rows: list[int]) -> list[tuple[int, int]]:
        """:meth:`span` of many rows: only the few ending in whitespace are trimmed one by one."""
        if not rows or not self.text or not numpy_loaded():
            return [self.span(i) for i in rows]
        ends = np.frombuffer(self.end, dtype=np.uint32)[rows]
        before = np.frombuffer(self.text, dtype=np.uint8)[np.maximum(ends.astype(np.int64) - 1, 0)]
        trim = np.flatnonzero(_whitespace_table()[before]).tolist()
        starts = np.frombuffer(self.start, dtype=np.uint32)[rows]
        out = list(zip(starts.tolist(), ends.tolist(), strict=True))
        for k in trim:
            out[k] = self.span(rows[k])
        return out

    def node_text(self, i: int) -> str:
        s, e = self.span(i)
        return self.text[s:e].decode("utf-8", errors="replace")

    def type_name(self, i: int) -> str:
        return self.language.node_kind_for_id(self.kind[i]) or ""
