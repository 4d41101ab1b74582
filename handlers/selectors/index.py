"""A flat pre-order index of one tree: what every selector walks instead of tree-sitter nodes.

Why: a selector chain visits tens of thousands of nodes; touching tree-sitter ``Node`` objects from Python
for each one costs microseconds apiece. The index records, for every node in pre-order, its kind id, named
flag, field id, parent and byte span, plus where its subtree ends — so a node *is* its pre-order index ``i``
(tree-sitter's own descendant index; its node id is ``base + i``, see ``server.nodes``):

* the descendants of ``i`` are ``i + 1 .. subtree_end[i] - 1``;
* its children are reached by hopping ``j = subtree_end[j]``;
* ``a`` is an ancestor of ``b`` iff ``a < b < subtree_end[a]``.

Building it by walking every node from Python costs about 45 ms for a 10,000-line file, which typing would
pay on every new version. So a new version's index is **spliced** from the previous one
(:meth:`TreeIndex.updated`): only the nodes on the path to the changed bytes are visited; the unchanged
subtrees before and after them are copied as whole slices of the old arrays (C-level, with numpy shifting
positions and parents), and only the changed subtrees are walked. Unchanged means: outside the changed
bytes and not touching them (the lexer and error recovery look across a join), free of syntax errors in both
trees, same kind, same span (shifted) and same descendant count. A splice whose result does not have the new
tree's node count, or a change too wide or too deep to be worth it, falls back to the full walk; property tests
check spliced indexes against full walks node for node, and the rows they reuse against this rule.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tree_sitter import Language, Node, Tree

from tether_lsp.server.documents import common_prefix, common_suffix
from tether_lsp.server.lazy import lazy_module

from .spans import WHITESPACE

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

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


@functools.cache
def _whitespace_table() -> Any:
    """A 256-entry lookup: is this byte whitespace (``spans.WHITESPACE``)?"""
    table = np.zeros(256, dtype=bool)
    table[list(WHITESPACE)] = True
    return table


#: A change touching more than this share of the old text is indexed by a full walk (cheaper than matching).
SPLICE_MAX_CHANGED_SHARE = 0.5
#: A change nested deeper than this is indexed by a full walk: each level of the path to it costs about 0.1 ms
#: (a rows segment and a copy to assemble), so 128 levels cost what a full walk of a 3,000-line file does.
SPLICE_MAX_DEPTH = 128


class _Rows:
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


class TreeIndex:
    """Pre-order arrays describing every node of one tree (named and anonymous)."""

    __slots__ = (
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
            rows = _Rows()
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
        #: Rows taken from the previous version's index by :meth:`updated` (0: every node was walked).
        self.copied_rows = 0

    @classmethod
    def updated(cls, old: TreeIndex, tree: Tree, text: bytes) -> TreeIndex:
        """The index of ``tree`` (over ``text``), reusing ``old``'s unchanged subtrees (see the module doc)."""
        if old.language != tree.language:
            return cls(tree, text)
        prefix = common_prefix(old.text, text)
        suffix = common_suffix(old.text, text, min(len(old.text), len(text)) - prefix)
        changed_old = (prefix, len(old.text) - suffix)
        if changed_old[1] - changed_old[0] > SPLICE_MAX_CHANGED_SHARE * max(len(old.text), 1):
            return cls(tree, text)
        splice = _Splice(old, tree, changed_old, len(text) - len(old.text))
        columns = splice.columns()
        if columns is None:
            return cls(tree, text)
        index = cls(tree, text, columns)
        index.copied_rows = sum(segment[2] - segment[1] for segment in splice.segments if segment[0] == "copy")
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
        """Pre-order indices of the nodes whose kind id is in ``kind_ids`` (one scan in C per set, cached)."""
        found = self._positions.get(kind_ids)
        if found is None:
            kinds = np.frombuffer(self.kind, dtype=np.uint16)
            wanted = np.fromiter(kind_ids, dtype=np.uint16, count=len(kind_ids))
            found = self._positions[kind_ids] = np.flatnonzero(np.isin(kinds, wanted)).tolist()
        return found

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
        if not rows or not self.text:
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


class _Splice:
    """One splice of an old index onto a new tree: path nodes visited, unchanged siblings copied as slices.

    ``segments`` hold, in pre-order, either rows appended one node at a time (``("rows", rows, base)``, base
    being the global position of the rows' first row) or a copy of a contiguous range of old rows
    (``("copy", lo, hi, shift, byte_shift, old_parent, new_parent)``).
    """

    def __init__(self, old: TreeIndex, tree: Tree, changed: tuple[int, int], delta: int) -> None:
        self.old = old
        self.tree = tree
        self.changed_start, self.changed_end = changed  # old bytes [start, end) that differ
        self.delta = delta
        self.segments: list[tuple[Any, ...]] = []
        self.pos = 0
        self.fields: list[tuple[int, int]] = []  # (new row, field id) of copied children whose field changed

    def columns(self) -> dict[str, Any] | None:
        root = self.tree.root_node
        if root.kind_id != self.old.kind[0]:
            return None
        if not self._visit(0, root, 0, -1) or self.pos != root.descendant_count:
            return None
        return self._assemble()

    def _rows(self) -> tuple[_Rows, int]:
        if self.segments and self.segments[-1][0] == "rows":
            return self.segments[-1][1], self.segments[-1][2]
        rows = _Rows()
        self.segments.append(("rows", rows, self.pos))
        return rows, self.pos

    def _child_fields(self, node: Node) -> list[int]:
        """The field id of each of ``node``'s children, in one pass of a cursor (``field_name_for_child`` counts
        from the first child on every call: quadratic over a module's hundreds of children)."""
        fields: list[int] = []
        cursor = node.walk()
        if cursor.goto_first_child():
            fields.append(cursor.field_id or 0)
            while cursor.goto_next_sibling():
                fields.append(cursor.field_id or 0)
        return fields

    def _visit(self, oi: int, node: Node, field: int, parent: int) -> bool:
        """Rows for ``node`` (old row ``oi``) and its subtree: down the one changed child of each level in a loop,
        then back up, each level ending with its aligned children after the change. False, with nothing done
        right, for a change deeper than :data:`SPLICE_MAX_DEPTH`."""
        old, start, end, delta = self.old, self.changed_start, self.changed_end, self.delta
        o_kind, o_start, o_end = old.kind, old.start, old.end
        ends: list[tuple[list[int], list[int], list[Node], int, int, int, _Rows, int]] = []
        while True:
            rows, base = self._rows()
            me = base + rows.add(node, field, parent)
            self.pos = me + 1
            olds = list(old.children(oi))
            news = node.children
            fields = self._child_fields(node)
            n_old, n_new = len(olds), len(news)
            # Aligned children (same kind, same span shifted) before the changed bytes, then after them. A module
            # has hundreds of children and this runs on every keystroke: plain loops over local names, no calls.
            k = 0
            while k < n_old and k < n_new:
                c, child = olds[k], news[k]
                if o_end[c] >= start or o_kind[c] != child.kind_id:
                    break
                if o_start[c] != child.start_byte or o_end[c] != child.end_byte:
                    break
                k += 1
            m = 0
            while m < n_old - k and m < n_new - k:
                c, child = olds[n_old - 1 - m], news[n_new - 1 - m]
                if o_start[c] <= end or o_kind[c] != child.kind_id:
                    break
                if o_start[c] + delta != child.start_byte or o_end[c] + delta != child.end_byte:
                    break
                m += 1
            self._aligned_children(fields, olds[:k], news[:k], 0, 0, oi, me)
            ends.append((fields, olds[n_old - m :], news[n_new - m :], n_new - m, oi, me, rows, base))
            middle_old, middle_new = olds[k : n_old - m], news[k : n_new - m]
            if len(middle_old) == 1 and len(middle_new) == 1 and o_kind[middle_old[0]] == middle_new[0].kind_id:
                if len(ends) > SPLICE_MAX_DEPTH:
                    return False
                oi, node, field, parent = middle_old[0], middle_new[0], fields[k], me
                continue
            for j, child in enumerate(middle_new):
                self._walk(child, fields[k + j], me)
            break
        while ends:
            fields, olds_after, news_after, first, oi, me, rows, base = ends.pop()
            self._aligned_children(fields, olds_after, news_after, first, delta, oi, me)
            rows.subtree_end[me - base] = self.pos  # the rows it was added to: no search through the segments
        return True

    def _aligned_children(
        self, fields: list[int], olds: list[int], news: list[Node], first: int, shift: int, oi: int, me: int
    ) -> None:
        """Aligned children (``first`` is the first one's child index in their parent, whose children's field ids
        are ``fields``): each run of children whose old rows describe them is copied as one slice, with the field
        id of each corrected where the parent's rule changed around it; the others are walked.

        Old rows describe a child when neither subtree holds a syntax error (error recovery depends on
        context far away: an edit above can turn an ERROR's ``identifier`` into ``def``) and both count the
        same nodes.
        """
        o_error, o_subtree_end, o_field = self.old.error, self.old.subtree_end, self.old.field
        run = -1  # the first old row of the pending run of copies
        for j, (c, child) in enumerate(zip(olds, news, strict=True)):
            if not o_error[c] and o_subtree_end[c] - c == child.descendant_count and not child.has_error:
                if run < 0:
                    run = c
                field = fields[first + j]
                if field != o_field[c]:  # the parent's rule changed around the child: its field name with it
                    self.fields.append((self.pos + c - run, field))
                continue
            if run >= 0:
                self._copy(run, c, shift, oi, me)
                run = -1
            self._walk(child, fields[first + j], me)
        if run >= 0:
            self._copy(run, o_subtree_end[olds[-1]], shift, oi, me)

    def _walk(self, child: Node, field: int, parent: int) -> None:
        rows, base = self._rows()
        rows.walk(child, field, parent, base)
        self.pos = base + len(rows)

    def _copy(self, lo: int, hi: int, byte_shift: int, old_parent: int, new_parent: int) -> None:
        segment = ("copy", lo, hi, self.pos - lo, byte_shift, old_parent, new_parent)
        last = self.segments[-1] if self.segments else None
        if last is not None and last[0] == "copy" and last[2] == lo and last[3:] == segment[3:]:
            self.segments[-1] = ("copy", last[1], hi, *segment[3:])  # the next sibling: one slice
        else:
            self.segments.append(segment)
        self.pos += hi - lo

    def _assemble(self) -> dict[str, Any]:
        old = self.old
        views = {name: np.frombuffer(getattr(old, name), dtype=dtype) for name, _, dtype in COLUMNS}
        parts: dict[str, list[Any]] = {name: [] for name, _, _ in COLUMNS}
        for segment in self.segments:
            if segment[0] == "rows":
                rows = segment[1]
                for name, _, dtype in COLUMNS:
                    parts[name].append(np.asarray(getattr(rows, name), dtype=dtype))
                continue
            _, lo, hi, shift, byte_shift, old_parent, new_parent = segment
            for name in ("kind", "named", "field", "error"):
                parts[name].append(views[name][lo:hi])
            old_parents = views["parent"][lo:hi]
            parents = old_parents + np.int32(shift)
            parents[old_parents == old_parent] = new_parent  # the copied siblings hang under the new parent
            parts["parent"].append(parents)
            for name in ("start", "end"):
                parts[name].append((views[name][lo:hi].astype(np.int64) + byte_shift).astype(np.uint32))
            parts["subtree_end"].append((views["subtree_end"][lo:hi].astype(np.int64) + shift).astype(np.uint32))
        columns = {name: np.concatenate(parts[name]) for name, _, _ in COLUMNS}
        for row, field in self.fields:
            columns["field"][row] = field
        return columns
