"""handlers/markers/columns.py: the character alignment of two lines, and its bounded path for long lines.

Short lines are aligned by difflib as is. Long ones (the product of their lengths over MAX_ALIGNED_PRODUCT)
keep their common prefix and suffix as two equal runs and align only the middle between them — by difflib
when the middle is small enough, else as one replacement. The properties run the bounded path on short
strings by lowering the bound; the boundary itself is checked with the shipped value.
"""

from __future__ import annotations

from difflib import SequenceMatcher

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tether_lsp.handlers.markers import columns
from tether_lsp.handlers.markers.columns import MAX_ALIGNED_PRODUCT, character_opcodes, map_column

Opcode = tuple[str, int, int, int, int]
# few letters, so that lines repeat characters and share prefixes and suffixes often
lines = st.text(alphabet="abé ", max_size=14)


def difflib_opcodes(old: str, new: str) -> list[Opcode]:
    return [tuple(op) for op in SequenceMatcher(None, old, new, autojunk=False).get_opcodes()]  # type: ignore[misc]


def common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def assert_alignment(old: str, new: str, opcodes: list[Opcode]) -> None:
    """Runs that tile both lines in order, each one what its tag says."""
    i = j = 0
    for tag, i1, i2, j1, j2 in opcodes:
        assert (i1, j1) == (i, j)
        assert i1 <= i2 and j1 <= j2 and (i1, j1) != (i2, j2)
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
        elif tag == "replace":
            assert i1 < i2 and j1 < j2
        elif tag == "delete":
            assert j1 == j2
        else:
            assert tag == "insert" and i1 == i2
        i, j = i2, j2
    assert (i, j) == (len(old), len(new))


def bounded(old: str, new: str, bound: int) -> list[Opcode]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "MAX_ALIGNED_PRODUCT", bound)
        return character_opcodes(old, new)


@given(lines, lines)
def test_lines_within_the_bound_are_aligned_by_difflib(old: str, new: str) -> None:
    assert character_opcodes(old, new) == difflib_opcodes(old, new)


@given(lines, lines, st.integers(0, 40))
@example("ab", "ab", 0)  # equal lines over the bound: one equal run
@example("abc", "ab", 0)  # one line the other's prefix: no character left to compare past the shorter
@example("ab", "bab", 0)  # the other's suffix
@example("aba", "aaba", 0)  # prefix and suffix could overlap: the suffix stops at the prefix
@example("", "ab", 0)
def test_long_lines_keep_their_common_prefix_and_suffix_and_align_the_middle(old: str, new: str, bound: int) -> None:
    opcodes = bounded(old, new, bound)
    assert_alignment(old, new, opcodes)
    if len(old) * len(new) <= bound:
        assert opcodes == difflib_opcodes(old, new)
        return
    head = common_prefix(old, new)
    tail = common_prefix(old[head:][::-1], new[head:][::-1])
    outer: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    after: list[Opcode] = [("equal", len(old) - tail, len(old), len(new) - tail, len(new))] if tail else []
    a, b = old[head : len(old) - tail], new[head : len(new) - tail]
    if len(a) * len(b) > bound:
        middle: list[Opcode] = [("replace", head, head + len(a), head, head + len(b))]
    else:
        middle = [(tag, head + i1, head + i2, head + j1, head + j2) for tag, i1, i2, j1, j2 in difflib_opcodes(a, b)]
    assert opcodes == outer + middle + after


@given(lines, lines, st.integers(0, 40), st.data())
def test_a_mapped_column_stays_on_the_new_line_and_keeps_unchanged_text(
    old: str, new: str, bound: int, data: st.DataObject
) -> None:
    column = data.draw(st.integers(1, len(old) + 1))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "MAX_ALIGNED_PRODUCT", bound)
        start, end = map_column(old, new, column), map_column(old, new, column, end=True)
    assert 1 <= start <= len(new) + 1 and 1 <= end <= len(new) + 1
    head = common_prefix(old, new)
    # inside the unchanged start of the line: on the same character (difflib may align it with a later copy of
    # it: '  ' -> ' a  ' maps column 1 to 3, both spaces kept), the same column when the ends are set aside
    if column <= head:
        assert new[start - 1] == old[column - 1]
        if len(old) * len(new) > bound:
            assert start == column
    if 1 < column <= head + 1:
        assert new[end - 2] == old[column - 2]
        if len(old) * len(new) > bound:
            assert end == column


def test_a_column_in_the_unchanged_start_may_follow_its_character_within_the_bound() -> None:
    """Within the bound difflib aligns the whole lines: the first space of '  ' goes with the first of the two
    spaces ' a  ' ends with (the longest common run), not with its own prefix; over it, the ends stay put."""
    assert (map_column("  ", " a  ", 1), map_column("  ", " a  ", 2, end=True)) == (3, 4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "MAX_ALIGNED_PRODUCT", 7)
        assert (map_column("  ", " a  ", 1), map_column("  ", " a  ", 2, end=True)) == (1, 2)


def test_the_bound_is_on_the_product_of_the_lengths_inclusive() -> None:
    """At exactly MAX_ALIGNED_PRODUCT difflib aligns the whole lines; one more and the prefix is kept first.
    The two differ here: difflib pairs the long runs of `a` and deletes the leading "ab", where the bounded
    path keeps the common "a" and deletes the "b" after it."""
    assert MAX_ALIGNED_PRODUCT == 250_000 == 500 * 500 == 53 * 4717 - 1
    old, new = "ab" + "a" * 498, "a" * 499 + "b"  # 500 x 500
    assert character_opcodes(old, new) == difflib_opcodes(old, new)
    assert map_column(old, new, 2) == 1  # difflib: "b" deleted with the "a" before it
    old, new = "ab" + "a" * 51, "a" * 4716 + "b"  # 53 x 4717: one over
    assert character_opcodes(old, new)[0] == ("equal", 0, 1, 0, 1)
    assert map_column(old, new, 2) == 2  # bounded: the "a" kept, the "b" deleted after it
    assert difflib_opcodes(old, new)[0][0] == "delete"


def test_a_middle_at_the_bound_is_aligned_and_one_over_is_replaced() -> None:
    """The middle between the kept prefix and suffix is aligned by difflib up to the same bound."""
    middle_old, middle_new = "x" + "a" * 499, "a" * 499 + "y"  # 500 x 500 once "<" and ">" are kept
    old, new = "<" + middle_old + ">", "<" + middle_new + ">"
    opcodes = character_opcodes(old, new)
    assert ("equal", 2, 501, 1, 500) in opcodes  # the run of `a` aligned inside the middle
    middle_old += "a"  # 501 x 500
    old = "<" + middle_old + ">"
    assert character_opcodes(old, new) == [
        ("equal", 0, 1, 0, 1),
        ("replace", 1, 502, 1, 501),
        ("equal", 502, 503, 501, 502),
    ]


def test_a_long_middle_is_aligned_without_difflibs_autojunk() -> None:
    """Over 200 characters difflib's autojunk would take the frequent space for junk and align no space of a
    changed middle; each run of them keeps its place."""
    same = "p" * 300  # makes the lines long enough for the bounded path
    old, new = same + "x " * 150 + "1", same + "y " * 150 + "2"
    opcodes = character_opcodes(old, new)
    assert ("equal", 301, 302, 301, 302) in opcodes  # the first space of the middle
    assert map_column(old, new, 302) == 302
