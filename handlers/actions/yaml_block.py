"""YAML block members: an item of a block sequence (``- a``) or an entry of a block mapping (``key: value``).

Why line-based: a block member is its lines. Its own text runs from its first character to the end of its last
line, with the comment that ends that line and the comment lines under it indented deeper (tree-sitter-yaml
hands comments to the deepest open node, so the tree does not say whose they are), and the comment lines right
above it at its own column (so a swap carries them, and a second swap brings them back).
Removing it takes those lines and, when blank lines set it apart on both sides (or it is the last member), one
side's blank lines. An emptied container becomes ``[]`` or ``{}`` where it stood, so the data keeps its shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

from tree_sitter import Node

from .model import ActionRefused, Replace
from .yaml_anchors import check_movable, check_removable, renamed_copy
from .yaml_text import (
    column,
    content_end,
    indent_of,
    is_blank,
    is_comment_line,
    line_end,
    line_start,
    newline,
    next_line,
    only_space_before,
    previous_line,
    reindented,
)

BLOCK_MEMBERS = frozenset({"block_sequence_item", "block_mapping_pair"})
#: Nodes under a block member that have no one-line flow form.
_BLOCK_ONLY = frozenset({"block_mapping", "block_sequence", "block_scalar", "comment"})
_FLOW_INDICATORS = frozenset(b",[]{}")


class BlockMember:
    """One item of a block sequence or one entry of a block mapping."""

    style = "block"

    def __init__(self, source: bytes, node: Node) -> None:
        self.source = source
        self.node = node
        parent = node.parent
        assert parent is not None
        self.parent: Node = parent

    @property
    def kind(self) -> str:
        return "item" if self.node.type == "block_sequence_item" else "entry"

    @property
    def container(self) -> tuple[int, int, str]:
        return (self.parent.start_byte, self.parent.end_byte, self.parent.type)

    def siblings(self) -> Sequence[BlockMember]:
        return [BlockMember(self.source, n) for n in self._sibling_nodes]

    @cached_property
    def _sibling_nodes(self) -> list[Node]:
        return [c for c in self.parent.children if c.type in BLOCK_MEMBERS]

    @cached_property
    def _index(self) -> int:
        return next(i for i, n in enumerate(self._sibling_nodes) if n.start_byte == self.node.start_byte)

    def _sibling(self, step: int) -> BlockMember | None:
        at = self._index + step
        return BlockMember(self.source, self._sibling_nodes[at]) if 0 <= at < len(self._sibling_nodes) else None

    @cached_property
    def inline(self) -> bool:
        """It shares its first line with what holds its container (``- a: 1``, ``- - x``)."""
        return not only_space_before(self.source, self.node.start_byte)

    @cached_property
    def col(self) -> int:
        return column(self.source, self.node.start_byte)

    @cached_property
    def first(self) -> int:
        """Where its own text starts: its first leading comment, or its first character."""
        src, start = self.source, self.node.start_byte
        before = self._sibling(-1)
        if self.inline:
            return start
        floor = content_end(before.node) if before is not None else 0
        at = line_start(src, start)
        while (up := previous_line(src, at)) is not None and up >= floor:
            if not (is_comment_line(src, up) and indent_of(src, up) == self.col):
                break
            at = up
        return start if at == line_start(src, start) else at + indent_of(src, at)

    @cached_property
    def last(self) -> int:
        """Where its own text ends: the end of its last line, or of the deeper comment lines under it."""
        src = self.source
        end = line_end(src, content_end(self.node))
        after = self._sibling(1)
        ceiling = after.node.start_byte if after is not None else len(src)
        at = next_line(src, end)
        while at < ceiling and is_comment_line(src, at) and indent_of(src, at) > self.col:
            end = line_end(src, at)
            at = next_line(src, end)
        while end > self.node.start_byte and src[end - 1 : end] in (b" ", b"\t"):
            end -= 1
        return end

    @property
    def span(self) -> tuple[int, int]:
        return (self.first, self.last)

    def _blank_lines_above(self, start: int) -> int:
        """The start of the run of blank lines right above the line starting at ``start`` (``start`` if none)."""
        while (up := previous_line(self.source, start)) is not None and is_blank(self.source, up):
            start = up
        return start

    def _blank_lines_between(self, earlier: BlockMember, later: BlockMember) -> int:
        at, count = line_start(self.source, later.first), 0
        while (up := previous_line(self.source, at)) is not None and up > earlier.last and is_blank(self.source, up):
            at, count = up, count + 1
        return count

    def removal(self) -> list[Replace]:
        return _run_removal(self, self)

    def removal_together(self, others: Sequence[BlockMember]) -> list[Replace]:
        """This member and ``others`` (siblings) removed at once: each run of adjacent ones as one member."""
        return [r for first, last in _runs(self, others) for r in _run_removal(first, last)]

    def refusal_for(self, other: Any) -> str | None:
        """Why ``other`` cannot take this member's place (None when it can)."""
        return _kinds_refusal(self, other)

    def _emptied(self, last: BlockMember) -> list[Replace]:
        """Every member from this one to ``last`` goes: the container becomes ``[]`` or ``{}`` right after what
        announced it (the key's colon, the item's dash, an anchor or a tag), or in their place at a document's
        top."""
        src = self.source
        empty = b"[]" if self.parent.type == "block_sequence" else b"{}"
        holder = self.parent.parent
        announcer = _last_before(holder, self.parent) if holder is not None else None
        if announcer is None and holder is not None and holder.parent is not None and holder.parent.type != "document":
            announcer = _last_before(holder.parent, holder)
        if announcer is None:
            return [Replace(self.first, last.last, empty)]
        if self.inline:
            return [Replace(announcer.end_byte, last.last, b" " + empty)]
        start = self._blank_lines_above(line_start(src, self.first))
        start = max(start, next_line(src, announcer.end_byte))
        return [
            Replace(announcer.end_byte, announcer.end_byte, b" " + empty),
            Replace(start, next_line(src, last.last), b""),
        ]

    def insertion(self, text: bytes, after: bool) -> tuple[Replace, int]:
        nl, indent = newline(self.source), b" " * self.col
        near, far = (self._sibling(1), self._sibling(-1)) if after else (self._sibling(-1), self._sibling(1))
        blanks = 0
        if near is not None or far is not None:
            other = near if near is not None else far
            assert other is not None
            pair = (self, other) if other.node.start_byte > self.node.start_byte else (other, self)
            blanks = self._blank_lines_between(*pair)
        gap = nl * (1 + blanks)
        dash = b"- " if not text and self.kind == "item" else b""  # an empty item: its dash, the cursor after it
        text = dash + text
        if after:
            inserted = gap + indent + text
            return Replace(self.last, self.last, inserted), len(inserted) - len(text) + len(dash)
        return Replace(self.first, self.first, text + gap + indent), len(dash)

    def text_for(self, other: Any, source: bytes) -> bytes:
        _check_kinds(self, other)
        if other.span != self.span:
            check_movable(other.node, other.span, self.span)
        if other.style == "block":
            start, end = other.span
            text = source[start:end]
            if other.span == self.span:  # a copy of itself: its anchors get fresh names
                text = renamed_copy(self.node, self.span, text)
            return reindented(text, self.col - other.col)
        return bytes(other.as_block())

    def as_flow(self) -> bytes:
        """Its text as an element of a flow collection, on one line; refused when it has no such form."""
        node, src = self.node, self.source
        start, end = node.start_byte, content_end(node)
        if node.type == "block_sequence_item":
            content = [c for c in node.children if c.type not in ("-", "comment")]
            if not content:
                return b"null"
            start = content[0].start_byte
        if node.children and node.children[0].type == "?":
            raise ActionRefused("destination", "an explicit key (?) has no form in a flow collection")
        _check_flat(node, src)
        return b" ".join(line.strip() for line in src[start:end].split(b"\n"))


def _runs(member: Any, others: Sequence[Any]) -> list[tuple[Any, Any]]:
    """The removed members of one container as runs of adjacent siblings: (first, last) of each."""
    siblings = member.siblings()
    spans = [s.span for s in siblings]
    chosen = sorted({spans.index(m.span) for m in [member, *others]})
    runs: list[list[int]] = []
    for k in chosen:
        if runs and runs[-1][1] == k - 1:
            runs[-1][1] = k
        else:
            runs.append([k, k])
    return [(siblings[a], siblings[b]) for a, b in runs]


def _run_removal(first: BlockMember, last: BlockMember) -> list[Replace]:
    """Remove ``first`` to ``last`` (adjacent siblings, maybe one) with what belongs to them."""
    src = first.source
    for member in first.siblings()[first._index : last._index + 1]:
        check_removable(member.node, (first.node.start_byte, last.last))
    before, after = first._sibling(-1), last._sibling(1)
    if before is None and after is None:
        return first._emptied(last)
    if first.inline and after is not None:
        return [Replace(first.node.start_byte, after.first, b"")]
    start, stop = line_start(src, first.first), next_line(src, last.last)
    if after is None:
        start = max(first._blank_lines_above(start), next_line(src, before.last) if before else 0)
    elif before is not None and first._blank_lines_between(before, first):
        while stop < line_start(src, after.first) and is_blank(src, stop):
            stop = next_line(src, stop)
    return [Replace(start, stop, b"")]


def _check_flat(node: Node, source: bytes) -> None:
    """Refuse what would not read the same inside ``[...]`` or ``{...}``."""
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.type in _BLOCK_ONLY:
            raise ActionRefused("destination", "a block value or a comment cannot go in a flow collection")
        if n.type == "plain_scalar" and _FLOW_INDICATORS & set(source[n.start_byte : n.end_byte]):
            raise ActionRefused(
                "destination", "a plain scalar with , [ ] { } would read otherwise in a flow collection"
            )
        stack.extend(n.children)


def _last_before(parent: Node, child: Node) -> Node | None:
    """The last child of ``parent`` before ``child`` that is not a comment."""
    found = None
    for c in parent.children:
        if c.start_byte >= child.start_byte:
            break
        if c.type != "comment":
            found = c
    return found


def _kinds_refusal(this: Any, other: Any) -> str | None:
    if getattr(other, "style", None) not in ("block", "flow"):
        return "only a YAML member can go in a YAML collection"
    if other.kind != this.kind:
        where = "a sequence" if this.kind == "item" else "a mapping"
        return f"a YAML {other.kind} cannot go in {where}"
    return None


def _check_kinds(this: Any, other: Any) -> None:
    reason = _kinds_refusal(this, other)
    if reason is not None:
        raise ActionRefused("destination", reason)
