"""server/linediff.py: hunks that rebuild the new text, anchored on unique lines, slid to indentation."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tether_lsp.server.linediff import hunks


def rebuilt(old: list[str], new: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    for i1, i2, j1, j2 in hunks(old, new):
        assert i <= i1 <= i2 and j1 <= j2
        assert old[i:i1] == new[len(out) : len(out) + i1 - i]  # what lies between hunks is equal
        out += old[i:i1] + new[j1:j2]
        i = i2
    return out + old[i:]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["", "a", "b", "    return r", "def f():", "    ]", "x"]), max_size=30),
    st.lists(st.sampled_from(["", "a", "b", "    return r", "def g():", "    ]", "y"]), max_size=30),
)
def test_hunks_turn_the_old_lines_into_the_new(old: list[str], new: list[str]) -> None:
    assert rebuilt(old, new) == new
    found = hunks(old, new)
    for (_, i2, _, j2), (i1, _, j1, _) in itertools.pairwise(found):
        assert (i1, j1) != (i2, j2)  # never adjacent: a deletion next to an insertion is one hunk


def test_identical_and_empty_sides() -> None:
    assert hunks(["x", "y"], ["x", "y"]) == []
    assert hunks([], ["a", "b"]) == [(0, 0, 0, 2)]
    assert hunks(["a", "b"], []) == [(0, 2, 0, 0)]
    assert hunks([b"x\n"], [b"y\n"]) == [(0, 1, 0, 1)]


def test_an_untouched_definition_is_not_pulled_into_an_insertion_ending_like_it() -> None:
    """The LCS failure from real history: 121 inserted lines ending with ``return r`` before a function that
    also ends with it; an LCS may match the old ``return r`` inside the insertion."""
    old = ["def keep():", "    r = 1", "    return r", ""]
    inserted = ["def added():", *[f"    r{k} = {k}" for k in range(119)], "    return r", ""]
    new = inserted + old
    assert hunks(old, new) == [(0, 0, 0, len(inserted))]


def test_unique_lines_anchor_a_reordered_file() -> None:
    old = ["def a():", "    return 1", "", "def b():", "    return 2", ""]
    new = ["def b():", "    return 2", "", "def a():", "    return 1", ""]
    found = hunks(old, new)
    assert rebuilt(old, new) == new
    assert all(i2 - i1 <= 3 and j2 - j1 <= 3 for i1, i2, j1, j2 in found)  # one definition moves, not both


def test_an_inserted_definition_starts_at_its_def_line() -> None:
    """A run that could slide (it repeats the lines around it) is placed to start at the lowest indentation
    and end before a blank line: the new function, not the tail of one and the head of the next."""
    old = ["def a():", "    pass", "", "def c():", "    pass", ""]
    new = ["def a():", "    pass", "", "def b():", "    pass", "", "def c():", "    pass", ""]
    assert hunks(old, new) == [(3, 3, 3, 6)]
    assert hunks(new, old) == [(3, 6, 3, 3)]  # and deleted the same way


def test_an_insertion_between_decorated_methods_keeps_each_decorator_with_its_method() -> None:
    """click's ``Tuple``: a new ``@property`` method inserted before another; the run that slides over the
    shared ``@property`` line is placed after a blank line, so ``arity`` keeps its decorator."""
    old = ["    @property", "    def arity(self):", "        return 1", ""]
    method = ["    @property", "    def name(self):", "        return 'n'", ""]
    assert hunks(old, method + old) == [(0, 0, 0, 4)]


def test_a_test_added_at_the_end_of_a_file_leaves_the_last_bracket_to_the_old_test() -> None:
    """click's ``test_pipeline``: a new test appended after a test ending with ``    ]``, itself ending so."""
    old = ["def test_old():", "    assert x == [", "        'A',", "    ]", ""]
    added = ["", "", "def test_new():", "    assert y == [", "        'B',", "    ]"]
    new = old[:4] + added + old[4:]
    [(i1, i2, _, _)] = hunks(old, new)
    assert i1 == i2 >= 4  # an insertion after the old test's closing bracket, not before it
