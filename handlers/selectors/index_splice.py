"""Splicing a new version's selector index (:mod:`.index`) from the previous version's.

Building it by walking every node from Python costs about 45 ms for a 10,000-line file, which typing would pay on
every new version. So a new version's index is **spliced** from the previous one (:meth:`.index.TreeIndex.updated`,
through :func:`spliced`): only the nodes on the path to the changed bytes are visited; the unchanged subtrees before
and after them are copied as whole slices of the old arrays (C-level, with numpy shifting positions and parents),
and only the changed subtrees are walked. Unchanged means: outside the changed bytes and not touching them (the
lexer and error recovery look across a join), free of syntax errors in both trees, same kind, same span (shifted)
and same descendant count. A splice whose result does not have the new tree's node count, or a change too wide or
too deep to be worth it, falls back to the full walk; property tests check spliced indexes against full walks node
for node, and the rows they reuse against this rule.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from tree_sitter import Node, Tree

from tether_lsp.server.byte_edits import common_prefix, common_suffix
from tether_lsp.server.lazy import lazy_module

from .index_rows import COLUMNS, Rows

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

#: A change touching more than this share of the old text is indexed by a full walk (cheaper than matching).
SPLICE_MAX_CHANGED_SHARE = 0.5
#: A change nested deeper than this is indexed by a full walk: each level of the path to it costs about 0.1 ms
#: (a rows segment and a copy to assemble), so 128 levels cost what a full walk of a 3,000-line file does.
SPLICE_MAX_DEPTH = 128


class Indexed(Protocol):
    """What a splice reads of the previous version's index."""

    text: bytes
    kind: array[int]
    named: bytes
    field: array[int]
    parent: array[int]
    start: array[int]
    end: array[int]
    subtree_end: array[int]
    error: bytes

    def children(self, i: int) -> Iterator[int]: ...


def spliced(old: Indexed, tree: Tree, text: bytes) -> tuple[dict[str, Any], int] | None:
    """The columns of ``tree``'s index (over ``text``) and how many rows were copied from ``old``'s, or None when
    the change is too wide or too deep to be worth it, or the splice does not add up (a full walk then)."""
    prefix = common_prefix(old.text, text)
    suffix = common_suffix(old.text, text, min(len(old.text), len(text)) - prefix)
    changed_old = (prefix, len(old.text) - suffix)
    if changed_old[1] - changed_old[0] > SPLICE_MAX_CHANGED_SHARE * max(len(old.text), 1):
        return None
    splice = Splice(old, tree, changed_old, len(text) - len(old.text))
    columns = splice.columns()
    if columns is None:
        return None
    return columns, sum(segment[2] - segment[1] for segment in splice.segments if segment[0] == "copy")


class Splice:
    """One splice of an old index onto a new tree: path nodes visited, unchanged siblings copied as slices.

    ``segments`` hold, in pre-order, either rows appended one node at a time (``("rows", rows, base)``, base
    being the global position of the rows' first row) or a copy of a contiguous range of old rows
    (``("copy", lo, hi, shift, byte_shift, old_parent, new_parent)``).
    """

    def __init__(self, old: Indexed, tree: Tree, changed: tuple[int, int], delta: int) -> None:
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

    def _rows(self) -> tuple[Rows, int]:
        if self.segments and self.segments[-1][0] == "rows":
            return self.segments[-1][1], self.segments[-1][2]
        rows = Rows()
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
        ends: list[tuple[list[int], list[int], list[Node], int, int, int, Rows, int]] = []
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
