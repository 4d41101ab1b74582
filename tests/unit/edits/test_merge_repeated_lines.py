"""The three-way merge on repeated lines (thousands of ``pass``, of alternating lines): the right merge, for work
that grows with the lines and the changes, not their product. Nothing here is timed: a spy counts how many pairs
of changes are compared for overlap (every pair of the user's and the model's was: 250,000 here)."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.edits import merge
from tether_lsp.handlers.edits.merge import merge3


def test_an_edit_at_each_end_of_4000_equal_lines_merges() -> None:
    lines = ["    pass"] * 4_000
    user = ["# the user's", *lines]
    model = [*lines[:-1], "    return 1"]
    merged = merge3("\n".join(lines), "\n".join(user), "\n".join(model))
    assert merged == "\n".join(["# the user's", *lines[:-1], "    return 1"])


def test_the_same_line_of_4000_equal_lines_changed_both_ways_conflicts() -> None:
    lines = ["    pass"] * 4_000
    user, model = lines[:], lines[:]
    user[2_000], model[2_000] = "    x = 1", "    x = 2"
    assert merge3("\n".join(lines), "\n".join(user), "\n".join(model)) is None


def test_thousands_of_changes_on_each_side_are_compared_with_their_neighbours_only() -> None:
    base = ["a", "b"] * 1_000
    user, model = base[:], base[:]
    for k in range(0, len(base), 4):
        user[k] = f"user {k}"  # every fourth line, ...
        model[k + 2] = f"model {k}"  # ... and the model the ones between
    asked = 0
    overlap = merge._overlap

    def counted(a: merge.Hunk, b: merge.Hunk) -> bool:
        nonlocal asked
        asked += 1
        return overlap(a, b)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(merge, "_overlap", counted)
        merged = merge3("\n".join(base), "\n".join(user), "\n".join(model))
    expected = base[:]
    for k in range(0, len(base), 4):
        expected[k], expected[k + 2] = f"user {k}", f"model {k}"
    assert merged == "\n".join(expected)
    changes = len(base) // 4
    assert asked <= 3 * (changes + changes)  # each change against the few of the other side near it


def test_a_change_spanning_many_of_the_other_sides_conflicts() -> None:
    base = ["a", "b"] * 100
    user = [*base[:10], "rewritten", *base[150:]]  # lines 10..149 replaced
    model = base[:]
    model[120] = "changed"
    assert merge3("\n".join(base), "\n".join(user), "\n".join(model)) is None
    model = base[:]
    model[160] = "changed"  # after the user's change: both apply
    merged = merge3("\n".join(base), "\n".join(user), "\n".join(model))
    assert merged == "\n".join([*base[:10], "rewritten", *base[150:160], "changed", *base[161:]])
