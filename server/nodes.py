"""Node ids: integers that name a tree-sitter node of one parse, unique for the life of the process.

Why not ``Node.id``: tree-sitter reuses subtrees across incremental parses, so its ids survive edits for
some nodes and not others — useless as an identity a client can hold. Tether gives each parse a fresh
*base* from one process-wide counter, advanced by the tree's descendant count, and names a node
``base + its pre-order descendant index``. Hence:

* ids are never reused across parses (or documents), so an id from an older parse is detectably stale;
* sorting ids sorts nodes in document order (pre-order);
* an id resolves in O(depth) with ``TreeCursor.goto_descendant``, and a node's id is found in O(depth)
  by walking down its ancestor chain — no per-tree index is needed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from tree_sitter import Node, Tree

_lock = threading.Lock()
_next_base = 1


@dataclass(frozen=True, slots=True)
class NodeIdSpace:
    """The ids of one parse: ``[base, base + count)``."""

    base: int
    count: int

    def contains(self, node_id: int) -> bool:
        return self.base <= node_id < self.base + self.count

    def node(self, tree: Tree, node_id: int) -> Node | None:
        """The node named by ``node_id`` in ``tree``, or None when the id is stale for this parse."""
        if not self.contains(node_id):
            return None
        cursor = tree.walk()
        cursor.goto_descendant(node_id - self.base)
        return cursor.node

    def id_of(self, tree: Tree, node: Node) -> int:
        return self.base + descendant_index(tree, node)


def allocate(tree: Tree) -> NodeIdSpace:
    """Reserve the ids of a new parse."""
    global _next_base
    count = tree.root_node.descendant_count
    with _lock:
        base = _next_base
        _next_base += count
    return NodeIdSpace(base, count)


def descendant_index(tree: Tree, node: Node) -> int:
    """Pre-order index of ``node`` in ``tree`` (the root is 0), found by walking down its ancestors."""
    chain: list[Node] = []
    current: Node | None = node
    while current is not None:
        chain.append(current)
        current = current.parent
    cursor = tree.walk()
    for target in reversed(chain[:-1]):
        if target.start_byte == target.end_byte:
            found = cursor.goto_first_child()
        else:
            found = cursor.goto_first_child_for_byte(target.start_byte) is not None
        while found and cursor.node != target:
            found = cursor.goto_next_sibling()
        if not found:  # pragma: no cover - a node always lies under its ancestors
            raise LookupError(f"node {node!r} not found under its parent")
    return cursor.descendant_index
