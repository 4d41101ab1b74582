"""The three-way merge of a model's change with the user's (a conflict only when they touch the same base
lines), rule by rule, including the boundaries: touching is not overlapping, except for two insertions at the
same place."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.edits.merge import merge3

BASE = "a\nb\nc\nd\ne"

Change = tuple[int, int, list[str]]  # base lines [i1, i2) replaced by these lines


def applied(*changes: Change) -> str:
    """BASE with non-overlapping changes made (the later ones first, so the earlier line numbers hold)."""
    lines = BASE.split("\n")
    for i1, i2, new in sorted(changes, key=lambda c: (c[0], c[1]), reverse=True):
        lines[i1:i2] = new
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("first", "second", "overlap"),
    [
        ((1, 3, ["x"]), (2, 4, ["y"]), True),  # ranges sharing line 2
        ((1, 3, ["x"]), (3, 5, ["y"]), False),  # ranges that touch: line 3 is only in the second
        ((3, 5, ["y"]), (1, 3, ["x"]), False),  # the same, the other way round
        ((1, 2, ["x"]), (1, 2, ["y"]), True),  # the same line changed both ways
        ((2, 2, ["x"]), (2, 2, ["y"]), True),  # two insertions at the same place
        ((2, 2, ["x"]), (3, 3, ["y"]), False),  # insertions at different places
        ((2, 2, ["x"]), (1, 3, ["y"]), True),  # an insertion inside the other's lines
        ((1, 3, ["y"]), (2, 2, ["x"]), True),  # the same, the other way round
        ((1, 1, ["x"]), (1, 3, ["y"]), False),  # an insertion right before the other's lines
        ((1, 3, ["y"]), (3, 3, ["x"]), False),  # an insertion right after them
        ((3, 3, ["x"]), (1, 3, ["y"]), False),  # the same, the other way round
        ((1, 3, ["y"]), (1, 1, ["x"]), False),
        ((0, 1, []), (4, 5, []), False),  # far apart
    ],
)
def test_overlap_rules(first: Change, second: Change, overlap: bool) -> None:
    """The user made ``first``, the model ``second``: a conflict, or both changes in the merge."""
    merged = merge3(BASE, applied(first), applied(second))
    assert merged == (None if overlap else applied(first, second))


def test_changes_on_different_lines_merge() -> None:
    assert merge3(BASE, "A\nb\nc\nd\ne", "a\nb\nc\nd\nE") == "A\nb\nc\nd\nE"


def test_changes_on_the_same_line_conflict() -> None:
    assert merge3(BASE, "a\nB\nc\nd\ne", "a\nBB\nc\nd\ne") is None


def test_the_same_change_made_by_both_is_applied_once() -> None:
    assert merge3(BASE, "a\nB\nc\nd\ne", "a\nB\nc\nd\ne") == "a\nB\nc\nd\ne"


def test_adjacent_changes_merge_in_order() -> None:
    user = "a\nB\nc\nd\ne"  # line 1 changed
    model = "a\nb\nC\nd\ne"  # line 2 changed: touching, not overlapping
    assert merge3(BASE, user, model) == "a\nB\nC\nd\ne"


def test_insertions_at_the_same_place_conflict_elsewhere_merge() -> None:
    assert merge3(BASE, "a\nx\nb\nc\nd\ne", "a\ny\nb\nc\nd\ne") is None
    assert merge3(BASE, "a\nx\nb\nc\nd\ne", "a\nb\nc\ny\nd\ne") == "a\nx\nb\nc\ny\nd\ne"


def test_a_deletion_and_an_insertion_after_it_merge() -> None:
    assert merge3(BASE, "a\nd\ne", "a\nb\nc\nd\nz\ne") == "a\nd\nz\ne"


def test_long_files_with_many_equal_lines_are_diffed_exactly() -> None:
    """In a 300-line file where blank lines are most lines, two changes far apart still merge."""
    base_lines = [f"x{i}" if i % 2 else "" for i in range(300)]
    base = "\n".join(base_lines)
    user = "\n".join(["USER" if i == 11 else line for i, line in enumerate(base_lines)])
    model = "\n".join(["MODEL" if i == 281 else line for i, line in enumerate(base_lines)])
    merged = merge3(base, user, model)
    assert merged is not None
    assert merged.split("\n")[11] == "USER"
    assert merged.split("\n")[281] == "MODEL"
