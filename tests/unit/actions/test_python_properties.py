"""Properties of the Python actions on generated code in many layouts (one-line and multi-line containers,
trailing commas, comments, blank lines, tabs, CRLF, non-ASCII names): for every member, ``remove`` gives text
that parses with no error (or is refused), ``swap`` with the next sibling twice and ``clone`` then ``remove`` of
the copy give the original bytes back, and ``move_by`` down then up does too."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tether_lsp.handlers.actions import actions
from tether_lsp.handlers.actions.members import member_of
from tether_lsp.handlers.actions.model import ActionRefused, Member, applied

from .python_support import root

NAMES = st.sampled_from(["a", "bb", "é", "日本", "x1", "ß"])
ATOMS = st.one_of(NAMES, st.sampled_from(["1", "'s'", "'🎉'", "None", "(1 + 2)", "g(z)"]))


@st.composite
def container(draw: st.DrawFn, items: st.SearchStrategy[str], opener: str, closer: str, tuple_: bool = False) -> str:
    parts = draw(st.lists(items, min_size=1, max_size=4))
    multiline, trailing = draw(st.booleans()), draw(st.booleans()) or (tuple_ and len(parts) == 1)
    comment = draw(st.booleans())
    if not multiline:
        return opener + ", ".join(parts) + ("," if trailing else "") + closer
    lines = [f"    {p}," + ("  # note" if comment and k == 0 else "") for k, p in enumerate(parts)]
    if not trailing:
        lines[-1] = lines[-1].rstrip(",")
    return opener + "\n" + "\n".join(lines) + "\n" + closer


ARGUMENT = st.one_of(ATOMS, NAMES.map(lambda n: f"*{n}"))
ENTRY = st.tuples(ATOMS, ATOMS).map(lambda kv: f"{kv[0]}: {kv[1]}")


@st.composite
def simple_statement(draw: st.DrawFn) -> str:
    name = draw(NAMES)
    value = draw(
        st.one_of(
            ATOMS,
            container(ARGUMENT, "f(", ")"),
            container(ATOMS, "[", "]"),
            container(ATOMS, "(", ")", tuple_=True),
            container(ENTRY, "{", "}"),
        )
    )
    comment = draw(st.sampled_from(["", "  # c"]))
    return f"{name} = {value}{comment}"


@st.composite
def block(draw: st.DrawFn, depth: int) -> list[str]:
    """Lines of statements at indentation level 0."""
    out: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["simple", "simple", "def", "if", "comment"] if depth < 2 else ["simple"]))
        if kind == "simple":
            out += draw(simple_statement()).split("\n")
        elif kind == "comment":
            out += ["# about the next one", *draw(simple_statement()).split("\n")]
        elif kind == "def":
            params = draw(container(st.sampled_from(["p", "s: int", "p", "q=1", "*r"]), "(", ")"))
            decorator = draw(st.sampled_from([[], ["@deco"]]))
            body = draw(block(depth + 1))
            out += [*decorator, f"def fn{params}:", *["    " + line if line else "" for line in body]]
        else:
            body, other = draw(block(depth + 1)), draw(block(depth + 1))
            out += ["if cond:", *["    " + ln for ln in body], "else:", *["    " + ln for ln in other]]
        out += [""] * draw(st.integers(0, 2))
    return out


@st.composite
def module(draw: st.DrawFn) -> bytes:
    lines = draw(block(0))
    text = "\n".join(lines).rstrip("\n") + "\n"
    if draw(st.booleans()):
        text = text.replace("    ", "\t")
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    source = text.encode()
    assume(valid(source))  # parameters drawn in an order Python refuses
    return source


def members(source: bytes, within: tuple[int, int] | None = None) -> list[Member]:
    """Every member, once per span, in one walk's order; with ``within``, only the nodes overlapping it are
    walked (a member's node and those it climbs from overlap its span: the same first member per span)."""
    found: dict[tuple[int, int], Member] = {}
    stack = [root(source)]
    while stack:
        node = stack.pop()
        children = node.named_children
        if within is not None:
            children = [c for c in children if c.start_byte <= within[1] and within[0] <= c.end_byte]
        stack.extend(children)
        if node.type == "comment":
            continue
        try:
            member = member_of("python", source, node)
        except ActionRefused:
            continue
        found.setdefault(member.span, member)
    return list(found.values())


def at(source: bytes, span: tuple[int, int]) -> Member:
    return next(m for m in members(source, span) if m.span == span)


def valid(source: bytes) -> bool:
    try:
        ast.parse(source.replace(b"\r\n", b"\n"))
    except SyntaxError:
        return False
    return not root(source).has_error


#: The removal property is cheap and keeps 40 modules; the round trips act twice and re-find members per member
#: (up to ~0.4 s a module), so they take 20 each: the file stays under ~15 s on a loaded 2-core machine.
PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROUND_TRIP = settings(PROPERTY, max_examples=20)


@PROPERTY
@given(module())
def test_every_removal_parses(source: bytes) -> None:
    for member in members(source):
        try:
            out = applied(source, actions.remove(source, [member]).replaces)
        except ActionRefused:
            continue
        assert valid(out), (source, member.span, out)


@ROUND_TRIP
@given(module())
def test_clone_then_remove_gives_the_original(source: bytes) -> None:
    for member in members(source):
        try:
            outcome = actions.clone(source, [member], after=True)
        except ActionRefused:
            continue
        cloned = applied(source, outcome.replaces)
        assert valid(cloned), (source, member.span, cloned)
        copy = at(cloned, outcome.produced[0])
        assert applied(cloned, actions.remove(cloned, [copy]).replaces) == source


@ROUND_TRIP
@given(module())
def test_swap_twice_and_move_down_then_up_give_the_original(source: bytes) -> None:
    for member in members(source):
        siblings = list(member.siblings())
        index = [s.span for s in siblings].index(member.span)
        if index + 1 == len(siblings):
            continue
        try:
            outcome = actions.swap(source, member, siblings[index + 1])
        except ActionRefused:
            continue
        swapped = applied(source, outcome.replaces)
        assert valid(swapped), (source, member.span, swapped)
        first, second = (at(swapped, span) for span in outcome.produced)
        assert applied(swapped, actions.swap(swapped, first, second).replaces) == source
        down = actions.move_by(source, member, 1)
        moved = applied(source, down.replaces)
        up = actions.move_by(moved, at(moved, down.produced[0]), -1)
        assert applied(moved, up.replaces) == source
