"""A kind selection over a whole document answered without its selector index (:mod:`.index`), which a document
nobody has queried yet does not have: a tree-sitter query finds the kind's candidates in C, one cursor numbers
them in pre-order, and the kind's own predicate (:mod:`.kinds`) decides from the few rows around each.

Why: the index of a newly opened file is a Python walk over every node (~85 ms for 10,000 lines, 89,000 nodes),
and its scans need numpy, which start-up leaves for later (~120 ms to import); the first selection a user makes
of a fresh file waited for both. Here it costs the query and a few rows per candidate. The index is built by
the first request that needs it, as before.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from tree_sitter import Language, Node, Query, QueryCursor, QueryError, Tree

from tether_lsp.server.nodes import Ancestors

from .kinds import KindTable
from .spans import trimmed_span


class Neighbourhood:
    """The rows of an index (:class:`.index.TreeIndex`'s columns, keyed by pre-order index) that a kind predicate
    reads around one node: the node and its ancestors, filled as a cursor walks down to it, and the children of
    a node, filled when asked. A predicate reading any other row raises ``KeyError`` (never a wrong answer)."""

    def __init__(self, tree: Tree) -> None:
        self.kind: dict[int, int] = {}
        self.named: dict[int, int] = {}
        self.field: dict[int, int] = {}
        self.parent: dict[int, int] = {}
        self.subtree_end: dict[int, int] = {}
        self.nodes: dict[int, Node] = {}
        self._with_children: set[int] = set()
        self.add(0, tree.root_node, 0, -1)
        self._walk = _Numbering(tree, self)

    def number(self, node: Node) -> int:
        """The pre-order index of ``node`` (its rows and its ancestors' filled)."""
        return self._walk.number(node)

    def add(self, i: int, node: Node, field: int, parent: int) -> None:
        self.kind[i] = node.kind_id
        self.named[i] = node.is_named
        self.field[i] = field
        self.parent[i] = parent
        self.subtree_end[i] = i + node.descendant_count
        self.nodes[i] = node

    def children(self, i: int) -> Iterator[int]:
        if i not in self._with_children:
            self._with_children.add(i)
            cursor = self.nodes[i].walk()
            found = cursor.goto_first_child()
            while found:
                child = cursor.node
                assert child is not None
                self.add(i + cursor.descendant_index, child, cursor.field_id or 0, i)
                found = cursor.goto_next_sibling()
        j, stop = i + 1, self.subtree_end[i]
        while j < stop:
            yield j
            j = self.subtree_end[j]

    def child_by_field(self, i: int, field_id: int) -> int | None:
        for j in self.children(i):
            if self.field[j] == field_id:
                return j
        return None


class _Numbering(Ancestors):
    """The chain of ancestors of the last node asked (:class:`Ancestors`: nodes asked in document order share it)
    with a cursor kept on its last level, which numbers each level it enters (``TreeCursor.descendant_index``)."""

    def __init__(self, tree: Tree, rows: Neighbourhood) -> None:
        super().__init__(tree.root_node)
        self._cursor = tree.walk()
        self._numbers = [0]  # the pre-order index of each level of the chain
        self._rows = rows

    def number(self, node: Node) -> int:
        self.chain(node)
        return self._numbers[-1]

    def _push(self, node: Node) -> None:
        super()._push(node)
        cursor = self._cursor
        if node.start_byte == node.end_byte:
            found = cursor.goto_first_child()
        else:
            found = cursor.goto_first_child_for_byte(node.start_byte) is not None
        while found and cursor.node != node:
            found = cursor.goto_next_sibling()
        if not found:  # pragma: no cover - a node always lies under its parent
            raise LookupError(f"node {node!r} not found under its parent")
        i = cursor.descendant_index
        self._rows.add(i, node, cursor.field_id or 0, self._numbers[-1])
        self._numbers.append(i)

    def _pop(self) -> None:
        super()._pop()
        self._cursor.goto_parent()
        self._numbers.pop()


@functools.cache
def _query(language: Language, type_names: tuple[str, ...]) -> Query | None:
    """One query capturing every named node of these types (None: a name the query language refuses)."""
    try:
        return Query(language, "[" + " ".join(f"({name})" for name in type_names) + "] @node")
    except (QueryError, ValueError):
        return None


def kind_in_document(table: KindTable, tree: Tree, text: bytes, kind: str) -> list[tuple[int, int, int]] | None:
    """Every node of ``kind`` in the document, in pre-order, as (pre-order index, trimmed start, end); the same
    nodes and spans as the index's kind selection from the root. None when this path cannot tell (the caller
    uses the index)."""
    candidates = table.candidates(kind)
    if not candidates:
        return []
    names = tuple(sorted({table.language.node_kind_for_id(k) or "" for k in candidates}))
    query = _query(table.language, names)
    if query is None or "" in names:
        return None
    # In document order (outer before inner at one start), so the chain of ancestors only moves on: the captures
    # come in the order their matches end, innermost first for nested nodes (5,000 nested calls took 17 s).
    captured = QueryCursor(query).captures(tree.root_node).get("node", [])
    nodes = sorted(captured, key=lambda node: (node.start_byte, -node.end_byte))
    rows, test = Neighbourhood(tree), table.predicates[kind]
    found: dict[int, Node] = {}
    try:
        for node in nodes:
            i = rows.number(node)
            if i not in found and test(rows, i):  # type: ignore[arg-type]  # reads the same columns as an index
                found[i] = node
    except KeyError:  # the predicate read a row this path does not fill
        return None
    return [(i, *trimmed_span(text, found[i])) for i in sorted(found)]
