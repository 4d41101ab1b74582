"""buffer.py at its edges: where a point after an edit goes, edits touching a block's start or end from
inside, and the edits between two versions (each read in the text it applied to)."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.markers.buffer import CharEdit, edits_between, shift
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, Pos


@pytest.mark.parametrize(
    ("edit", "point", "expected"),
    [
        (CharEdit((0, 2), (0, 4), "XY"), (0, 6), (0, 6)),  # one-line text on the same line
        (CharEdit((0, 2), (0, 4), "X"), (0, 6), (0, 5)),
        (CharEdit((0, 2), (0, 4), "X\nYZ"), (0, 6), (1, 4)),  # a new line: columns restart after it
        (CharEdit((0, 2), (1, 1), "Q"), (1, 5), (0, 7)),  # two lines joined
        (CharEdit((0, 2), (1, 1), "Q"), (3, 5), (2, 5)),  # a later line moves up one
        (CharEdit((0, 2), (0, 2), "a\nb\n"), (4, 1), (6, 1)),  # two lines inserted above
    ],
)
def test_where_a_point_after_an_edit_goes(edit: CharEdit, point: tuple[int, int], expected: tuple[int, int]) -> None:
    assert edit.after(point) == expected


BLOCK = Location(2, 3, 4, 5)  # 0-based (1, 2) to (3, 4)


def test_an_edit_from_the_start_into_the_block_needs_a_recomputation() -> None:
    assert shift(BLOCK, [CharEdit((1, 2), (2, 0), "x")]) is None


def test_an_edit_from_inside_to_the_end_needs_a_recomputation() -> None:
    assert shift(BLOCK, [CharEdit((2, 0), (3, 4), "x")]) is None


def test_an_edit_ending_at_the_start_shifts_the_block() -> None:
    assert shift(BLOCK, [CharEdit((1, 0), (1, 2), "")]) == Location(2, 1, 4, 5)


def test_edits_between_read_each_version_in_the_text_before_it() -> None:
    doc = Document("file:///a.py", "python", 1, "héllo\nwörld\n")
    doc.apply(2, [ContentChange("東京", (Pos(0, 1), Pos(0, 2)))], Encoding.UTF16)  # é -> 東京
    doc.apply(3, [ContentChange("!", (Pos(0, 4), Pos(0, 4)))], Encoding.UTF16)  # after 東京l
    doc.apply(4, [ContentChange("", (Pos(1, 0), Pos(1, 2)))], Encoding.UTF16)
    versions = doc.versions()
    assert edits_between(versions, 2) == [CharEdit((0, 4), (0, 4), "!"), CharEdit((1, 0), (1, 2), "")]
    assert edits_between(versions, 1) == [
        CharEdit((0, 1), (0, 2), "東京"),
        CharEdit((0, 4), (0, 4), "!"),
        CharEdit((1, 0), (1, 2), ""),
    ]
    assert edits_between(versions, 4) == []
    assert edits_between(versions, 99) is None
