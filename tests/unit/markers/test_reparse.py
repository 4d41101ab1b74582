"""A changed file's new text parsed from its old text's tree, edited by the line diff's hunks (``reparse``): the
same tree as a fresh parse, and what a relocation does."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_sitter import Node, Tree

from tether_lsp.handlers.markers import reparse, structure
from tether_lsp.handlers.markers.calculator import Location, split_lines
from tether_lsp.handlers.markers.line_map import LineMap
from tether_lsp.server.sliced_parse import SlicedParse

BASE = [
    "import os",
    "",
    "class Shape:",
    "    def area(self):",
    "        return 0  # é 🚀",
    "",
    "    @property",
    "    def name(self):",
    "        if self.kind:",
    "            return 'x'",
    "        return 'y'",
    "",
    "def total(xs):",
    "    for x in xs:",
    "        yield x",
    "",
]
NEW_LINES = [
    "",
    "x = 1",
    "    pass",
    "def grown(a, b):",
    "    '''doc'''",
    "class Other:",
    "    # note",
    "  broken (",
    "é = '🚀'",
]


def shape(node: Node) -> list[Any]:
    """Every node's kind and position, in order."""
    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append((n.type, n.start_byte, n.end_byte, tuple(n.start_point), tuple(n.end_point)))
        stack.extend(reversed(n.children))
    return out


def both(old: str, new: str) -> tuple[Tree, Tree | None]:
    old_data, data = old.encode(), new.encode()
    old_tree = reparse.parse("python", old_data, None)
    assert old_tree is not None
    opcodes = LineMap(split_lines(old), split_lines(new)).opcodes
    return reparse.parse("python", data, None) or pytest.fail("not parsed"), reparse.parse_after(
        "python", old_tree, old_data, data, opcodes, None
    )


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(BASE)), st.integers(0, 3), st.lists(st.sampled_from(NEW_LINES), max_size=4)),
        max_size=4,
    ),
    st.booleans(),
)
def test_the_tree_from_the_old_one_is_a_fresh_parses(edits: list[tuple[int, int, list[str]]], final_lf: bool) -> None:
    lines = list(BASE)
    for at, removed, added in edits:
        lines[at : at + removed] = added
    old, new = "\n".join(BASE), "\n".join(lines) + ("\n" if final_lf else "")
    fresh, from_old = both(old, new)
    assert from_old is not None
    assert shape(from_old.root_node) == shape(fresh.root_node)
    data = new.encode()
    assert structure.units_of("python", from_old, data) == structure.units_of("python", fresh, data)


def test_a_text_with_a_cr_is_parsed_afresh() -> None:
    old, new = "\r\n".join(BASE), "\r\n".join(["# top", *BASE])
    fresh, from_old = both(old, new)
    assert from_old is not None and shape(from_old.root_node) == shape(fresh.root_node)


def test_following_a_change_parses_the_new_text_from_the_old_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    parses: list[bool] = []

    class Counting(SlicedParse):
        def __init__(self, language: Any, text: bytes, old: Tree | None) -> None:
            parses.append(old is not None)
            super().__init__(language, text, old)

    monkeypatch.setattr(reparse, "SlicedParse", Counting)
    old = "\n".join(BASE)
    new = "\n".join(["# a header", "", *BASE[:12], "def total(xs, start=0):", *BASE[13:]])
    area = Location(4, 5, 5, len(BASE[4]) + 1)
    old_lines, new_lines = split_lines(old), split_lines(new)
    results = structure.follow(old, new, {"m": area}, "python", line_map=LineMap(old_lines, new_lines))
    assert parses == [False, True]  # the old text afresh, the new one from its tree
    assert results["m"].location == Location(6, 5, 7, len(BASE[4]) + 1)
