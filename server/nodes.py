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
from collections.abc import Iterator
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
    return reserve(tree.root_node.descendant_count)


def reserve(count: int) -> NodeIdSpace:
    """Reserve the ids of a parse of ``count`` nodes made elsewhere (a worker process: its tree stays there)."""
    global _next_base
    with _lock:
        base = _next_base
        _next_base += count
    return NodeIdSpace(base, count)


def preorder(tree: Tree) -> Iterator[Node]:
    """Every node of a tree in pre-order (descendant-index order), with one cursor: no recursion, no lists."""
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        yield node
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return


def lineage(root: Node, node: Node) -> list[Node]:
    """``node`` and its ancestors up to ``root``, innermost first.

    Why not ``node.parent`` in a loop: tree-sitter stores no parent links, so each ``parent`` walks down from the
    root again and a chain of ``d`` ancestors costs O(d²) — seconds on hostile nesting. Walking down once with
    ``child_with_descendant`` costs O(d × siblings).
    """
    chain = [root]
    while chain[-1] != node:
        child = chain[-1].child_with_descendant(node)
        if child is None:
            raise LookupError(f"node {node!r} is not under {root!r}")
        chain.append(child)
    chain.reverse()
    return chain


class Ancestors:
    """The ancestors of many nodes of one tree, for a cost that does not grow with depth at each question.

    Why: ``node.parent`` walks down from the root each time (O(depth)), so asking it of every level of a
    5,000-deep literal costs O(depth²) — seconds. Here one chain from the root is kept and moved from each node
    asked to the next: it is cut back to the deepest node that still holds the new one, then walked down from
    there. Nodes asked in document order share their common ancestors, so a whole nesting is walked once.
    Subclasses may keep something per level of the chain by extending :meth:`_push` and :meth:`_pop`.
    """

    def __init__(self, root: Node) -> None:
        self._chain: list[Node] = [root]  # chain[k + 1] is a child of chain[k]
        self.steps = 0  # levels walked down, over the object's life (what the walk cost)

    def chain(self, node: Node) -> list[Node]:
        """The root, ..., ``node``: the object's own list, valid until the next question."""
        chain = self._chain
        start, end = node.start_byte, node.end_byte
        while chain[-1] != node and len(chain) > 1 and not _strictly_holds(chain[-1], start, end):
            self._pop()  # an empty node, or one the length of its parent: their bytes do not say which holds which
        while chain[-1] != node:
            child = chain[-1].child_with_descendant(node)
            if child is None:
                raise LookupError(f"node {node!r} is not under {chain[0]!r}")
            self._push(child)
        return chain

    def parent(self, node: Node, up: int = 1) -> Node | None:
        """The ancestor ``up`` levels above ``node`` (its parent by default), None above the root."""
        chain = self.chain(node)
        return chain[-1 - up] if up < len(chain) else None

    def _push(self, node: Node) -> None:
        self._chain.append(node)
        self.steps += 1

    def _pop(self) -> None:
        self._chain.pop()


def _strictly_holds(node: Node, start: int, end: int) -> bool:
    """Whether ``node``'s bytes hold ``[start, end)`` and more: then it is an ancestor of a node there (nodes whose
    bytes overlap are nested, unless empty)."""
    return (
        start < end
        and node.start_byte <= start
        and end <= node.end_byte
        and node.end_byte - node.start_byte > end - start
    )


def enclosing(root: Node, start: int, end: int | None = None) -> list[Node]:
    """The smallest node spanning bytes ``[start, end]`` (``end`` defaults to ``start``) and its ancestors,
    innermost first: ``descendant_for_byte_range`` and its parent chain, in O(depth) instead of O(depth²)."""
    node = root.descendant_for_byte_range(start, start if end is None else end)
    return [root] if node is None else lineage(root, node)


def descendant_index(tree: Tree, node: Node) -> int:
    """Pre-order index of ``node`` in ``tree`` (the root is 0), found by walking down its ancestors."""
    chain = lineage(tree.root_node, node)
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
