"""The location calculator, table-driven, plus a property test (a location never inverted or outside the text) and
the failures of plain diff-and-match that must not recur (a deleted block kept alive by its blank lines, a deleted
function matched onto a similar neighbour)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tether_lsp.handlers.markers.calculator import Calculated, Location, block_of, calculate, split_lines
from tether_lsp.handlers.markers.columns import map_column
from tether_lsp.handlers.markers.line_map import line_diff
from tether_lsp.handlers.markers.line_similarity import similar_lines, similarity

FUNC = """import os

def total(items):
    s = 0
    for i in items:
        s += i
    return s

def other():
    pass
"""
BLOCK = Location(3, 1, 7, 13)  # `def total ... return s`


def calc(old: str, new: str, loc: Location) -> Calculated:
    return calculate(old, new, {"m": loc})["m"]


def text_at(text: str, loc: Location) -> str:
    lines = split_lines(text)
    if loc.line_start == loc.line_end:
        return lines[loc.line_start - 1][loc.col_start - 1 : loc.col_end - 1]
    return "\n".join(
        [
            lines[loc.line_start - 1][loc.col_start - 1 :],
            *lines[loc.line_start : loc.line_end - 1],
            lines[loc.line_end - 1][: loc.col_end - 1],
        ]
    )


def test_unchanged() -> None:
    r = calc(FUNC, FUNC, BLOCK)
    assert r == Calculated(BLOCK)
    assert text_at(FUNC, BLOCK).startswith("def total") and text_at(FUNC, BLOCK).endswith("return s")


def test_lines_added_above_shift_the_block() -> None:
    new = "# header\n# more\n" + FUNC
    r = calc(FUNC, new, BLOCK)
    assert r.location == Location(5, 1, 9, 13)
    assert not r.content_changed


def test_lines_changed_below_do_not_move_it() -> None:
    new = FUNC.replace("def other():\n    pass\n", "def other(x):\n    return x * 2\n\n\nprint(1)\n")
    assert calc(FUNC, new, BLOCK).location == BLOCK


def test_edited_start_line_rederives_its_column() -> None:
    loc = Location(3, 5, 7, 13)  # from `total`
    new = FUNC.replace("def total(items):", "async def total(items, start=0):")
    r = calc(FUNC, new, loc)
    assert r.location == Location(3, 11, 7, 13)
    assert text_at(new, r.location).startswith("total(items, start=0)")
    assert r.content_changed


def test_edited_end_line() -> None:
    new = FUNC.replace("    return s\n", "    return s + 1  # plus one\n")
    r = calc(FUNC, new, BLOCK)
    assert r.location is not None
    assert (r.location.line_end, r.location.col_end) == (7, 13)  # still right after `return s`
    assert not r.content_changed  # the code inside the location is what it was


def test_deleted_start_line_trims_to_the_first_surviving_line() -> None:
    new = FUNC.replace("def total(items):\n", "")
    r = calc(FUNC, new, BLOCK)
    assert r.start_was_deleted
    assert r.location == Location(3, 1, 6, 13)
    assert text_at(new, r.location).startswith("    s = 0")


def test_deleted_end_line_trims_to_the_last_surviving_line() -> None:
    new = FUNC.replace("    return s\n", "")
    r = calc(FUNC, new, BLOCK)
    assert r.end_was_deleted
    assert r.location == Location(3, 1, 6, len("        s += i") + 1)


def test_entirely_deleted_block_is_missing_with_a_reason() -> None:
    new = "import os\n\ndef other():\n    pass\n"
    r = calc(FUNC, new, BLOCK)
    assert r.location is None
    assert r.entirely_deleted
    assert r.reason == "codeBlockDeleted"


def test_function_moved_within_the_file_is_followed() -> None:
    body = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
    new = "import os\n\ndef other():\n    pass\n\n" + body
    r = calc(FUNC, new, BLOCK)
    assert r.location == Location(6, 1, 10, 13)
    assert not r.content_changed


def test_block_moved_past_a_larger_unchanged_part_is_found_by_the_move_search() -> None:
    big = "".join(f"line_{n} = {n}\n" for n in range(30))
    body = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
    old, new = body + big, big + body
    r = calc(old, new, Location(1, 5, 5, 13))
    assert r.moved
    assert r.location == Location(31, 5, 35, 13)
    assert text_at(new, r.location).startswith("total(items)")


def test_block_moved_while_code_around_it_is_deleted() -> None:
    old = "a = 1\nb = 2\n" + FUNC + "c = 3\nd = 4\n"
    loc = Location(5, 1, 9, 13)
    body = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
    new = "import os\n\ndef other():\n    pass\nd = 4\n" + body
    r = calc(old, new, loc)
    assert r.location == Location(6, 1, 10, 13)
    assert text_at(new, r.location).startswith("def total")


def test_repeated_tokens_keep_the_right_occurrence() -> None:
    old = "x = f(a) + f(a) + f(a)\n"
    loc = Location(1, 12, 1, 16)  # the second f(a)
    new = "x = g(b) + f(a) + f(a)\n"
    r = calc(old, new, loc)
    assert r.location == Location(1, 12, 1, 16)
    assert text_at(new, r.location) == "f(a)"
    newer = "x = f(a) + f(a) + ZZ + f(a)\n"
    r2 = calc(old, newer, loc)
    assert text_at(newer, r2.location) == "f(a)"  # type: ignore[arg-type]
    assert r2.location is not None and r2.location.col_start == 12


def test_short_lines_only_match_identically() -> None:
    assert similarity("}", ")") == 0.0
    assert similarity("  }", "}") == 1.0
    old = "if (a) {\n  x();\n}\n"
    new = "if (a) {\n  y();\n)\n"
    r = calc(old, new, Location(3, 1, 3, 2))  # the lone `}` was replaced by `)`: deleted, not matched
    assert r.location is None


def test_whitespace_only_changes() -> None:
    new = FUNC.replace("    s = 0", "    s  =  0").replace("        s += i", "\ts += i")
    r = calc(FUNC, new, BLOCK)
    assert r.location is not None
    assert (r.location.line_start, r.location.line_end) == (3, 7)
    assert not r.start_was_deleted and not r.end_was_deleted


def test_crlf() -> None:
    old = FUNC.replace("\n", "\r\n")
    new = ("# top\n" + FUNC).replace("\n", "\r\n")
    assert calc(old, new, BLOCK).location == Location(4, 1, 8, 13)


def test_non_ascii_columns_count_characters() -> None:
    old = "naïve = '東京🚀'\nx = 1\n"
    loc = Location(1, 10, 1, 14)  # '東京🚀' without the first quote... 東京🚀'
    new = "très_naïve = '東京🚀'\nx = 1\n"
    r = calc(old, new, loc)
    assert text_at(old, loc) == "東京🚀'"
    assert r.location is not None
    assert text_at(new, r.location) == "東京🚀'"


@pytest.mark.parametrize(("old", "new"), [("", FUNC), (FUNC, ""), ("", "")])
def test_empty_texts_never_go_past_the_end(old: str, new: str) -> None:
    r = calc(old, new, BLOCK)
    if r.location is not None:
        assert r.location.line_end <= len(split_lines(new))


def test_location_outside_a_mismatched_base() -> None:
    r = calc("a\nb\n", "a\nb\n", Location(40, 1, 42, 3))
    assert r.location is None
    assert r.reason == "missingOriginalLocation"
    clipped = calc("a\nb\n", "a\nb\n", Location(2, 1, 9, 3))
    assert clipped.location == Location(2, 1, 3, 1)


def test_map_column_bounds() -> None:
    assert map_column("abc", "", 3) == 1
    assert map_column("abc", "abcdef", 4) == 4
    assert map_column("", "xyz", 1) == 1


LINES = st.sampled_from(
    ["def f():", "    return 1", "}", "", "x = [1, 2]", "東京 🚀", "    pass", "\tindent", "a = b + c"]
)
TEXTS = st.lists(LINES, max_size=15).map(lambda ls: "\n".join(ls) + "\n")


@st.composite
def text_and_location(draw: st.DrawFn) -> tuple[str, Location]:
    text = draw(TEXTS)
    lines = split_lines(text)
    a = draw(st.integers(1, len(lines)))
    b = draw(st.integers(a, len(lines)))
    ca = draw(st.integers(1, len(lines[a - 1]) + 1))
    cb = draw(st.integers(ca if a == b else 1, len(lines[b - 1]) + 1))
    return text, Location(a, ca, b, cb)


@st.composite
def edited(draw: st.DrawFn, text: str) -> str:
    lines = split_lines(text)
    for _ in range(draw(st.integers(0, 5))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "move"]))
        k = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "insert":
            lines.insert(k, draw(LINES))
        elif op == "delete" and lines:
            del lines[k]
        elif op == "replace" and lines:
            lines[k] = draw(LINES)
        elif op == "move" and len(lines) > 2:
            j = draw(st.integers(0, len(lines) - 1))
            lines.insert(j, lines.pop(k))
    return "\n".join(lines)


@given(st.data())
def test_random_edits_never_invert_or_overflow(data: st.DataObject) -> None:
    text, loc = data.draw(text_and_location())
    new = data.draw(edited(text))
    r = calc(text, new, loc)
    if r.location is None:
        assert r.reason is not None
        return
    lines = split_lines(new)
    got = r.location
    assert 1 <= got.line_start <= got.line_end <= len(lines)
    assert 1 <= got.col_start <= len(lines[got.line_start - 1]) + 1
    assert 1 <= got.col_end <= len(lines[got.line_end - 1]) + 1
    if got.line_start == got.line_end:
        assert got.col_start <= got.col_end
    if new == text:
        assert got == loc


def test_surviving_blank_lines_do_not_keep_a_deleted_block_alive() -> None:
    old = "a = 1\ndef f():\n    return 2\n\nb = 3\n"
    r = calc(old, "a = 1\n\nb = 3\n", Location(2, 1, 4, 1))  # f and the blank line after it
    assert r.location is None
    assert r.reason == "codeBlockDeleted"


def test_a_deleted_function_is_not_matched_to_a_similar_neighbour() -> None:
    old = "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\ndef total(items):\n    s = 0\n"
    new = "import os\nimport sys\n\n\n\ndef total(items):\n    s = 0\n"
    r = calc(old, new, Location(4, 1, 6, 24))  # load(): its `def` line resembles `def total(items):`
    assert r.location is None
    assert r.reason == "codeBlockDeleted"
    kept = calc(old, new, Location(9, 1, 10, 10))
    assert kept.location == Location(6, 1, 7, 10)


def test_a_change_at_the_end_of_a_block_is_the_blocks_grown_body() -> None:
    """A stub's ``pass`` became a body; ``return info_dict`` became a multi-line return: the Change lies inside
    the block at its end, so all it wrote belongs to the block (before: trimmed back onto the ``def``)."""
    old = "def todo():\n    pass\n\n\ndef after():\n    return 1\n"
    new = "def todo():\n    total = 0\n    for k in range(3):\n        total += k\n    return total\n\n\ndef after():\n    return 1\n"
    assert calc(old, new, Location(1, 1, 2, 9)).location == Location(1, 1, 5, 17)
    old = "def info():\n    x = 1\n    return info_dict\n"
    new = "def info():\n    x = 1\n    return {\n        'x': x,\n    }\n"
    assert calc(old, new, Location(1, 1, 3, 21)).location == Location(1, 1, 5, 6)
    assert calc(old, new, Location(1, 1, 3, 11)).location == Location(1, 1, 5, 6)  # mid-line end: mapped
    assert calc(old, new, Location(3, 1, 3, 21)).location == Location(3, 1, 3, 13)  # one line: no growth


def test_a_change_at_the_start_of_a_block_is_its_grown_head() -> None:
    old = "x = 1\n\n\ndef run(a):\n    return a\n"
    new = "x = 1\n\n\n@cached\ndef run(\n    a,\n    b,\n):\n    return a\n"
    got = calc(old, new, Location(4, 1, 5, 13)).location
    assert got is not None and got.line_start == 4 and got.line_end == 9


def test_a_change_reaching_past_the_block_is_not_taken_in() -> None:
    old = "def a():\n    return 1\ndef b():\n    return 2\n"
    new = "def a():\n    return 10\n    # and more\ndef bb():\n    return 2\n"
    got = calc(old, new, Location(1, 1, 2, 13)).location
    assert got is not None and got.line_end == 2


@pytest.mark.parametrize(("where", "expected_line"), [(3, 4), (1, 2)])
def test_a_tie_goes_to_the_line_nearest_the_expected_place(where: int, expected_line: int) -> None:
    """The tie rule: two equally similar new lines in a Change; the one nearest the place the old line
    would have by proportion wins (old line ``where`` of the Change 1..3 maps near new line ``where``)."""
    middle = ["alpha_line = 1", "beta_line = 2"]
    middle.insert(where - 1, "gamma_line = 3")
    old = "\n".join(["start", *middle, "end"]) + "\n"
    new = "start\ngamma_line = 30\nunrelated_stuff\ngamma_line = 30\nend\n"
    r = calc(old, new, Location(where + 1, 1, where + 1, 15))
    assert r.location is not None and r.location.line_start == expected_line


@pytest.mark.parametrize(
    ("old", "new", "column", "end", "mapped"),
    [
        ("abc", "abc", 2, False, 2),
        ("abc", "abc", 10, False, 4),  # clamped to the line
        ("x = foo(a)", "x = bar(a)", 5, False, 5),  # a start before a replaced word stays before it
        ("x = foo(a)", "x = bar(a)", 8, True, 8),  # an end after it stays after it
        ("x = foo(a)", "x = bar(a)", 9, False, 9),  # inside an equal run: shifted by nothing here
        ("ab", "aXb", 2, False, 3),  # a start before "b" follows "b" past the inserted X
        ("ab", "aXb", 2, True, 2),  # an end after "a" stays right after "a"
        ("ab", "abc", 3, False, 3),  # a start at the end of the line stays at the end of the old text
        ("", "xyz", 1, False, 1),
        ("", "xyz", 1, True, 1),
        ("long line here", "short", 15, True, 6),  # an end past a shorter new line is clamped
    ],
)
def test_map_column_table(old: str, new: str, column: int, end: bool, mapped: int) -> None:
    assert map_column(old, new, column, end=end) == mapped


def test_line_diff_folds_short_equal_runs_between_changes() -> None:
    assert line_diff(["a", "b", "x", "c", "d"], ["A", "B", "x", "C", "D"]) == [("replace", 0, 5, 0, 5)]
    three = ["x", "y", "z"]
    assert line_diff(["a", *three, "d"], ["A", *three, "D"]) == [
        ("replace", 0, 1, 0, 1),
        ("equal", 1, 4, 1, 4),
        ("replace", 4, 5, 4, 5),
    ]
    assert line_diff(["s", "a"], ["s", "A"]) == [("equal", 0, 1, 0, 1), ("replace", 1, 2, 1, 2)]
    assert line_diff(["s", "a", "t"], ["s", "t"]) == [
        ("equal", 0, 1, 0, 1),
        ("delete", 1, 2, 1, 1),
        ("equal", 2, 3, 1, 2),
    ]
    assert line_diff(["s", "t"], ["s", "n", "t"]) == [
        ("equal", 0, 1, 0, 1),
        ("insert", 1, 1, 1, 2),
        ("equal", 1, 2, 2, 3),
    ]


def test_similar_lines_searches_every_slice_and_short_lines_match_only_themselves() -> None:
    norms = ["zzzz zzzz"] * 1500
    norms[1200] = "hello world"
    norms[3] = "hello world!"
    assert similar_lines("hello   world", norms) == [3, 1200]
    assert similar_lines("ab", ["ab", "abc", "ab", "a b"]) == [0, 2]


def test_line_ending_changes_alone_keep_every_line() -> None:
    old = "a = 1\r\nb = 2\r\nc = 3\r\n"
    assert calc(old, old.replace("\r\n", "\n"), Location(2, 1, 3, 6)).location == Location(2, 1, 3, 6)


def test_block_of_one_line_and_several() -> None:
    text = "zero\none two\nthree\n"
    assert block_of(text, Location(2, 5, 2, 8)) == "two"
    assert block_of(text, Location(1, 3, 3, 3)) == "ro\none two\nth"
