"""Python's line-based members: the statements of a block or module (a function or class with its decorators
and docstring is one), the decorators of a definition, and the ``elif``/``else``/``except``/``finally`` clauses.

Why whole lines: a person removing a statement takes its line, the comment lines right above it and the comment
at its end, and the blank lines that set it apart, keeping the file's rhythm (the larger of the two gaps stays);
an emptied block gets ``pass``; a copy is re-indented to its new place, but never inside a multi-line string.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from tree_sitter import Node

from .lines import (
    indentation,
    is_blank_line,
    line_end,
    line_start,
    newline_of,
    next_line,
    previous_line,
    reindented,
    starts_line,
)
from .model import ActionRefused, Member, Replace
from .siblings import Siblings

BLOCKS = frozenset({"block", "module"})
DEFINITIONS = frozenset({"function_definition", "class_definition", "decorated_definition"})
CLAUSES = {
    "if_statement": frozenset({"elif_clause", "else_clause"}),
    "try_statement": frozenset({"except_clause", "except_group_clause", "else_clause", "finally_clause"}),
    "for_statement": frozenset({"else_clause"}),
    "while_statement": frozenset({"else_clause"}),
}
COMPOUND_STARTS = (b"def ", b"class ", b"async ", b"@", b"if ", b"for ", b"while ", b"try:", b"with ", b"match ")


def members_of(container: Node) -> list[Node]:
    """The line-based members of ``container`` in order."""
    if container.type in BLOCKS:
        return [c for c in container.named_children if c.type != "comment"]
    if container.type == "decorated_definition":
        return [c for c in container.named_children if c.type == "decorator"]
    clauses = CLAUSES.get(container.type, frozenset())
    return [c for c in container.named_children if c.type in clauses]


def family_of(container: Node) -> str:
    if container.type in BLOCKS:
        return "cases" if _is_match_body(container) else "statements"
    return "decorators" if container.type == "decorated_definition" else "clauses"


def is_line_member(node: Node) -> bool:
    parent = node.parent
    if parent is None or not node.is_named:
        return False
    if parent.type in BLOCKS:
        return node.type != "comment"
    if parent.type == "decorated_definition":
        return node.type == "decorator"
    return node.type in CLAUSES.get(parent.type, frozenset())


@dataclass(frozen=True, eq=False)
class Lines:
    """One container's line-based members in ``source``."""

    source: bytes
    node: Node

    @cached_property
    def members(self) -> list[Node]:
        return members_of(self.node)

    @cached_property
    def _spans(self) -> dict[int, tuple[int, int]]:
        return {}

    def span_of(self, index: int) -> tuple[int, int]:
        """Member ``index``'s span, computed when first asked (a module may have thousands of members)."""
        found = self._spans.get(index)
        if found is None:
            found = self._spans[index] = self._span(index)
        return found

    def _bound(self, index: int) -> int:
        """Where the region above member ``index`` starts: the previous member's end; for a first decorator, the
        definition's start (the comments above it are the definition's)."""
        if index > 0:
            return self.members[index - 1].end_byte
        return self.node.start_byte if self.node.type == "decorated_definition" else -1

    def _span(self, index: int) -> tuple[int, int]:
        source, node = self.source, self.members[index]
        start, end = node.start_byte, node.end_byte
        tail = source[end : line_end(source, end)]
        if tail.strip() == b"" or tail.lstrip().startswith(b"#"):
            end += len(tail.rstrip())
        end = start + len(source[start:end].rstrip())  # a block ending in a comment holds a CRLF's \r
        bound = self._bound(index)
        while starts_line(source, start):
            above = previous_line(source, start)
            if above < 0 or above <= bound:
                break
            text = source[above : line_end(source, above)].strip()
            if not text.startswith(b"#") or _file_header(text, above, source):
                break
            start = above + len(source[above:start]) - len(source[above:start].lstrip(b" \t\f"))
        return start, end

    def inline(self, first: int, last: int) -> bool:
        """The run shares a line with its header or another member (``if x: a`` or ``a; b``)."""
        start, end = self.span_of(first)[0], self.span_of(last)[1]
        if not starts_line(self.source, start):
            return True
        later = last + 1 < len(self.members) and line_start(self.source, self.span_of(last + 1)[0]) < next_line(
            self.source, end
        )
        return later

    def removal(self, indices: Sequence[int]) -> list[Replace]:
        chosen = sorted(set(indices))
        count = len(self.members)
        if len(chosen) == count and _is_match_body(self.node):
            raise ActionRefused("targets", "a match statement needs a case: remove the match statement instead")
        if len(chosen) == count and self.node.type == "block":
            return [Replace(self.span_of(0)[0], self.span_of(count - 1)[1], b"pass")]
        if self.node.type in CLAUSES:
            self._check_clauses(chosen)
        replaces: list[Replace] = []
        for first, last in _runs(chosen):
            replaces += self._run_removal(first, last)
        return replaces

    def _check_clauses(self, chosen: Sequence[int]) -> None:
        if self.node.type != "try_statement":
            return
        left = [m.type for k, m in enumerate(self.members) if k not in chosen]
        if not any(t in {"except_clause", "except_group_clause", "finally_clause"} for t in left):
            raise ActionRefused("targets", "a try statement needs an except or finally clause")
        if "else_clause" in left and not any(t in {"except_clause", "except_group_clause"} for t in left):
            raise ActionRefused("targets", "a try statement's else clause needs an except clause")

    def _run_removal(self, first: int, last: int) -> list[Replace]:
        source = self.source
        start, end = self.span_of(first)[0], self.span_of(last)[1]
        count = len(self.members)
        if self.inline(first, last):
            if last + 1 < count and line_start(source, self.span_of(last + 1)[0]) <= end:
                return [Replace(start, self.span_of(last + 1)[0], b"")]
            if first > 0 and line_start(source, start) <= self.members[first - 1].end_byte:
                return [Replace(self.members[first - 1].end_byte, end, b"")]
            return [Replace(start, end, b"pass")]
        top, bottom = line_start(source, start), next_line(source, end)
        above = top
        while above > 0 and (previous := previous_line(source, above)) >= 0 and is_blank_line(source, previous):
            above = previous
        below = bottom
        while below < len(source) and is_blank_line(source, below):
            below = next_line(source, below)
        blank_above = source.count(b"\n", above, top)
        blank_below = source.count(b"\n", bottom, below)
        if first > 0 and (last + 1 == count or blank_above <= blank_below):
            return [_ending_as_before(source, above, bottom)]
        return [_ending_as_before(source, top, below)]


def _ending_as_before(source: bytes, start: int, end: int) -> Replace:
    """Whole lines' removal; when they end a text with no final newline, the line break before them goes
    instead, so the text still ends without one (``if a: x\nelse: y`` minus its else is ``if a: x``)."""
    if end == len(source) and start > 0 and not source.endswith(b"\n"):
        start = line_end(source, start - 1)
    return Replace(start, end, b"")


def _runs(indices: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for k in indices:
        if runs and runs[-1][1] == k - 1:
            runs[-1] = (runs[-1][0], k)
        else:
            runs.append((k, k))
    return runs


def string_lines(node: Node, first_line: int) -> set[int]:
    """Lines (counted from ``first_line``) that start inside a multi-line string of ``node``."""
    found: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "string":
            top, bottom = current.start_point[0], current.end_point[0]
            found.update(range(top + 1 - first_line, bottom + 1 - first_line))
            continue
        stack.extend(current.children)
    return found


@dataclass(frozen=True, eq=False)
class LineMember:
    """One statement, decorator or clause (see :class:`~.model.Member`)."""

    box: Lines
    index: int

    @property
    def node(self) -> Node:
        return self.box.members[self.index]

    @property
    def kind(self) -> str:
        family = family_of(self.box.node)
        if family == "statements":
            return {"function_definition": "function", "class_definition": "class"}.get(
                _definition(self.node).type, "statement"
            )
        return {"decorators": "decorator", "cases": "case"}.get(family, "clause")

    @property
    def family(self) -> str:
        return family_of(self.box.node)

    @property
    def span(self) -> tuple[int, int]:
        return self.box.span_of(self.index)

    @property
    def container(self) -> tuple[int, int, str]:
        node = self.box.node
        return (node.start_byte, node.end_byte, node.type)

    def siblings(self) -> Sequence[Member]:
        return Siblings(self.box, len(self.box.members), LineMember)

    def removal(self) -> list[Replace]:
        return self.box.removal([self.index])

    def removal_together(self, members: Sequence[Member]) -> list[Replace]:
        indices = {self.index} | {m.index for m in members if isinstance(m, LineMember)}
        return self.box.removal(sorted(indices))

    def insertion(self, text: bytes, after: bool) -> tuple[Replace, int]:
        box, source = self.box, self.box.source
        start, end = self.span
        if self.family == "clauses":
            self._check_clause(text, after)
        if box.inline(self.index, self.index):
            if b"\n" in text or text.startswith(COMPOUND_STARTS):
                raise ActionRefused("destination", "only a one-line simple statement fits on a line with others")
            if after:
                return Replace(end, end, b"; " + text), 2
            return Replace(start, start, text + b"; "), 0
        indent = indentation(source, start)
        gap = newline_of(source) * (1 + self._blank_lines(text, after))
        if after:
            return Replace(end, end, gap + indent + text), len(gap) + len(indent)
        at = line_start(source, start)
        return Replace(at, at, indent + text + gap), len(indent)

    def _check_clause(self, text: bytes, after: bool) -> None:
        kind = self.node.type
        if text and not text.startswith((b"elif", b"except")):
            which = "finally" if text.startswith(b"finally") else "else"
            raise ActionRefused(
                "destination", f"only elif and except clauses can be added: a statement has one {which}"
            )
        if text.startswith(b"elif") != (self.box.node.type == "if_statement") and text:
            raise ActionRefused("destination", "elif clauses go in an if statement, except clauses in a try")
        previous = self.box.members[self.index - 1].type if self.index > 0 else ""
        if (after and kind in {"else_clause", "finally_clause"}) or (
            not after and kind == "finally_clause" and previous == "else_clause"
        ):
            raise ActionRefused("destination", f"nothing but the end of the statement can follow its {_words(kind)}")

    def _blank_lines(self, text: bytes, after: bool) -> int:
        """Blank lines between the new statement and this one: 2 around a definition at top level, 1 inside,
        none between simple statements; never more than the gap on that side (at the container's end, the gap
        on the other side, when it too parts a definition), so the file's rhythm holds and a removal gives the
        original back. An empty line opened above a definition gets none: it may not become one."""
        if self.family != "statements" or (not text and not after):
            return 0
        is_definition = self.node.type in DEFINITIONS
        definition = is_definition or text.startswith((b"def ", b"class ", b"async def ", b"@"))
        rhythm = (2 if self.box.node.type == "module" else 1) if definition else 0
        members = self.box.members
        neighbour = self.index + (1 if after else -1)
        if 0 <= neighbour < len(members):
            return min(rhythm, self._gap(after))
        other = self.index + (-1 if after else 1)
        if 0 <= other < len(members) and (is_definition or members[other].type in DEFINITIONS):
            return min(rhythm, self._gap(not after))
        return rhythm

    def _gap(self, after: bool) -> int:
        """The blank lines right after (or before) this member."""
        source, (start, end) = self.box.source, self.span
        blank = 0
        at = next_line(source, end) if after else previous_line(source, start)
        while 0 <= at < len(source) and is_blank_line(source, at):
            blank += 1
            at = next_line(source, at) if after else previous_line(source, at)
        return blank

    def text_for(self, other: Member, source: bytes) -> bytes:
        start, end = other.span
        text = source[start:end]
        if not isinstance(other, LineMember):
            return text
        first_line = source.count(b"\n", 0, start)
        verbatim = string_lines(other.node, first_line)
        return reindented(text, indentation(source, start), indentation(source, self.span[0]), verbatim)

    def refusal_for(self, other: Member) -> str | None:
        if not isinstance(other, LineMember) or other.family != self.family:
            return f"{_a(other.kind)} cannot take the place of {_a(self.kind)}"
        if self.family == "clauses" and other.node.type != self.node.type:
            return f"an {_words(other.node.type)} cannot take the place of an {_words(self.node.type)}"
        return None


def _definition(node: Node) -> Node:
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        if inner is not None:
            return inner
    return node


def _is_match_body(node: Node) -> bool:
    parent = node.parent
    return node.type == "block" and parent is not None and parent.type == "match_statement"


def _file_header(comment: bytes, at: int, source: bytes) -> bool:
    """A ``#!`` line or an encoding declaration: the file's, not the statement's below it."""
    if at == 0 and comment.startswith(b"#!"):
        return True
    return source.count(b"\n", 0, at) < 2 and re.search(rb"coding[:=]", comment) is not None


def _words(node_type: str) -> str:
    return node_type.replace("_", " ")


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word
