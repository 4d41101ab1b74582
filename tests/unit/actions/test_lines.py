"""Line arithmetic on bytes (handlers/actions/lines.py): each helper at the edges where an off-by-one hides —
the first and last line, a file without a final newline, CRLF, tabs."""

from __future__ import annotations

from tether_lsp.handlers.actions.lines import (
    indentation,
    is_blank_line,
    line_end,
    line_start,
    newline_of,
    next_line,
    previous_line,
    reindented,
    rest_is_blank,
    starts_line,
)

TEXT = b"ab\n  cd\n\nef"  # lines start at 0, 3, 8, 9


def test_line_start_and_end() -> None:
    assert [line_start(TEXT, k) for k in (0, 2, 3, 4, 7, 8, 9, 10, 11)] == [0, 0, 3, 3, 3, 8, 9, 9, 9]
    assert [line_end(TEXT, k) for k in (0, 2, 3, 7, 8, 9, 11)] == [2, 2, 7, 7, 8, 11, 11]
    assert line_end(b"ab\r\ncd", 0) == 2
    assert line_end(b"ab\r\ncd", 4) == 6


def test_next_and_previous_line() -> None:
    assert [next_line(TEXT, k) for k in (0, 2, 3, 8, 9)] == [3, 3, 8, 9, 11]
    assert [previous_line(TEXT, k) for k in (0, 2, 3, 5, 8, 10)] == [-1, -1, 0, 0, 3, 8]


def test_starts_line_and_rest_is_blank() -> None:
    assert starts_line(TEXT, 5) and starts_line(TEXT, 3) and starts_line(TEXT, 0)
    assert not starts_line(TEXT, 6) and not starts_line(TEXT, 1)
    assert rest_is_blank(TEXT, 2) and rest_is_blank(TEXT, 7) and rest_is_blank(b"a  \r\nb", 1)
    assert not rest_is_blank(TEXT, 1) and not rest_is_blank(TEXT, 6)


def test_indentation_and_blank_lines() -> None:
    assert indentation(TEXT, 6) == b"  "
    assert indentation(TEXT, 0) == b""
    assert indentation(b"x\n\t y\n", 4) == b"\t "
    assert is_blank_line(TEXT, 8) and is_blank_line(b"a\n \t\r\nb", 2)
    assert not is_blank_line(TEXT, 3) and not is_blank_line(TEXT, 9)


def test_newline_of() -> None:
    assert newline_of(b"a\r\nb\nc") == b"\r\n"
    assert newline_of(b"a\nb\r\nc") == b"\n"
    assert newline_of(b"\nb") == b"\n"
    assert newline_of(b"abc") == b"\n"


def test_reindented_keeps_the_first_line_blank_lines_and_verbatim_lines() -> None:
    text = b"if a:\n    b\n\n    s = '''\n    kept\n'''\n"
    assert reindented(text, b"    ", b"\t", verbatim=[4, 5]) == b"if a:\n\tb\n\n\ts = '''\n    kept\n'''\n"
    assert reindented(b"x\n  y", b"  ", b"  ") == b"x\n  y"
    assert reindented(b"x\n y", b"    ", b"        ") == b"x\n     y"
    assert reindented(b"x\n y", b"    ", b"") == b"x\n y"
