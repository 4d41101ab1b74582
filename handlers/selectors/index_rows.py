"""The rows of a selector index (:mod:`.index`): its columns, and rows appended one node at a time, or a whole
subtree at once by a cursor walk (what a new index and the changed parts of a spliced one are built from)."""

from __future__ import annotations

from tree_sitter import Node

#: The arrays of an index: name, array typecode, numpy dtype.
COLUMNS = (
    ("kind", "H", "uint16"),
    ("named", "B", "uint8"),
    ("field", "H", "uint16"),
    ("parent", "i", "int32"),
    ("start", "I", "uint32"),
    ("end", "I", "uint32"),
    ("subtree_end", "I", "uint32"),
    ("error", "B", "uint8"),  # the subtree holds an ERROR or MISSING node
)


class Rows:
    """Rows appended one node at a time (the nodes a splice or a walk visits)."""

    __slots__ = ("end", "error", "field", "kind", "named", "parent", "start", "subtree_end")

    def __init__(self) -> None:
        self.kind: list[int] = []
        self.named: list[int] = []
        self.field: list[int] = []
        self.parent: list[int] = []
        self.start: list[int] = []
        self.end: list[int] = []
        self.subtree_end: list[int] = []
        self.error: list[int] = []

    def __len__(self) -> int:
        return len(self.kind)

    def add(self, node: Node, field: int, parent: int) -> int:
        """Append a node; returns its row (its ``subtree_end`` is set by the caller)."""
        self.kind.append(node.kind_id)
        self.named.append(node.is_named)
        self.field.append(field)
        self.parent.append(parent)
        self.start.append(node.start_byte)
        self.end.append(node.end_byte)
        self.subtree_end.append(0)
        self.error.append(node.has_error)
        return len(self.kind) - 1

    def walk(self, node: Node, field: int, parent: int, base: int) -> None:
        """Append ``node``'s whole subtree in pre-order; ``base`` is the global position of row 0."""
        cursor = node.walk()
        stack = [parent]
        first = len(self.kind)
        k_add, n_add, f_add, p_add = self.kind.append, self.named.append, self.field.append, self.parent.append
        s_add, e_add, x_add, r_add = self.start.append, self.end.append, self.subtree_end.append, self.error.append
        subtree_end = self.subtree_end
        i = first + base
        while True:
            current = cursor.node
            assert current is not None
            k_add(current.kind_id)
            n_add(current.is_named)
            f_add(field if i == first + base else cursor.field_id or 0)
            p_add(stack[-1])
            s_add(current.start_byte)
            e_add(current.end_byte)
            x_add(0)
            r_add(current.has_error)
            if cursor.goto_first_child():
                stack.append(i)
                i += 1
                continue
            subtree_end[i - base] = i + 1
            i += 1
            if cursor.goto_next_sibling():
                continue
            while cursor.goto_parent():
                subtree_end[stack.pop() - base] = i
                if cursor.goto_next_sibling():
                    break
            else:
                break
