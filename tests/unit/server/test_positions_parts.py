"""positions.py at its edges: the last BMP code point, lone carriage returns at either end, rounding inside
multi-byte characters, UTF-8 lengths at each boundary, and line lookups while a shift is pending."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types

from tether_lsp.server.positions import (
    Encoding,
    LineIndex,
    Pos,
    line_starts,
    lsp_offset,
    point_at,
)


def test_the_last_bmp_code_point_is_one_utf16_unit() -> None:
    index = LineIndex("\uffff\U00010000x".encode())  # 3 bytes, then 4
    assert index.position_of(3, Encoding.UTF16) == Pos(0, 1)
    assert index.position_of(7, Encoding.UTF16) == Pos(0, 3)
    index = LineIndex("a\uffffb\n".encode())
    assert index.position_of(len("a\uffff".encode()), Encoding.UTF16) == Pos(0, 2)
    assert index.offset_of(Pos(0, 2), Encoding.UTF16) == 4


@pytest.mark.parametrize(
    ("text", "starts", "bounds"),
    [
        (b"\rabc", [0, 1], [(0, 0), (1, 4)]),
        (b"a\rb", [0, 2], [(0, 1), (2, 3)]),
        (b"abc\r", [0, 4], [(0, 3), (4, 4)]),
        (b"x\ry\r\n", [0, 2, 5], [(0, 1), (2, 3), (5, 5)]),
        (b"x\ry\r\nz", [0, 2, 5], [(0, 1), (2, 3), (5, 6)]),
    ],
)
def test_lone_carriage_returns(text: bytes, starts: list[int], bounds: list[tuple[int, int]]) -> None:
    index = LineIndex(text)
    assert index.starts == starts
    assert [index.line_bounds(k) for k in range(index.line_count)] == bounds


def test_an_offset_inside_a_character_rounds_down_to_its_start() -> None:
    index = LineIndex("é東".encode())  # é: bytes 0-1, 東: bytes 2-4
    assert [index.position_of(k, Encoding.UTF16) for k in range(6)] == [
        Pos(0, 0),
        Pos(0, 0),
        Pos(0, 1),
        Pos(0, 1),
        Pos(0, 1),
        Pos(0, 2),
    ]


def test_points_and_line_starts_after_a_leading_newline() -> None:
    assert LineIndex(b"ab\ncd\nef").point_of(7) == (2, 1)
    assert point_at(b"\nab", 2) == (1, 1)
    assert line_starts("\nab") == [0, 1]
    assert line_starts("a\n\nb") == [0, 2, 3]


@pytest.mark.parametrize("pos", [Pos(-1, 0), Pos(0, -1)])
def test_negative_positions_are_refused(pos: Pos) -> None:
    with pytest.raises(ValueError, match="non-negative"):
        LineIndex(b"ab\n").offset_of(pos, Encoding.UTF16)


def test_lsp_offsets_are_lenient_unless_told() -> None:
    index = LineIndex(b"ab\ncd\nef")
    assert lsp_offset(index, types.Position(9, 0), Encoding.UTF16) == 8
    with pytest.raises(ValueError):
        lsp_offset(index, types.Position(9, 0), Encoding.UTF16, strict=True)


def test_utf8_lengths_at_each_boundary() -> None:
    """Positions after each character walk its UTF-8 length: 1, 2, 2, 3, 3 and 4 bytes."""
    index = LineIndex("\x7f\x80\u07ff\u0800\uffff\U00010000".encode())
    after = [index.offset_of(Pos(0, k), Encoding.UTF32) for k in range(7)]
    assert after == [0, 1, 3, 5, 8, 11, 15]


def test_line_lookups_with_a_pending_shift() -> None:
    index = LineIndex(b"ab\ncd\nef").edited(1, 1, b"XX", b"aXXb\ncd\nef")
    assert [index.line_of(k) for k in range(11)] == [0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert index.starts == [0, 5, 8]


def test_deleting_the_newline_of_a_crlf_leaves_a_lone_cr_that_splits_the_line() -> None:
    assert LineIndex(b"a\r\nb").edited(2, 3, b"", b"a\rb").starts == [0, 2]
    assert LineIndex(b"\r\nb").edited(1, 2, b"", b"\rb").starts == [0, 1]


def test_utf8_positions_inside_a_character_round_down() -> None:
    index = LineIndex("é".encode())  # C3 A9: A9 has its low bit set
    assert index.offset_of(Pos(0, 1), Encoding.UTF8) == 0
    assert index.offset_of(Pos(0, 2), Encoding.UTF8) == 2


def test_utf16_positions_around_an_astral_character() -> None:
    index = LineIndex("a\U00010000b".encode())
    assert index.offset_of(Pos(0, 3), Encoding.UTF16) == 5
    assert index.offset_of(Pos(0, 2), Encoding.UTF16) == 1  # between the halves of the pair: its start


def test_positions_between_cr_and_lf_and_before_the_text() -> None:
    assert LineIndex(b"\r\nx").position_of(1, Encoding.UTF16) == Pos(0, 0)
    assert LineIndex(b"ab\r\ncd").position_of(3, Encoding.UTF16) == Pos(0, 2)
    assert LineIndex(b"ab").position_of(-5, Encoding.UTF16) == Pos(0, 0)
    assert LineIndex(b"ab").position_of(99, Encoding.UTF16) == Pos(0, 2)
    assert LineIndex("é".encode()).position_of(2, Encoding.UTF16) == Pos(0, 1)


def test_char_points_count_characters_from_the_rows_start() -> None:
    assert LineIndex("éa".encode()).char_point((0, 2)) == (0, 1)
    assert LineIndex("aé\nbé東x".encode()).char_point((1, 6)) == (1, 3)


TEXTS = [
    b"",
    b"one\ntwo\nthree\n",
    "caf\u00e9\n東京\n\U0001f389 x\n".encode(),
    b"a\r\nb\r\nc",
    b"x" * 50 + b"\n" + b"y" * 50,
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_derived_index_answers_as_a_fresh_one(text: bytes) -> None:
    """Chains of edits (typing on one line, then newlines, then deletions) against an index built from scratch."""
    rnd = random.Random(len(text))
    index, current = LineIndex(text), text
    pieces = [b"k", b"kk", b"\n", b"ab\ncd", "é".encode(), b"", b"\n\n"]
    for step in range(120):
        if step % 10 < 6 and current:  # a burst of typing on one line: pending shifts
            at = rnd.randrange(len(current) + 1)
            start = old_end = at
            inserted = b"z"
        else:
            start = rnd.randrange(len(current) + 1)
            old_end = min(len(current), start + rnd.randrange(4))
            inserted = rnd.choice(pieces)
        new = current[:start] + inserted + current[old_end:]
        try:
            new.decode("utf-8")
        except UnicodeDecodeError:
            continue  # an edit that splits a character is not a text an editor sends
        index, current = index.edited(start, old_end, inserted, new), new
        fresh = LineIndex(current)
        assert index.line_count == fresh.line_count
        assert [index.line_of(k) for k in range(len(current) + 1)] == [
            fresh.line_of(k) for k in range(len(current) + 1)
        ]
        assert [index.point_of(k) for k in range(len(current) + 1)] == [
            fresh.point_of(k) for k in range(len(current) + 1)
        ]
        assert [index.line_bounds(k) for k in range(index.line_count)] == [
            fresh.line_bounds(k) for k in range(fresh.line_count)
        ]
        assert index.starts == fresh.starts


def test_importing_positions_leaves_numpy_unloaded() -> None:
    """numpy is for bulk conversions only: start-up (``initialize``) must not pay for importing it."""
    import subprocess
    import sys

    probe = "import sys, tether_lsp.server.positions; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
