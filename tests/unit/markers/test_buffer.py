"""The typing fast path: locations carried through exact edits agree with the diff-based calculator."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tether_lsp.handlers.markers.buffer import CharEdit, char_edits, edits_between, shift
from tether_lsp.handlers.markers.calculator import Location, calculate, split_lines
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, Pos

TEXT = "import os\n\ndef total(items):  # café 🚀\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
BLOCK = Location(3, 1, 7, 13)  # def total ... return s


def apply(text: str, edit: CharEdit) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    a = offsets[edit.start[0]] + edit.start[1]
    b = offsets[edit.end[0]] + edit.end[1]
    return text[:a] + edit.new_text + text[b:]


def test_lines_inserted_above_shift_the_block() -> None:
    assert shift(BLOCK, [CharEdit((0, 0), (0, 0), "a\nb\n")]) == Location(5, 1, 9, 13)


def test_an_edit_in_the_interior_moves_only_the_end() -> None:
    assert shift(BLOCK, [CharEdit((4, 4), (4, 4), "# x\n    ")]) == Location(3, 1, 8, 13)


def test_insertions_exactly_at_a_boundary_stay_outside() -> None:
    assert shift(BLOCK, [CharEdit((2, 0), (2, 0), "@cache\n")]) == Location(4, 1, 8, 13)
    assert shift(BLOCK, [CharEdit((6, 12), (6, 12), "  # end")]) == BLOCK


def test_an_edit_on_the_start_line_before_the_start_shifts_its_column() -> None:
    loc = Location(3, 5, 3, 10)
    assert shift(loc, [CharEdit((2, 0), (2, 2), "é")]) == Location(3, 4, 3, 9)


def test_an_edit_across_a_boundary_needs_a_recomputation() -> None:
    assert shift(BLOCK, [CharEdit((1, 0), (2, 3), "")]) is None
    assert shift(BLOCK, [CharEdit((6, 10), (7, 0), "")]) is None


def test_an_empty_location_stays_a_position() -> None:
    assert shift(Location(2, 1, 2, 1), [CharEdit((1, 0), (1, 0), "xy")]) == Location(2, 3, 2, 3)


def test_char_edits_from_document_versions_count_characters() -> None:
    doc = Document("file:///t.py", "python", 1, TEXT)
    doc.apply(2, [ContentChange(text="✨", span=(Pos(2, 28), Pos(2, 28)))], Encoding.UTF16)  # after the emoji
    edits = edits_between(doc.versions(), 1)
    assert edits == [CharEdit((2, 27), (2, 27), "✨")]
    assert char_edits(doc.versions()[0], doc.versions()[1].edits) == edits
    assert edits_between(doc.versions(), 99) is None


def _edit_away_from(text: str, loc: Location, data: st.DataObject) -> CharEdit:
    """A random edit that touches neither boundary line of ``loc`` (an ordinary edit elsewhere)."""
    lines = split_lines(text)
    free = [k for k in range(len(lines)) if k not in (loc.line_start - 1, loc.line_end - 1)]
    line = data.draw(st.sampled_from(free))
    start = data.draw(st.integers(0, len(lines[line])))
    end = data.draw(st.integers(start, len(lines[line])))
    inserted = data.draw(st.sampled_from(["", "x", "café", "東京 🚀", "\n", "\nnew_line = 1\n"]))
    return CharEdit((line, start), (line, end), inserted)


@given(st.data())
def test_ordinary_edits_agree_with_the_diff_path(data: st.DataObject) -> None:
    text, loc = TEXT, BLOCK
    for _ in range(data.draw(st.integers(1, 6))):
        edit = _edit_away_from(text, loc, data)
        new_text = apply(text, edit)
        fast = shift(loc, [edit])
        slow = calculate(text, new_text, {"m": loc})["m"].location
        assert fast is not None
        assert fast == slow, (edit, text, new_text)
        text, loc = new_text, fast
