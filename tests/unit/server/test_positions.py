"""positions.py and encodings.py: encoding negotiation, conversions, clamping — with accents, CJK, emoji, CRLF, empty lines."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether_lsp.server.encodings import choose_encoding
from tether_lsp.server.positions import (
    Encoding,
    LineIndex,
    Pos,
    PositionOutOfRange,
    json_ranges,
    line_starts,
    point_after,
    point_at,
    utf8_offset,
)

TEXT = "café = 1\r\n東京 = '🚀x'\n\nlast"


@pytest.mark.parametrize(
    ("offered", "expected"),
    [
        (None, Encoding.UTF16),
        ([], Encoding.UTF16),
        (["utf-16"], Encoding.UTF16),
        (["utf-16", "utf-8"], Encoding.UTF8),  # the server's preference wins over the client's order
        (["utf-32", "utf-16"], Encoding.UTF32),
        (["utf-32", "utf-8"], Encoding.UTF8),
        (["latin-1"], Encoding.UTF16),
    ],
)
def test_choose_encoding(offered: list[str] | None, expected: Encoding) -> None:
    assert choose_encoding(offered) is expected


@pytest.mark.parametrize(
    ("pos", "encoding", "expected_text_before"),
    [
        (Pos(0, 4), Encoding.UTF16, "café"),
        (Pos(0, 5), Encoding.UTF8, "café"),  # é is 2 bytes
        (Pos(0, 4), Encoding.UTF32, "café"),
        (Pos(1, 2), Encoding.UTF16, "café = 1\r\n東京"),
        (Pos(1, 6), Encoding.UTF8, "café = 1\r\n東京"),
        (Pos(1, 8), Encoding.UTF16, "café = 1\r\n東京 = '🚀"),  # emoji = surrogate pair = 2 units
        (Pos(1, 7), Encoding.UTF32, "café = 1\r\n東京 = '🚀"),
        (Pos(1, 7), Encoding.UTF16, "café = 1\r\n東京 = '"),  # inside a surrogate pair: rounded down
        (Pos(1, 4), Encoding.UTF8, "café = 1\r\n東"),  # inside 京 (bytes 3..5): rounded down
        (Pos(0, 99), Encoding.UTF16, "café = 1"),  # past the line end: clamped before \r\n
        (Pos(2, 5), Encoding.UTF16, "café = 1\r\n東京 = '🚀x'\n"),  # empty line
        (Pos(3, 4), Encoding.UTF16, "café = 1\r\n東京 = '🚀x'\n\nlast"),
        (Pos(9, 0), Encoding.UTF16, TEXT),  # lenient: past the last line = end of document
    ],
)
def test_offset_of(pos: Pos, encoding: Encoding, expected_text_before: str) -> None:
    index = LineIndex(TEXT.encode())
    assert index.offset_of(pos, encoding) == len(expected_text_before.encode())


def test_strict_rejects_missing_line_but_clamps_character() -> None:
    index = LineIndex(TEXT.encode())
    with pytest.raises(PositionOutOfRange, match="line 4 is out of range"):
        index.offset_of(Pos(4, 0), Encoding.UTF16, strict=True)
    assert index.offset_of(Pos(0, 50), Encoding.UTF16, strict=True) == len(b"caf\xc3\xa9 = 1")


def test_line_terminators() -> None:
    index = LineIndex(b"a\r\nb\rc\nd")
    assert index.line_count == 4  # \r\n, lone \r and \n all end lines (LSP)
    assert [index.line_bounds(i) for i in range(4)] == [(0, 1), (3, 4), (5, 6), (7, 8)]
    # tree-sitter rows split at \n only
    assert index.point_of(5) == (1, 2)
    assert index.point_of(7) == (2, 0)


def test_empty_text() -> None:
    index = LineIndex(b"")
    assert index.line_count == 1
    assert index.offset_of(Pos(0, 3), Encoding.UTF16) == 0
    assert index.position_of(0, Encoding.UTF16) == Pos(0, 0)


def test_position_of_inside_crlf_is_line_end() -> None:
    index = LineIndex(b"ab\r\ncd")
    assert index.position_of(3, Encoding.UTF16) == Pos(0, 2)


def test_point_after() -> None:
    assert point_after((2, 3), b"xy") == (2, 5)
    assert point_after((2, 3), "é\nab".encode()) == (3, 2)


PIECES = st.sampled_from(["a", "é", "東", "🚀", "\n", "\r\n", " ", "x = 1", "", "ñandú", "👩‍👩‍👧"])
texts = st.lists(PIECES, max_size=40).map("".join)
encodings = st.sampled_from(list(Encoding))


def units_of(s: str, enc: Encoding) -> int:
    if enc is Encoding.UTF8:
        return len(s.encode())
    if enc is Encoding.UTF16:
        return len(s.encode("utf-16-le")) // 2
    return len(s)


@given(texts, encodings)
def test_round_trip_every_character_boundary(text: str, encoding: Encoding) -> None:
    """Every character boundary maps to a position and back to the same byte offset."""
    data = text.encode()
    index = LineIndex(data)
    offset = 0
    for ch in text:
        pos = index.position_of(offset, encoding)
        if data[offset - 1 : offset + 1] != b"\r\n":  # between \r and \n is no position at all
            assert index.offset_of(pos, encoding) == offset
        offset += len(ch.encode())
    end = index.position_of(len(data), encoding)
    assert index.offset_of(end, encoding) == len(data)


@given(texts, encodings)
def test_positions_match_an_independent_computation(text: str, encoding: Encoding) -> None:
    """Position of each line end computed by hand from str.splitlines agrees with LineIndex."""
    data = text.encode()
    index = LineIndex(data)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    assert index.line_count == len(lines)
    for number, line in enumerate(lines):
        end = index.offset_of(Pos(number, 10_000), encoding)
        assert index.position_of(end, encoding) == Pos(number, units_of(line, encoding))


@given(texts, st.integers(min_value=0, max_value=200), encodings)
def test_any_offset_maps_to_a_valid_position(text: str, offset: int, encoding: Encoding) -> None:
    data = text.encode()
    index = LineIndex(data)
    pos = index.position_of(offset, encoding)
    back = index.offset_of(pos, encoding)
    assert 0 <= back <= len(data)
    assert back <= max(offset, 0) or offset > len(data)
    data[:back].decode()  # always on a character boundary


def position_by_hand(data: bytes, offset: int, encoding: Encoding) -> tuple[int, int]:
    """The position of a byte offset from the decoded text: rounded down to a character's start, a CRLF's
    middle counted as the end of its line."""
    offset = max(0, min(offset, len(data)))
    while 0 < offset < len(data) and (data[offset] & 0xC0) == 0x80:
        offset -= 1
    if data[offset - 1 : offset + 1] == b"\r\n":
        offset -= 1
    lines = data[:offset].decode().replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return len(lines) - 1, units_of(lines[-1], encoding)


@given(texts, encodings)
def test_every_offset_maps_to_the_position_computed_by_hand(text: str, encoding: Encoding) -> None:
    """Offsets on and inside characters, on both paths of the conversion (plain ASCII prefixes and the rest)."""
    data = text.encode()
    index = LineIndex(data)
    for offset in range(len(data) + 1):
        assert index.line_character(offset, encoding) == position_by_hand(data, offset, encoding)


@given(
    st.lists(st.sampled_from(["a", "é", "🚀", "\n", "\r\n", "\r", " ", "ñandú"]), max_size=40).map("".join),
    encodings,
    st.lists(st.integers(min_value=-2, max_value=220), max_size=40),
)
def test_bulk_conversion_agrees_with_one_at_a_time(text: str, encoding: Encoding, extra: list[int]) -> None:
    """``line_characters`` (numpy, in bulk) answers exactly like ``line_character`` for every offset: inside
    characters, in a CRLF, after a lone CR, at and past both ends, in any order and repeated."""
    data = text.encode()
    index = LineIndex(data)
    offsets = [*range(len(data) + 1), *extra]
    lines, characters = index.line_characters(offsets, encoding)
    assert list(zip(lines, characters, strict=True)) == [index.line_character(o, encoding) for o in offsets]


@pytest.mark.parametrize(
    "text",
    ["é", "x\r\n", "\r\n", "\r\nx", "a🚀b", "ｱb", "\ufeffx", "\r", "x\r", "é東🚀 x\r\n\tdef f(): pass\rlast 🚀"],
)
@pytest.mark.parametrize("encoding", list(Encoding))
def test_bulk_conversion_agrees_on_texts_that_end_or_start_oddly(text: str, encoding: Encoding) -> None:
    """The cases random texts may miss: a CRLF at either end, a multi-byte character last, a 4-byte character
    (lead byte 0xF0) mid-line, a 3-byte one with lead byte 0xEF."""
    data = text.encode()
    index = LineIndex(data)
    offsets = list(range(-1, len(data) + 2))
    lines, characters = index.line_characters(offsets, encoding)
    assert list(zip(lines, characters, strict=True)) == [index.line_character(o, encoding) for o in offsets]


def test_bulk_ranges_in_every_encoding() -> None:
    text = "é東🚀 x\r\n\tdef f(): pass\rlast 🚀"
    index = LineIndex(text.encode())
    start = text.encode().index(b"def")
    spans = [(start, start + 3), (0, len(text.encode())), (2, 3)]
    assert json_ranges(index, spans, Encoding.UTF16) == [
        {"start": {"line": 1, "character": 1}, "end": {"line": 1, "character": 4}},
        {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 7}},
        {"start": {"line": 0, "character": 1}, "end": {"line": 0, "character": 1}},  # inside 東: rounded down
    ]
    assert json_ranges(index, spans[1:2], Encoding.UTF8)[0]["end"] == {"line": 2, "character": 9}
    assert json_ranges(index, spans[1:2], Encoding.UTF32)[0]["end"] == {"line": 2, "character": 6}
    assert json_ranges(index, [], Encoding.UTF16) == []


EDIT_PIECES = ["a", "é", "東", "🚀", "\n", "\r\n", "\r", " ", "xyz", "\n\n"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(EDIT_PIECES), max_size=12),
    st.lists(
        st.tuples(st.floats(0, 1), st.integers(0, 6), st.lists(st.sampled_from(EDIT_PIECES), max_size=3)), max_size=10
    ),
)
def test_an_edited_index_answers_like_a_fresh_one(start: list[str], edits: list[tuple[float, int, list[str]]]) -> None:
    """``LineIndex.edited`` (pending shifts, spliced starts) is the same index as one built from the text."""
    text = "".join(start).encode()
    index = LineIndex(text)
    for where, length, pieces in edits:
        at = int(where * len(text))
        end = min(len(text), at + length)
        inserted = "".join(pieces).encode()
        new_text = text[:at] + inserted + text[end:]
        index = index.edited(at, end, inserted, new_text)
        text = new_text
        fresh = LineIndex(text)
        assert index.line_count == fresh.line_count
        for offset in range(len(text) + 1):
            assert index.line_of(offset) == fresh.line_of(offset)
            assert index.point_of(offset) == fresh.point_of(offset)
            for encoding in Encoding:
                assert index.line_character(offset, encoding) == fresh.line_character(offset, encoding)
        every = range(len(text) + 1)
        assert index.line_characters(every, Encoding.UTF16) == fresh.line_characters(every, Encoding.UTF16)
        for line in range(fresh.line_count + 1):
            if line < fresh.line_count:
                assert index.line_bounds(line) == fresh.line_bounds(line)
            for character in (0, 1, 3, 50):
                pos = Pos(line, character)
                assert index.offset_of(pos, Encoding.UTF16) == fresh.offset_of(pos, Encoding.UTF16)
        assert index.starts == fresh.starts


def test_typing_on_one_line_shares_the_line_starts() -> None:
    """A keystroke that adds no line records a shift instead of copying the 10,000 line starts: 50 versions
    cost less memory than one copy of the list (80 KB of pointers alone)."""
    text = b"x = 1\n" * 10_000
    index = LineIndex(text)
    texts = []
    for k in range(50):
        at = 5 * 6 + 2 + k
        text = text[:at] + b"y" + text[at:]
        texts.append((at, text))
    versions = []
    tracemalloc.start()
    try:
        for at, text in texts:
            index = index.edited(at, at, b"y", text)
            versions.append(index)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 8 * 10_000
    assert index.line_bounds(5) == (30, 35 + 50)
    assert index.line_bounds(6) == (36 + 50, 41 + 50)


def test_point_at_counts_rows_at_newlines_only_and_columns_in_bytes() -> None:
    text = "é = 1\r\n中文 = '🎉'\rx\n".encode()
    assert point_at(text, 0) == (0, 0)
    assert point_at(text, text.index("中".encode())) == (1, 0)
    assert point_at(text, text.index(b"'") + 1) == (1, len("中文 = '".encode()))
    assert point_at(text, text.index(b"x")) == (1, len("中文 = '🎉'\r".encode()))  # a lone CR is no row break
    assert point_at(text, len(text)) == (2, 0)


def test_char_point_turns_byte_columns_into_characters() -> None:
    index = LineIndex("a\né🎉中x\n".encode())
    byte_column = len("é🎉中".encode())
    assert index.char_point((1, byte_column)) == (1, 3)
    assert index.char_point((0, 1)) == (0, 1)
    assert index.char_point((1, 1)) == (1, 1)  # inside "é": the partial character counts as one
    lone_cr = LineIndex("é\r東🎉\nx".encode())  # a lone CR is an LSP line break, not a row break
    assert lone_cr.char_point((0, len("é\r東🎉".encode()))) == (0, 4)
    assert lone_cr.char_point((1, 1)) == (1, 1)


def char_point_by_hand(text: bytes, point: tuple[int, int]) -> tuple[int, int]:
    """The row's start found by splitting at every "\n", the column by decoding up to the point."""
    row, byte_column = point
    start = sum(len(part) + 1 for part in text.split(b"\n")[:row])
    return row, len(text[start : start + byte_column].decode("utf-8", errors="replace"))


CHAR_PIECES = st.sampled_from(["a", "é", "東", "🚀", "\n", "\r\n", "\r", " ", "ñandú", "👩\u200d👧"])


@given(st.lists(CHAR_PIECES, max_size=30).map("".join), st.lists(CHAR_PIECES, max_size=4).map("".join), st.data())
def test_char_points_agree_with_decoding_the_row_on_fresh_and_edited_indexes(
    text: str, inserted: str, data: st.DataObject
) -> None:
    """Every byte offset's point, in characters, from a fresh index and from one derived by an edit (the
    markers convert typed edits through derived indexes): the same as decoding the row by hand."""
    old = text.encode()
    start = data.draw(st.integers(0, len(old)))
    end = data.draw(st.integers(start, len(old)))
    new = old[:start] + inserted.encode() + old[end:]
    for index, raw in ((LineIndex(old), old), (LineIndex(old).edited(start, end, inserted.encode(), new), new)):
        for offset in range(len(raw) + 1):
            point = point_at(raw, offset)
            assert index.char_point(point) == char_point_by_hand(raw, point)


def test_utf8_offsets_of_characters() -> None:
    text = "aé東🎉b"
    assert [utf8_offset(text, k) for k in range(6)] == [0, 1, 3, 6, 10, 11]
    assert utf8_offset(text, 99) == 11


def test_line_starts_of_a_str_are_character_offsets() -> None:
    assert line_starts("é\n🎉x\n") == [0, 2, 5]
    assert line_starts("") == [0]
