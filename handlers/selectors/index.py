"""A flat pre-order index of one tree: what every selector walks instead of tree-sitter nodes.

Why: a selector chain visits tens of thousands of nodes; touching tree-sitter ``Node`` objects from Python
for each one costs microseconds apiece. One cursor walk (about 40 ms for a 10,000-line file) records, for
every node in pre-order, its kind id, named flag, field id, parent and byte span, plus where its subtree
ends — so a node *is* its pre-order index ``i`` (and its node id is ``base + i``, see ``server.nodes``):

* the descendants of ``i`` are ``i + 1 .. subtree_end[i] - 1``;
* its children are reached by hopping ``j = subtree_end[j]``;
* ``a`` is an ancestor of ``b`` iff ``a < b < subtree_end[a]``.

The index is built lazily on the first selector request for a tree and cached with the tree (dropped
with it).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

from tree_sitter import Language, Tree

from .spans import WHITESPACE


class TreeIndex:
    """Pre-order arrays describing every node of one tree (named and anonymous)."""

    __slots__ = ("_positions", "end", "field", "kind", "language", "named", "parent", "start", "subtree_end", "text")

    def __init__(self, tree: Tree, text: bytes) -> None:
        self.text = text
        self.language: Language = tree.language
        kind: list[int] = []
        named: list[bool] = []
        field: list[int] = []
        parent: list[int] = []
        start: list[int] = []
        end: list[int] = []
        subtree_end: list[int] = []
        k_add, n_add, f_add, p_add = kind.append, named.append, field.append, parent.append
        s_add, e_add, x_add = start.append, end.append, subtree_end.append
        cursor = tree.walk()
        stack = [-1]
        i = 0
        while True:
            node = cursor.node
            assert node is not None
            k_add(node.kind_id)
            n_add(node.is_named)
            f_add(cursor.field_id or 0)
            p_add(stack[-1])
            s_add(node.start_byte)
            e_add(node.end_byte)
            x_add(0)
            if cursor.goto_first_child():
                stack.append(i)
                i += 1
                continue
            subtree_end[i] = i + 1
            i += 1
            if cursor.goto_next_sibling():
                continue
            while cursor.goto_parent():
                subtree_end[stack.pop()] = i
                if cursor.goto_next_sibling():
                    break
            else:
                break
        self.kind = array("H", kind)
        self.named = bytes(named)
        self.field = array("H", field)
        self.parent = array("i", parent)
        self.start = array("I", start)
        self.end = array("I", end)
        self.subtree_end = array("I", subtree_end)
        self._positions: dict[frozenset[int], list[int]] = {}

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
        """Pre-order indices of the nodes whose kind id is in ``kind_ids`` (one scan per set, cached)."""
        found = self._positions.get(kind_ids)
        if found is None:
            kind = self.kind
            found = self._positions[kind_ids] = [j for j in range(len(kind)) if kind[j] in kind_ids]
        return found

    # --- text --------------------------------------------------------------------------------------

    def span(self, i: int) -> tuple[int, int]:
        """The node's resolved range: its bytes with trailing whitespace trimmed."""
        s, e = self.start[i], self.end[i]
        text = self.text
        while e > s and text[e - 1] in WHITESPACE:
            e -= 1
        return s, e

    def node_text(self, i: int) -> str:
        s, e = self.span(i)
        return self.text[s:e].decode("utf-8", errors="replace")

    def type_name(self, i: int) -> str:
        return self.language.node_kind_for_id(self.kind[i]) or ""
