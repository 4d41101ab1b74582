"""The calculator's parts, one by one: line similarity, the search over many lines, the line diff's stray-run
folding, the in-Change scores, column mapping, clamping, block text, the flags of each outcome, and the
searches in other texts (``test_calculator.py`` drives whole recalculations)."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.markers.calculator import (
    Calculated,
    Location,
    Target,
    added_lines,
    block_of,
    calculate,
    clamp_to,
    find_code,
    find_elsewhere,
)
from tether_lsp.handlers.markers.columns import map_column
from tether_lsp.handlers.markers.line_map import LineMap, line_diff
from tether_lsp.handlers.markers.line_similarity import normalised_similarity, similar_lines

L = Location


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("abc", "abc", 1.0),  # short lines match exactly or not at all
        ("abc", "abd", 0.0),
        ("abc", "abcdef", 0.0),  # one short line is enough to need exactness
        ("abcdef", "abc", 0.0),
        ("abcd", "abce", 0.75),  # four characters are not short
        ("abcdef", "abcdeg", 1 - 2 / 12),
    ],
)
def test_normalised_similarity(a: str, b: str, expected: float) -> None:
    assert normalised_similarity(a, b) == pytest.approx(expected)


def test_similar_lines_normalises_the_line_unless_told_it_is() -> None:
    spaced = "a" + " " * 40 + "b" + " " * 40 + "c" + " " * 40 + "d"
    assert similar_lines(spaced, ["a b c d"]) == [0]
    assert similar_lines(spaced, ["a b c d"], normalised=True) == []


@pytest.mark.parametrize(
    ("line", "norms", "expected"),
    [
        ("ab", ["ab", "abc", "ab"], [0, 2]),  # a short line: exact hits only
        ("abcd", ["abce"], [0]),  # four characters: similarity counts
        ("abcd", ["abc"], []),  # a similar short line is not a hit
        ("abcd", ["abcd", "zzzz"], [0]),
    ],
)
def test_similar_lines(line: str, norms: list[str], expected: list[int]) -> None:
    assert similar_lines(line, norms) == expected


def test_similar_lines_over_several_slices_give_offsets_in_the_whole_list() -> None:
    norms = ["x = 1"] * 2500
    norms[1500] = norms[2400] = "hello world"
    assert similar_lines("hello world", norms) == [1500, 2400]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # two equal lines between two changes are folded into one change
        (["a1", "s", "s2", "b1"], ["A1", "s", "s2", "B1"], [("replace", 0, 4, 0, 4)]),
        # three are not
        (
            ["a1", "s", "s2", "s3", "b1"],
            ["A1", "s", "s2", "s3", "B1"],
            [("replace", 0, 1, 0, 1), ("equal", 1, 4, 1, 4), ("replace", 4, 5, 4, 5)],
        ),
        # a short equal run at the end follows no change: kept
        (["a1", "s"], ["A1", "s"], [("replace", 0, 1, 0, 1), ("equal", 1, 2, 1, 2)]),
        # the fold starts at the change, not at the top of the file
        (["e", "a1", "s", "b1"], ["e", "A1", "s", "B1"], [("equal", 0, 1, 0, 1), ("replace", 1, 4, 1, 4)]),
    ],
)
def test_line_diff_folds_stray_equal_runs(old: list[str], new: list[str], expected: list[tuple[object, ...]]) -> None:
    assert line_diff(old, new) == expected


def test_in_change_scores_of_short_and_long_lines() -> None:
    lm = LineMap(["x"], ["y"])
    assert lm.scores("ab", ["ab", "abc", "x"]) == [1.0, 0.0, 0.0]
    assert lm.scores("abcd", ["abce", "abcd"]) == [0.75, 1.0]  # four characters are not short
    assert lm.scores("abcdef", ["abcdef", "abcdeg", "abc", "abcd"]) == pytest.approx([1.0, 1 - 2 / 12, 0.0, 0.8])


@pytest.mark.parametrize(
    ("old", "new", "column", "end", "expected"),
    [
        ("abc", "abcdef", 10, False, 7),  # past the end of the old line: clamped to the new one's end
        ("abcdefgh", "abc", 10, False, 4),
        ("abc", "abcdef", 2, False, 2),
        ("abc", "xbc", 1, False, 1),  # a start before a replaced character stays before its replacement
        ("abc", "xbc", 2, True, 2),  # an end after it stays after
        ("abc", "abc", 9, False, 4),
        ("hello world", "hello big world", 7, False, 11),  # "w" moved right
        ("hello world", "hello big world", 12, True, 16),
        ("abc", "abXc", 4, False, 5),  # the start at the end of the line follows the end
    ],
)
def test_map_column(old: str, new: str, column: int, end: bool, expected: int) -> None:
    assert map_column(old, new, column, end=end) == expected


def test_map_column_is_a_start_column_unless_told() -> None:
    assert map_column("abc", "xbc", 2) == map_column("abc", "xbc", 2, end=False)
    assert map_column("ab cd", "ab XY cd", 4) == 7
    assert map_column("ab cd", "ab XY cd", 4, end=True) == 4


def test_map_column_on_long_lines_with_repeated_characters() -> None:
    old = " " * 250 + "value = 1"
    new = " " * 250 + "value = 12"
    assert map_column(old, new, 251) == 251
    assert map_column(old, new, 260, end=True) == 260
    # over 200 characters, difflib's "autojunk" would drop the frequent space and align nothing before "end"
    assert map_column("x " * 150 + "end", "y " * 150 + "end", 8) == 8


@pytest.mark.timeout(20)
def test_map_column_on_lines_of_40000_repeated_characters_is_quick() -> None:
    """Only the changed middle of two long lines is aligned (difflib took minutes on these)."""
    old, new = "x = " + "(" * 20_000 + "1" + ")" * 20_000, "x = " + "(" * 20_000 + "22" + ")" * 20_000
    assert map_column(old, new, 1) == 1
    assert map_column(old, new, 20_005) == 20_005  # the start of the replaced "1"
    assert map_column(old, new, 20_006, end=True) == 20_007  # after its replacement
    assert map_column(old, new, len(old) + 1, end=True) == len(new) + 1
    other = "x = " + ")" * 20_000 + "[" * 20_000  # nothing in common after "x = "
    assert map_column(old, other, 3) == 3
    assert map_column(old, other, 6) == 5  # in the replaced middle: its start
    assert map_column(old, other, len(old), end=True) == len(other) + 1


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        (L(1, 9, 9, 9), L(1, 4, 2, 3)),  # past the ends: to the last line's end
        (L(2, 1, 2, 9), L(2, 1, 2, 3)),
        (L(0, 1, 1, 2), None),
        (L(3, 1, 3, 2), None),
        (L(2, 1, 2, 1), L(2, 1, 2, 1)),  # the last line itself
        (L(2, 5, 2, 1), L(2, 3, 2, 3)),  # never inverted
        (L(1, 0, 1, 0), L(1, 1, 1, 1)),
        (L(1, 1, 2, 0), L(1, 1, 2, 1)),
    ],
)
def test_clamping_to_the_text(loc: Location, expected: Location | None) -> None:
    assert clamp_to(["abc", "de"], loc) == expected


def test_clamping_a_longer_last_line() -> None:
    assert clamp_to(["ab", "abcdef"], L(1, 1, 9, 9)) == L(1, 1, 2, 7)


def test_block_text_on_one_line_and_across_lines() -> None:
    assert block_of("abcdef", L(1, 2, 1, 4)) == "bc"
    assert block_of("abc\ndef\nghi", L(1, 2, 3, 2)) == "bc\ndef\ng"


def test_the_flags_of_an_unchanged_text() -> None:
    same = calculate("a\nb\n", "a\nb\n", {"m": L(1, 1, 2, 2)})["m"]
    assert same == Calculated(L(1, 1, 2, 2), False, False, False, False, False, None)
    result = calculate("a\nb\n", "a\nc\nb\n", {"m": L(1, 1, 1, 2)})["m"]
    assert result == Calculated(L(1, 1, 1, 2), False, False, False, False, False, None)


@pytest.mark.parametrize("new", ["a\nb\n", "a\nc\n"])
def test_a_location_past_the_end_of_the_old_text(new: str) -> None:
    result = calculate("a\nb\n", new, {"m": L(5, 1, 6, 2)})["m"]
    assert result == Calculated(None, False, False, True, False, False, "missingOriginalLocation")


def test_added_lines() -> None:
    assert added_lines(None, "a\nb") == [0, 1]
    assert added_lines("a\nb", "a\nx\nb") == [1]


def test_found_elsewhere_is_a_move() -> None:
    moved = Calculated(L(2, 1, 3, 9), True, True, False, False, True, None)
    old = "a = 1\nzzzz\nqqqq = 3\n"
    assert find_elsewhere(old, L(2, 1, 3, 9), "x\nzzzz\nqqqq = 3\n") == moved
    lines = old.splitlines()
    assert find_elsewhere(lines, L(2, 1, 3, 9), Target("x\nzzzz\nqqqq = 3\n", [1, 2])) == moved
    gone = Calculated(None, True, True, True, False, False, "codeBlockDeleted")
    assert find_elsewhere(lines, L(2, 1, 3, 9), Target("x\nzzzz\nqqqq = 3\n", [0])) == gone  # only added lines
    missing = Calculated(None, False, False, True, False, False, "missingOriginalLocation")
    assert find_elsewhere(["a = 1"], L(4, 1, 4, 2), "x") == missing


def test_find_code() -> None:
    found = find_code("def g():\n    return 2", "x = 1\n\ndef g():\n    return 2\n")
    assert found == Calculated(L(3, 1, 4, 13), True, True, False, False, True, None)
    assert find_code("  return 2", "x\n  return 2\n").location == L(2, 1, 2, 11)
    assert find_code("nothing here at all", "x = 1\n").reason == "codeBlockDeleted"


FILLER = "".join(f"def f{k}(x):\n    return x + {k}\n\n" for k in range(8))
B = "def b():\n    x = 2\n    return x\n"


def test_a_block_moved_to_the_top_of_the_file() -> None:
    result = calculate(FILLER + B, B + "\n" + FILLER, {"m": L(25, 1, 27, 13)})["m"]
    assert result == Calculated(L(1, 1, 3, 13), True, True, False, False, True, None)


def test_a_block_moved_to_the_last_lines_of_a_file_without_a_final_newline() -> None:
    result = calculate(B + "\n" + FILLER.rstrip("\n"), FILLER + B.rstrip("\n"), {"m": L(1, 1, 3, 13)})["m"]
    assert result == Calculated(L(25, 1, 27, 13), True, True, False, False, True, None)


def test_a_moved_block_whose_lines_changed_is_moved_and_changed() -> None:
    moved_b = B.replace("x = 2", "x = 22")
    result = calculate(FILLER + B, moved_b + "\n" + FILLER, {"m": L(25, 1, 27, 13)})["m"]
    assert result == Calculated(L(1, 1, 3, 13), True, True, False, True, True, None)


def test_the_first_line_alone_added_elsewhere_is_not_a_move() -> None:
    other = "def b():\n    completely = 'different'\n    body = 'here'\n"
    result = calculate(FILLER + B, other + "\n" + FILLER, {"m": L(25, 1, 27, 13)})["m"]
    assert result.location is None
    assert result.reason == "codeBlockDeleted"


def test_a_window_over_unchanged_lines_is_not_a_move() -> None:
    # the block's lines exist at the top, but only its first line there was added: the rest was always there
    old = "    x = 2\n    return x\n\n" + FILLER + B
    new = "def b():\n    x = 2\n    return x\n\n" + FILLER
    result = calculate(old, new, {"m": L(28, 1, 30, 13)})["m"]
    assert result.location is None
    assert result.reason == "codeBlockDeleted"


def test_the_best_of_two_move_windows_wins_whatever_their_order() -> None:
    near = B.replace("return x", "return x * 100")
    for first, second in ((near, B), (B, near)):
        result = calculate(FILLER + B, first + "\n" + second + "\n" + FILLER, {"m": L(25, 1, 27, 13)})["m"]
        expected = L(1, 1, 3, 13) if first == B else L(5, 1, 7, 13)
        assert result.location == expected, (first, result)
        assert result.moved


# --- scenarios inside one Change: ten unique lines above, five below, the middle rewritten ---------------

PREFIX = [f"prefix_line_{k} = {k}" for k in range(10)]
SUFFIX = [f"suffix_line_{k} = {k}" for k in range(5)]


def middle(lines: list[str]) -> str:
    return "\n".join([*PREFIX, *lines, *SUFFIX]) + "\n"


def q(k: int) -> str:
    """A new line like no old one."""
    return f"qqqqqqqqqqqqqqqqqq{k} + wwwwwwwwwwww"


def one(old: list[str], new: list[str], loc: Location) -> Calculated:
    return calculate(middle(old), middle(new), {"m": loc})["m"]


OLD_PAIR = ["alpha_old_line = 'unrelated'", "x = value"]


@pytest.mark.parametrize(
    ("new", "line"),
    [
        # old line 2 of 2 maps to new line 3.5 of 7 by proportion: of two equal candidates the nearer wins
        ([q(0), q(1), "x = value2", q(3), q(4), q(5), "x = value2"], 13),
        ([q(0), "x = value2", q(2), q(3), "x = value2", q(5), q(6)], 15),
        # of two at the same distance (expected 3 of 6), the first
        ([q(0), "x = value2", q(2), q(3), q(4), "x = value2"], 12),
    ],
)
def test_equal_candidates_in_a_change_go_to_the_one_nearest_the_proportional_place(new: list[str], line: int) -> None:
    assert one(OLD_PAIR, new, L(12, 1, 12, 10)).location == L(line, 1, line, 10)


def test_a_new_line_owned_by_a_better_old_line_deletes_ours() -> None:
    result = one(["value = compute(1)", "value = compute(2)"], [q(0), "value = compute(1)", q(2)], L(12, 1, 13, 21))
    assert result == Calculated(L(14, 1, 14, 18), True, False, False, True, False, None)


def test_two_old_lines_equally_like_a_new_one_keep_it() -> None:
    result = one(["x = value", "x = value"], [q(0), "x = value2", q(2)], L(12, 1, 12, 10))
    assert result == Calculated(L(12, 1, 12, 10), False, False, False, False, False, None)  # mapped, not moved


def test_the_end_of_a_block_maps_after_its_start() -> None:
    old = ["value = compute(alpha)", "value = compute(alpha2)"]
    new = ["value = compute(alpha)", q(1), "value = compute(alphaX)"]
    assert one(old, new, L(11, 1, 12, 24)) == Calculated(L(11, 1, 13, 24), False, False, False, True, False, None)


def test_a_deleted_start_is_trimmed_past_blank_lines_to_column_one() -> None:
    old = ["before_block_changed = 0", "deleted_line_here = 1", "", "kept_line = 3"]
    new = [q(9), q(0), "", "kept_line = 3"]
    assert one(old, new, L(12, 5, 14, 14)) == Calculated(L(14, 1, 14, 14), True, False, False, True, False, None)


@pytest.mark.parametrize(
    ("old", "new", "loc", "expected"),
    [
        (
            ["kept_line = 1", "", "deleted_line_here = 3", "after_block_changed = 4"],
            ["kept_line = 1", "", q(2), q(9)],
            L(11, 1, 13, 22),
            L(11, 1, 11, 14),
        ),
        (
            ["kept_line = 1", "deleted_line_here = 2", "after_block_changed = 4"],
            ["kept_line = 1", q(2), q(9)],
            L(11, 1, 12, 22),
            L(11, 1, 11, 14),
        ),
        (
            [
                "kept_line = 1",
                "kept_line_two = 2",
                "deleted_line_here = 3",
                "deleted_too = 4",
                "after_block_changed = 4",
            ],
            ["kept_line = 1", "kept_line_two = 2", q(2), q(3), q(9)],
            L(11, 1, 14, 16),
            L(11, 1, 12, 18),
        ),
    ],
)
def test_a_deleted_end_is_trimmed_to_the_last_surviving_line(
    old: list[str], new: list[str], loc: Location, expected: Location
) -> None:
    assert one(old, new, loc) == Calculated(expected, False, True, False, True, False, None)


def test_an_end_matching_before_the_start_is_not_taken() -> None:
    result = one(
        ["alpha_value = compute(1)", "beta_value = other(2)"],
        ["beta_value = other(3)", "alpha_value = compute(4)"],
        L(11, 1, 12, 22),
    )
    assert result == Calculated(L(12, 1, 12, 25), False, True, False, True, False, None)


GROWN_OLD = ["deleted_first = 1", "keep_a = 2", "keep_b = 3", "keep_c = 4", "last_line = 5"]
GROWN_NEW = [q(0), "keep_a = 2", "keep_b = 3", "keep_c = 4", "last_line = 5 + 1", q(7)]


def test_a_grown_end_with_a_deleted_start() -> None:
    # the block ended with its line: it ends with the last new line of the Change
    grown = one(GROWN_OLD, GROWN_NEW, L(11, 1, 15, 14))
    assert grown == Calculated(L(11, 1, 16, 35), True, False, False, True, False, None)
    # it ended a character before: that column is mapped onto the new last line
    assert one(GROWN_OLD, GROWN_NEW, L(11, 1, 15, 13)).location == L(11, 1, 16, 23)


def test_a_grown_head_with_a_deleted_end() -> None:
    old = ["first_line = 1", "keep_a = 2", "keep_b = 3", "keep_c = 4", "deleted_last = 5"]
    new = [q(8), "first_line = 1 + 1", "keep_a = 2", "keep_b = 3", "keep_c = 4", q(0)]
    assert one(old, new, L(11, 1, 15, 17)) == Calculated(L(11, 1, 16, 35), False, True, False, True, False, None)


def test_a_block_rewritten_whole_maps_line_by_line() -> None:
    old = ["value_one = compute(1)", "value_two = compute(2)"]
    new = ["value_one = compute(10)", "value_two = compute(20)", q(3)]
    assert one(old, new, L(11, 1, 12, 23)) == Calculated(L(11, 1, 12, 24), False, False, False, True, False, None)


def test_a_moved_block_whose_last_line_changed_ends_after_the_change() -> None:
    result = calculate(FILLER + B, B.replace("return x", "return y") + "\n" + FILLER, {"m": L(25, 1, 27, 13)})["m"]
    assert result == Calculated(L(1, 1, 3, 13), True, True, False, True, True, None)


def test_a_moved_block_starting_with_a_blank_line() -> None:
    result = calculate(FILLER + "\n" + B, "\n" + B + "\n" + FILLER, {"m": L(25, 1, 28, 13)})["m"]
    assert result == Calculated(L(1, 1, 4, 13), True, True, False, False, True, None)


def test_of_two_identical_move_windows_the_first() -> None:
    result = calculate(FILLER + B, B + "\n" + B + "\n" + FILLER, {"m": L(25, 1, 27, 13)})["m"]
    assert result.location == L(1, 1, 3, 13)


def test_an_anchor_hit_that_cannot_hold_the_block_does_not_end_the_search() -> None:
    tail = "".join(f"def t{k}(x):\n    return x * {k}\n\n" for k in range(8))
    # "def b():" added alone at the top (unchanged lines follow it), the block itself moved to the end
    result = calculate(FILLER + B + tail, "def b():\n" + FILLER + tail + B, {"m": L(25, 1, 27, 13)})["m"]
    assert result == Calculated(L(50, 1, 52, 13), True, True, False, False, True, None)


def test_a_move_window_must_fit_in_the_file() -> None:
    result = calculate(B + FILLER, FILLER + "def b():\n    x = 2", {"m": L(1, 1, 3, 13)})["m"]
    assert result.reason == "codeBlockDeleted"


def test_a_moved_block_is_found_by_its_first_line_even_when_its_last_changed_beyond_recognition() -> None:
    block = "def b():\n    x = 2\n    y = 3\n    z = 4\n    w = 5\n    return x\n"
    moved = block.replace("    return x", "    yield from something_else_entirely()")
    result = calculate(FILLER + block, moved + "\n" + FILLER, {"m": L(25, 1, 30, 13)})["m"]
    assert result == Calculated(L(1, 1, 6, 41), True, True, False, True, True, None)


def test_a_block_whose_deleted_first_line_leaves_it_at_the_top_of_the_file() -> None:
    old = "xdeleted_line_here = 1\nkept_top_line = 2\n" + FILLER
    result = calculate(old, "kept_top_line = 2\n" + FILLER, {"m": L(1, 1, 2, 18)})["m"]
    assert result == Calculated(L(1, 1, 1, 18), True, False, False, True, False, None)


def test_a_move_scoring_exactly_the_threshold_is_taken() -> None:
    block = "def b():\n    x = 2\n    y = 3\n    z = 4\n    a\n"
    moved = block.replace("    a\n", "    b\n")  # four identical lines and one short line changed: 4/5 = 0.8
    result = calculate(FILLER + block, moved + "\n" + FILLER, {"m": L(25, 1, 29, 6)})["m"]
    assert result == Calculated(L(1, 1, 5, 6), True, True, False, True, True, None)


def test_a_grown_head_when_the_end_was_deleted_with_lines_after_it() -> None:
    old = ["first_line = 1", "keep_a = 2", "keep_b = 3", "keep_c = 4", "deleted_last = 5", "after_changed = 6"]
    new = [q(8), "first_line = 1 + 1", "keep_a = 2", "keep_b = 3", "keep_c = 4", q(0), q(9)]
    assert one(old, new, L(11, 1, 15, 17)) == Calculated(L(11, 1, 15, 11), False, True, False, True, False, None)


def test_a_grown_end_ends_with_the_whole_new_last_line() -> None:
    # the old last line maps to the first of two new lines; the block grows to the second, whole
    old = ["deleted_first = 1", "keep_a = 2", "keep_b = 3", "keep_c = 4", "last_line = 5"]
    new = [q(0), "keep_a = 2", "keep_b = 3", "keep_c = 4", "last_line = 5;", "last_line = 5;  # and more"]
    assert one(old, new, L(11, 1, 15, 14)).location == L(11, 1, 16, 27)


def test_a_changed_first_line_of_the_file_maps_onto_the_new_first_line() -> None:
    old = "alpha_value = compute(1)\n" + FILLER
    new = "alpha_value = compute(2)\nqqqqqqqqqqqqqqqqqqqq = 0\n" + FILLER
    result = calculate(old, new, {"m": L(1, 1, 1, 25)})["m"]
    assert result == Calculated(L(1, 1, 1, 25), False, False, False, True, False, None)


# found by searching small rewrites for a difference (they pin the lower bounds of the end's search)


def test_a_two_line_block_whose_lines_collapse_into_one() -> None:
    result = one(["value = compute(1)", "value = compute(1)"], ["value = compute(12)"], L(11, 1, 12, 19))
    assert result == Calculated(L(11, 1, 11, 20), False, True, False, True, False, None)


def test_an_end_line_owned_by_another_old_line_is_not_retried_below_its_start() -> None:
    old = ["value = compute(1)", "value = compute(12)", "value = compute(1)"]
    new = ["value = compute(12)", "value = compute(1)", "value = compute(12)"]
    result = one(old, new, L(11, 1, 13, 19))
    assert result == Calculated(L(12, 1, 13, 20), False, True, False, True, False, None)


def test_an_end_that_matches_better_than_the_next_line_is_kept() -> None:
    old = ["value = compute(12)", "value = compute(1)"]
    new = ["value = compute(123)", "value = compute(1)  # x"]
    assert one(old, new, L(11, 1, 12, 19)).location == L(11, 1, 12, 19)
