"""Wrap Python code in ``try``, ``with``, ``if`` or a call (``unwrap.py`` is the way back).

- ``try``, ``with`` and ``if`` wrap *statements*. A target that is an expression stands for the statement that
  holds it (an argument of ``f(x)`` wraps the line ``f(x)``, as a person would); a block stands for all its
  statements. Several targets that are consecutive statements of one block (comments between them allowed)
  go into one wrapper; targets apart from each other each get their own. The wrapped lines are indented by
  the step the surrounding code uses (a tab in tabbed code), except the lines of a multi-line string, which
  are its content; blank lines stay empty; comments on the statements' lines go with them.
- The shapes: ``try:`` / body / ``except Exception:`` / ``raise`` (re-raising keeps the program's behaviour
  until the user writes the handler); ``with context:``; ``if condition:``. A ``call`` wraps an
  *expression*: ``function(expr)``. Cursorless's Python snippets (``ifStatement``: ``if $condition:`` / body;
  ``tryCatchStatement``: ``try:`` / body / ``except $error:`` / an empty body) have the same shapes with empty
  holes, which do not parse until filled; here each hole holds a word the client selects.
- The produced span of each wrapper is its placeholder (``Exception``, ``context``, ``condition``,
  ``function``), so a client selects what the user types next; ``placeholder`` puts the user's text there
  instead (it must be one expression).
- Refused (``ActionRefused``): parameters, decorators, ``except``/``else``/``elif``/``finally``/``case``
  clauses (wrap the whole statement), a statement sharing its line with other code (``if x: a`` or
  ``a; b``: put it on its own line first), targets inside one another, a call around something that is not
  an expression or that is assigned to (``x`` in ``x = 1``, a keyword's name, an attribute's name).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from tree_sitter import Node, Tree

from tether_lsp.handlers.actions.model import ActionRefused, Outcome
from tether_lsp.handlers.actions.wrap_targets import binding_reason, expression_of, statements_of
from tether_lsp.handlers.actions.wrap_text import (
    coalesced,
    indent_unit,
    indentation,
    inside_string,
    is_blank_line,
    is_word_byte,
    landed,
    line_end,
    line_start,
    line_starts,
    newline_of,
)
from tether_lsp.server.syntax import parse_text

WRAPPERS = ("try", "with", "if", "call")
PLACEHOLDERS = {"try": b"Exception", "with": b"context", "if": b"condition", "call": b"function"}


def wrap(
    source: bytes,
    tree: Tree,
    targets: Sequence[Node],
    wrapper: str,
    placeholder: str | None = None,
    indent: bytes | None = None,
) -> Outcome:
    """Wrap every target in ``wrapper`` as one outcome; ``indent`` overrides the indentation step (what the
    editor inserts for a tab) when given."""
    if wrapper not in WRAPPERS:
        raise ActionRefused("wrapper", f"unknown wrapper {wrapper!r}; one of {', '.join(WRAPPERS)}")
    if not targets:
        raise ActionRefused("targets", "no target to wrap")
    hole = PLACEHOLDERS[wrapper] if placeholder is None else _checked_placeholder(placeholder)
    if wrapper == "call":
        return _wrap_expressions(source, targets, hole)
    groups = _statement_groups(source, targets)
    return _wrap_statements(source, tree.root_node, groups, wrapper, hole, indent)


def _checked_placeholder(text: str) -> bytes:
    raw = text.encode()
    if not raw.strip() or b"\n" in raw or b"\r" in raw:
        raise ActionRefused("placeholder", "the placeholder must be one expression on one line")
    if parse_text("python", b"(" + raw + b")\n").root_node.has_error:
        raise ActionRefused("placeholder", f"{text!r} is not a Python expression")
    return raw


class _Inserts:
    """Insertions in the order made, remembering where each lands inside the joined text at its offset."""

    def __init__(self) -> None:
        self.items: list[tuple[int, bytes]] = []
        self._length: dict[int, int] = {}

    def at(self, offset: int) -> int:
        """How many bytes are inserted at ``offset`` so far."""
        return self._length.get(offset, 0)

    def add(self, at: int, text: bytes) -> int:
        """Insert ``text`` at ``at``; returns its offset inside everything inserted at ``at``."""
        before = self._length.get(at, 0)
        self.items.append((at, text))
        self._length[at] = before + len(text)
        return before


def _produced(inserts: _Inserts, holes: list[tuple[int, int, int]]) -> Outcome:
    """The outcome of ``inserts``, whose produced spans are ``holes`` (offset, offset in its text, length)."""
    replaces = coalesced(inserts.items)
    by_start = {r.start: r for r in replaces}
    spans = sorted(landed(replaces, by_start[at], offset, length) for at, offset, length in holes)
    return Outcome(tuple(replaces), tuple(spans))


def _wrap_expressions(source: bytes, targets: Sequence[Node], hole: bytes) -> Outcome:
    nodes: dict[tuple[int, int], Node] = {}
    for i, target in enumerate(targets):
        node = expression_of(target, f"targets[{i}]")
        reason = binding_reason(node)
        if reason:
            raise ActionRefused(f"targets[{i}]", reason)
        nodes.setdefault((node.start_byte, node.end_byte), node)
    # Syntax nodes nest or are apart: at one offset the closers of what ends there come before the openers.
    starts, ends = sorted(start for start, _ in nodes), sorted(end for _, end in nodes)
    inserts, holes = _Inserts(), []
    for at in sorted(set(starts) | set(ends)):
        if ends.count(at):
            inserts.add(at, b")" * ends.count(at))
        for _ in range(starts.count(at)):
            glued = at > 0 and is_word_byte(source[at - 1]) and is_word_byte(hole[0]) and not inserts.at(at)
            space = b" " if glued else b""
            offset = inserts.add(at, space + hole + b"(")
            holes.append((at, offset + len(space), len(hole)))
    return _produced(inserts, holes)


def _statement_groups(source: bytes, targets: Sequence[Node]) -> list[list[Node]]:
    """The targets' statements in runs of consecutive siblings (comments between them allowed)."""
    chosen: dict[tuple[int, int], tuple[Node, int]] = {}
    for i, target in enumerate(targets):
        for statement in statements_of(target, f"targets[{i}]"):
            chosen.setdefault((statement.start_byte, statement.end_byte), (statement, i))
    ordered = sorted(chosen.values(), key=lambda item: item[0].start_byte)
    for (a, _), (b, j) in pairwise(ordered):
        if b.start_byte < a.end_byte:
            raise ActionRefused(f"targets[{j}]", "it is inside another target; wrap one or the other")
    groups: list[list[Node]] = []
    for statement, _ in ordered:
        if groups and _follows(groups[-1][-1], statement):
            groups[-1].append(statement)
        else:
            groups.append([statement])
    for group in groups:
        if all(node.type == "comment" for node in group):
            raise ActionRefused("targets", "only comments: a block needs a statement")
        _check_own_lines(source, group, chosen)
    return groups


def _follows(previous: Node, node: Node) -> bool:
    """Whether ``node`` comes right after ``previous`` in their block, with only comments between."""
    sibling = previous.next_named_sibling
    while sibling is not None and sibling != node and sibling.type == "comment":
        sibling = sibling.next_named_sibling
    return sibling == node


def _check_own_lines(source: bytes, group: list[Node], chosen: dict[tuple[int, int], tuple[Node, int]]) -> None:
    first, last = group[0], group[-1]
    before = source[line_start(source, first.start_byte) : first.start_byte]
    after = source[last.end_byte : line_end(source, last.end_byte)].strip()
    after = after[1:].strip() if after.startswith(b";") else after
    if before.strip() or (after and not after.startswith(b"#")):
        index = chosen[(first.start_byte, first.end_byte)][1]
        raise ActionRefused(
            f"targets[{index}]", "it shares its line with other code; put it on a line of its own first"
        )


def _wrap_statements(
    source: bytes, root: Node, groups: list[list[Node]], wrapper: str, hole: bytes, indent: bytes | None
) -> Outcome:
    nl = newline_of(source)
    inserts, holes = _Inserts(), []
    for group in groups:
        first, last = group[0], group[-1]
        start = line_start(source, first.start_byte)
        own = indentation(source, first.start_byte)
        unit = indent if indent else indent_unit(source, root, first)
        if wrapper == "try":
            inserts.add(start, own + b"try:" + nl)
        else:
            header = own + wrapper.encode() + b" "
            offset = inserts.add(start, header + hole + b":" + nl)
            holes.append((start, offset + len(header), len(hole)))
        end = line_end(source, last.end_byte)
        for at in line_starts(source, start, end):
            if inside_string(root, at) or is_blank_line(source, at):
                continue
            inserts.add(at + len(own) if source.startswith(own, at) else at, unit)
        if wrapper == "try":
            lead = nl + own + b"except "
            offset = inserts.add(end, lead + hole + b":" + nl + own + unit + b"raise")
            holes.append((end, offset + len(lead), len(hole)))
    return _produced(inserts, holes)
