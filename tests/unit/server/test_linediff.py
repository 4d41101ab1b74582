"""server/linediff.py: hunks that rebuild the new text, anchored on unique lines, slid to indentation."""

from __future__ import annotations

import itertools
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether_lsp.server.linediff import hunks, indent_of, longest_increasing, slide_cost, unique_anchors


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


def test_a_reordered_file_keeps_the_longest_run_of_unique_lines() -> None:
    """``def a`` and ``x = 1`` against ``def b`` and ``y = 2``: both runs are 2 long; the first one found (in
    old order) stays, the other function is deleted and inserted (a plain LCS moves the other one)."""
    old = ["def a():", "    x = 1", "    return r", "", "def b():", "    y = 2", "    return r", ""]
    new = ["def b():", "    y = 2", "    return r", "", "def a():", "    x = 1", "    return r", ""]
    assert hunks(old, new) == [(0, 4, 0, 0), (8, 8, 4, 8)]


def test_unique_anchors_pair_lines_once_on_each_side_within_the_range() -> None:
    a = [1, 2, 3, 2, 4, 5]
    b = [4, 2, 1, 3, 5, 5]
    # 2 twice in a, 5 twice in b: never anchors; 1 and 3 and 4 are, and 1 -> 3 is the longest increasing run
    assert unique_anchors(a, b, 0, len(a), 0, len(b)) == [(0, 2), (2, 3)]
    assert unique_anchors(a, b, 1, 4, 0, 4) == [(2, 3)]  # 2 is still twice in a[1:4]; 1 is outside
    assert unique_anchors(a, b, 4, 6, 4, 6) == []  # 5: once in a[4:6], twice in b[4:6]
    assert unique_anchors(a, b, 0, 6, 0, 5) == [(0, 2), (2, 3), (5, 4)]  # 5 once in b[0:5]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=25, unique=True), st.randoms(use_true_random=False))
def test_longest_increasing_is_a_longest_strictly_increasing_run(seconds: list[int], rnd: Random) -> None:
    pairs = [(k, j) for k, j in enumerate(seconds)]
    rnd.shuffle(pairs)
    pairs.sort()
    run = longest_increasing(pairs)
    assert all(p in pairs for p in run)
    assert all(x[0] < y[0] and x[1] < y[1] for x, y in itertools.pairwise(run))
    best = [1] * len(pairs)  # the O(n²) longest increasing subsequence, for its length
    for k in range(len(pairs)):
        for m in range(k):
            if pairs[m][1] < pairs[k][1]:
                best[k] = max(best[k], best[m] + 1)
    assert len(run) == max(best, default=0)


@pytest.mark.parametrize(
    ("line", "indent"),
    [
        ("x", 0),
        ("    x", 4),
        ("\t\tx", 2),
        ("", None),
        ("   ", None),
        (" \t ", None),
        (b"  y\n", 2),
        (b" \n", None),
        (7, None),
    ],
)
def test_indent_counts_leading_blanks_and_blank_lines_have_none(line: object, indent: int | None) -> None:
    assert indent_of(line) == indent


@pytest.mark.parametrize(
    ("lines", "first", "size", "cost"),
    [
        (["def a():", "    pass", "", "def b():"], 0, 3, (0, 0, 0)),  # whole definition, then a blank edge
        (["x", "    pass", "", "def b():"], 1, 2, (4, 1, 0)),  # starts deep, after a non-blank line
        (["x", "", "    y", "z"], 1, 2, (4, 2, 0)),  # first non-blank line decides; z is shallower
        (["x", "    y", "        z"], 1, 1, (4, 2, 1)),  # the line after is deeper: mid-definition
        (["", ""], 0, 2, (10_000, 0, 0)),  # only blank lines, at the end
        (["a", "", "b"], 1, 1, (10_000, 1, 1)),  # a blank run followed by a non-blank line
        (["a", "b", "", "c"], 1, 1, (0, 2, 0)),  # b: both edges after non-blank lines, a blank line after
    ],
)
def test_cost_of_a_run(lines: list[str], first: int, size: int, cost: tuple[int, int, int]) -> None:
    assert slide_cost(lines, first, size) == cost


# Found by comparing hunks() with variants of the slide's bounds over random small diffs: each pins where a
# pure insertion or deletion may slide (never into the previous or the next hunk, comparing the right lines).
SLIDE_BOUNDS = [
    (
        ["", "b", "    x", "}", "a", "}", "    x", "a"],
        ["    x", "", "    x", "    x", "    x", "a", "c"],
        [(0, 0, 0, 1), (1, 2, 2, 2), (3, 6, 3, 3), (7, 7, 4, 5), (8, 8, 6, 7)],
    ),
    (
        ["    y", "    x", "", "a", "a", "b", "", "c"],
        ["c", "    y", "    y", "c", "    y", "    x", "    x", "}"],
        [(0, 0, 0, 1), (1, 1, 2, 5), (2, 8, 6, 8)],
    ),
    (
        ["a", "b", "a", "a", "", "b", "    y", "a"],
        ["c", "b", "a", "", "    x", "a"],
        [(0, 1, 0, 1), (3, 4, 3, 3), (5, 7, 4, 5)],
    ),
    (
        ["a", "}", "b", "a", "    x"],
        ["c", "a", "}", "}", "b", "    y", "    y"],
        [(0, 0, 0, 1), (2, 2, 3, 4), (3, 5, 5, 7)],
    ),
    (
        ["a", "b", "}", "}", "", "a"],
        ["c", "b", "}", "", "b", "}"],
        [(0, 1, 0, 1), (3, 4, 3, 3), (5, 6, 4, 6)],
    ),
    (
        ["c", "    y", "    x", "", "a", "", "    y", "b"],
        ["", "c", "    x", "}", "    x", "}", ""],
        [(0, 0, 0, 1), (1, 2, 2, 2), (3, 3, 3, 6), (4, 8, 7, 7)],
    ),
    (
        ["    y", "    x", "", "", "b", "}"],
        ["b", "b", "    x", "", "b"],
        [(0, 1, 0, 2), (3, 4, 4, 4), (5, 6, 5, 5)],
    ),
]


SLIDE_BOUNDS += [
    (
        ["d", "a", "    y", "", "a", "    y", "d", "    x", "    y"],
        ["    y", "d", "d", "    x", "    y", "}", "    x", "b", "c", "    y"],
        [(0, 2, 0, 0), (3, 6, 1, 2), (9, 9, 5, 10)],
    ),
    (["", "", "c", "}"], ["", "c", "a", "}", "    x", "", "b", "}"], [(0, 1, 0, 0), (3, 3, 2, 7)]),
    (
        ["    y", "b", "    y", "c", "    x", "    y", "}", "b"],
        ["a", "b", "    y", "}", "d", "b", "    x", "    x"],
        [(0, 1, 0, 1), (3, 6, 3, 3), (7, 7, 4, 5), (8, 8, 6, 8)],
    ),
    (
        ["    y", "    y", "    x", "", "    x"],
        ["b", "    y", "    x", "    y", "    x", "    x", "    x", "", "    y"],
        [(0, 0, 0, 1), (1, 1, 2, 3), (3, 3, 5, 7), (4, 5, 8, 9)],
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), SLIDE_BOUNDS)
def test_slides_stay_between_their_neighbours(old: list[str], new: list[str], expected: list[tuple[int, ...]]) -> None:
    assert hunks(old, new) == expected


def test_a_deletion_next_to_an_insertion_is_one_hunk() -> None:
    """The LCS gives a changed line as a deletion and an insertion that touch: they come out as one region."""
    assert hunks(list("abc"), list("axc")) == [(1, 2, 1, 2)]
    assert hunks(list("abcde"), list("aXYe")) == [(1, 4, 1, 3)]  # three deletions and two insertions
