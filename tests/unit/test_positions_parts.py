"""positions.py at its edges: the last BMP code point, lone carriage returns at either end, rounding inside
multi-byte characters, UTF-8 lengths at each boundary, and line lookups while a shift is pending."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tether_lsp.server.positions import (
    Encoding,
    LineIndex,
    Pos,
    _units,
    _utf8_len,
    line_starts,
    lsp_offset,
    point_at,
)


def test_the_last_bmp_code_point_is_one_utf16_unit() -> None:
    assert _units("\uffff", Encoding.UTF16) == 1
    assert _units("\U00010000", Encoding.UTF16) == 2
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
    assert [_utf8_len(c) for c in "\x7f\x80\u07ff\u0800\uffff\U00010000"] == [1, 2, 2, 3, 3, 4]


def test_line_lookups_with_a_pending_shift() -> None:
    index = LineIndex(b"ab\ncd\nef").edited(1, 1, b"XX", b"aXXb\ncd\nef")
    assert [index.line_of(k) for k in range(11)] == [0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert index.starts == [0, 5, 8]
