"""YAML flow members: an element of ``[a, b]`` or an entry of ``{a: 1, b: 2}``.

Why like Python's delimited members: the comma is the delimiter. Removing an element takes its comma (the one
before it when it is last, so ``[a, b]`` minus ``b`` is ``[a]``), keeps a trailing comma's style (``[a, b,]``
minus ``b`` is ``[a,]``), takes the whole line of an element on its own line, and leaves ``[]`` when the last
one goes. A new element is separated as its neighbours are (``, `` or a newline and their indentation).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

from tree_sitter import Node

from .model import ActionRefused, Replace
from .yaml_anchors import check_movable, check_removable, renamed_copy
from .yaml_block import _check_kinds, _kinds_refusal, _runs
from .yaml_text import column, line_end, line_start, newline, next_line, only_space_before

FLOW_CONTAINERS = frozenset({"flow_sequence", "flow_mapping"})


class FlowMember:
    """One element of a flow sequence or one entry of a flow mapping."""

    style = "flow"

    def __init__(self, source: bytes, node: Node) -> None:
        self.source = source
        self.node = node
        parent = node.parent
        assert parent is not None
        self.parent: Node = parent

    @property
    def kind(self) -> str:
        return "item" if self.parent.type == "flow_sequence" else "entry"

    @property
    def container(self) -> tuple[int, int, str]:
        return (self.parent.start_byte, self.parent.end_byte, self.parent.type)

    @property
    def span(self) -> tuple[int, int]:
        return (self.node.start_byte, self.node.end_byte)

    @cached_property
    def col(self) -> int:
        return column(self.source, self.node.start_byte)

    def siblings(self) -> Sequence[FlowMember]:
        return [FlowMember(self.source, n) for n in self._sibling_nodes]

    @cached_property
    def _sibling_nodes(self) -> list[Node]:
        return [c for c in self.parent.children if c.is_named and c.type != "comment"]

    @cached_property
    def _index(self) -> int:
        return next(i for i, n in enumerate(self._sibling_nodes) if n.start_byte == self.node.start_byte)

    def _sibling(self, step: int) -> FlowMember | None:
        at = self._index + step
        return FlowMember(self.source, self._sibling_nodes[at]) if 0 <= at < len(self._sibling_nodes) else None

    @cached_property
    def comma(self) -> Node | None:
        """The comma right after it, if any (a trailing comma too)."""
        for c in self.parent.children:
            if c.start_byte >= self.node.end_byte and c.type != "comment":
                return c if c.type == "," else None
        return None

    @cached_property
    def own_line(self) -> bool:
        """It stands alone on its line(s): only indentation before, only its comma and a comment after."""
        src = self.source
        end = self.comma.end_byte if self.comma is not None else self.node.end_byte
        rest = src[end : line_end(src, end)].strip(b" \t")
        return only_space_before(src, self.node.start_byte) and (not rest or rest.startswith(b"#"))

    def _comments_between(self, start: int, end: int) -> bool:
        return any(c.type == "comment" and start <= c.start_byte < end for c in self.parent.children)

    def removal(self) -> list[Replace]:
        return _run_removal(self, self)

    def removal_together(self, others: Sequence[FlowMember]) -> list[Replace]:
        """This element and ``others`` (siblings) removed at once: each run of adjacent ones as one element."""
        return [r for first, last in _runs(self, others) for r in _run_removal(first, last)]

    def refusal_for(self, other: Any) -> str | None:
        """Why ``other`` cannot take this element's place (None when it can)."""
        return _kinds_refusal(self, other)

    def _separator(self) -> bytes:
        """What stands between two elements here: the neighbours' own whitespace, else a newline and this one's
        indentation when it is on its own line, else a space."""
        src = self.source
        before, after = self._sibling(-1), self._sibling(1)
        gap = None
        if before is not None and before.comma is not None:
            gap = src[before.comma.end_byte : self.node.start_byte]
        elif after is not None and self.comma is not None:
            gap = src[self.comma.end_byte : after.node.start_byte]
        if gap is not None and not gap.strip(b" \t\r\n"):
            return gap
        if only_space_before(src, self.node.start_byte):
            return newline(src) + b" " * self.col
        return b" "

    def insertion(self, text: bytes, after: bool) -> tuple[Replace, int]:
        src, sep = self.source, self._separator()
        if not after:
            return Replace(self.node.start_byte, self.node.start_byte, text + b"," + sep), 0
        if self.comma is None:
            return Replace(self.node.end_byte, self.node.end_byte, b"," + sep + text), 1 + len(sep)
        at = self.comma.end_byte
        if src[at : line_end(src, at)].strip(b" \t").startswith(b"#"):
            at = line_end(src, at)
        return Replace(at, at, sep + text + b","), len(sep)

    def text_for(self, other: Any, source: bytes) -> bytes:
        _check_kinds(self, other)
        if other.span != self.span:
            check_movable(other.node, other.span, self.span)
        if other.style == "flow":
            start, end = other.span
            if other.span == self.span:  # a copy of itself: its anchors get fresh names
                return renamed_copy(self.node, self.span, source[start:end])
            return source[start:end]
        return bytes(other.as_flow())

    def as_block(self) -> bytes:
        """Its text as a block member: ``- text`` for an element, ``key: value`` for an entry (one line)."""
        if any(c.type == "comment" for c in _descendants(self.node)):
            raise ActionRefused("destination", "a flow element with a comment inside cannot become a block member")
        text = b" ".join(line.strip() for line in self.source[self.node.start_byte : self.node.end_byte].split(b"\n"))
        if self.kind == "item":
            return b"- " + text
        return text if self.node.type == "flow_pair" else text + b":"


def _run_removal(first: FlowMember, last: FlowMember) -> list[Replace]:
    """Remove ``first`` to ``last`` (adjacent siblings, maybe one) with their commas."""
    src, start, end = first.source, first.node.start_byte, last.node.end_byte
    check_removable(first.node, (start, end))
    before, after = first._sibling(-1), last._sibling(1)
    if before is None and after is None:
        opening, closing = first.parent.children[0], first.parent.children[-1]
        if not first._comments_between(opening.end_byte, closing.start_byte):
            return [Replace(opening.end_byte, closing.start_byte, b"")]
        return [Replace(start, last.comma.end_byte if last.comma else end, b"")]
    if first.own_line and last.own_line:
        replaces = [Replace(line_start(src, start), next_line(src, last.comma.end_byte if last.comma else end), b"")]
        if after is None and last.comma is None and before is not None and before.comma is not None:
            replaces.insert(0, Replace(before.comma.start_byte, before.comma.end_byte, b""))
        return replaces
    if after is not None:
        return [Replace(start, after.node.start_byte, b"")]
    assert before is not None
    assert before.comma is not None
    previous = before.comma
    if last.comma is not None:
        return [Replace(previous.end_byte, last.comma.end_byte, b"")]
    if first._comments_between(previous.end_byte, start):
        return [
            Replace(previous.start_byte, previous.end_byte, b""),
            Replace(next_line(src, previous.end_byte), end, b""),  # the comment's newline stays
        ]
    return [Replace(previous.start_byte, end, b"")]


def _descendants(node: Node) -> list[Node]:
    out, stack = [], list(node.children)
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.children)
    return out
