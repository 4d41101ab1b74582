"""The generic actions (actions.py) on YAML members, end to end from a node found by a marker: golden texts, and
properties over every member of the samples and the repository's YAML (PyYAML reads the expected data)."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.actions import actions
from tether_lsp.handlers.actions.members import member_of
from tether_lsp.handlers.actions.model import ActionRefused, applied

from .test_yaml_properties import CASES
from .yaml_support import YamlMember, act, all_members, expected_after, parses_cleanly, root, shape

S = "a: 1\nb:\n  - x\n  - y\n  - z\nc: [p, q, r]\n"

GOLDEN = [
    ("remove every item", S, "remove", ("x", "y", "z"), {}, "a: 1\nb: []\nc: [p, q, r]\n"),
    ("remove the last two items", S, "remove", ("y", "z"), {}, "a: 1\nb:\n  - x\nc: [p, q, r]\n"),
    ("remove two apart", S, "remove", ("x", "z"), {}, "a: 1\nb:\n  - y\nc: [p, q, r]\n"),
    ("remove the last two flow", S, "remove", ("q", "r"), {}, "a: 1\nb:\n  - x\n  - y\n  - z\nc: [p]\n"),
    ("remove every flow", S, "remove", ("p", "q", "r"), {}, "a: 1\nb:\n  - x\n  - y\n  - z\nc: []\n"),
    ("remove an item and its container's entry", S, "remove", ("x", "b:"), {}, "a: 1\nc: [p, q, r]\n"),
    ("remove across containers", S, "remove", ("y", "q"), {}, "a: 1\nb:\n  - x\n  - z\nc: [p, r]\n"),
    ("clone two", S, "clone", ("x", "z"), {}, "a: 1\nb:\n  - x\n  - x\n  - y\n  - z\n  - z\nc: [p, q, r]\n"),
    ("swap entries", S, "swap", ("a:", "c:"), {}, "c: [p, q, r]\nb:\n  - x\n  - y\n  - z\na: 1\n"),
    ("move down", S, "move_by", ("x",), {"step": 1}, "a: 1\nb:\n  - y\n  - x\n  - z\nc: [p, q, r]\n"),
    ("move up", S, "move_by", ("c:",), {"step": -1}, "a: 1\nc: [p, q, r]\nb:\n  - x\n  - y\n  - z\n"),
    ("move into a flow sequence", S, "move", ("x", "p"), {}, "a: 1\nb:\n  - y\n  - z\nc: [p, x, q, r]\n"),
    (
        "move a flow element in",
        S,
        "move",
        ("q", "y"),
        {"after": False},
        "a: 1\nb:\n  - x\n  - q\n  - y\n  - z\nc: [p, r]\n",
    ),
    ("bring", S, "move", ("r", "z"), {"keep": True}, "a: 1\nb:\n  - x\n  - y\n  - z\n  - r\nc: [p, q, r]\n"),
    (
        "move a nested entry out, re-indented",
        "a:\n  b:\n    c: 1\n    d:\n      e: 2\nf: 3\n",
        "move",
        ("d:", "f:"),
        {},
        "a:\n  b:\n    c: 1\nf: 3\nd:\n  e: 2\n",
    ),
    (
        "move the only item to another sequence",
        "s:\n  - a\nt:\n  - b\n",
        "move",
        ("a", "b"),
        {},
        "s: []\nt:\n  - b\n  - a\n",
    ),
    ("insert an item", S, "insert_empty", ("y",), {}, "a: 1\nb:\n  - x\n  - y\n  - \n  - z\nc: [p, q, r]\n"),
    (
        "insert an entry before",
        S,
        "insert_empty",
        ("c:",),
        {"after": False},
        "a: 1\nb:\n  - x\n  - y\n  - z\n\nc: [p, q, r]\n",
    ),
    ("insert a flow element", S, "insert_empty", ("q",), {}, "a: 1\nb:\n  - x\n  - y\n  - z\nc: [p, q, , r]\n"),
    (
        "move between documents",
        "a: 1\nb: 2\n---\nc: 3\n",
        "move",
        ("b:", "c:"),
        {},
        "a: 1\n---\nc: 3\nb: 2\n",
    ),
]


@pytest.mark.parametrize(
    ("before", "action", "markers", "options", "after"), [pytest.param(*g[1:], id=g[0]) for g in GOLDEN]
)
def test_action(before: str, action: str, markers: tuple[str, ...], options: dict[str, object], after: str) -> None:
    result = act(before, action, *markers, **options)  # type: ignore[arg-type]
    assert result == after
    if action != "insert_empty":  # an empty flow element waits for its text
        assert parses_cleanly(result.encode())


def test_insert_empty_puts_the_cursor_after_the_dash() -> None:
    source = S.encode()
    node = root(source).descendant_for_byte_range(S.index("y"), S.index("y") + 1)
    assert node is not None
    member = member_of("yaml", source, node)
    outcome = actions.insert_empty(source, member, after=True)
    out = applied(source, outcome.replaces)
    ((at, end),) = outcome.produced
    assert at == end
    assert out[:at].endswith(b"  - y\n  - ")


def test_move_by_past_the_end_is_refused() -> None:
    with pytest.raises(ActionRefused, match="already the last"):
        act(S, "move_by", "z", step=1)


def test_an_entry_cannot_move_into_a_sequence() -> None:
    with pytest.raises(ActionRefused, match="cannot go in a sequence"):
        act(S, "move", "a:", "y")


@pytest.mark.parametrize("text", CASES)
def test_clone_then_remove_the_clone_gives_the_text_back(text: bytes) -> None:
    for member in all_members(text):
        outcome = actions.clone(text, [member], after=True)
        cloned = applied(text, outcome.replaces)
        ((start, _),) = outcome.produced
        copy = next(m for m in all_members(cloned) if m.span[0] == start)
        back = applied(cloned, actions.remove(cloned, [copy]).replaces)
        assert back == text, f"cloning then removing {text[slice(*member.span)]!r}"


@pytest.mark.parametrize("text", CASES)
def test_removing_a_whole_container_s_members_at_once_empties_it(text: bytes) -> None:
    seen = set()
    for member in all_members(text):
        if member.container in seen:
            continue
        seen.add(member.container)
        siblings: list[YamlMember] = list(member.siblings())
        chosen = siblings[1:] if len(siblings) > 2 else siblings
        try:
            after = applied(text, actions.remove(text, chosen).replaces)
        except ActionRefused as refusal:
            assert "anchor &" in refusal.reason  # noqa: PT017
            continue

        def drop(lists: list[list[object]], at: list[int]) -> None:
            for k in sorted(set(at), reverse=True):
                del lists[0][k]

        assert parses_cleanly(after), after.decode()
        assert shape(after) == expected_after(text, drop, *chosen), after.decode()


@pytest.mark.parametrize("text", CASES)
def test_move_down_then_up_gives_the_text_back(text: bytes) -> None:
    for member in all_members(text):
        siblings: list[YamlMember] = list(member.siblings())
        if [s.span for s in siblings].index(member.span) + 1 == len(siblings):
            continue
        try:
            outcome = actions.move_by(text, member, 1)
        except ActionRefused as refusal:
            assert "&" in refusal.reason  # noqa: PT017
            continue
        moved = applied(text, outcome.replaces)
        ((start, _),) = outcome.produced
        again = next(m for m in all_members(moved) if m.span[0] == start)
        assert applied(moved, actions.move_by(moved, again, -1).replaces) == text
