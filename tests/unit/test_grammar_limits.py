"""What may reach a grammar: the longest-line shortcut and the YAML block-nesting bound."""

from __future__ import annotations

import pytest

from tether_lsp.server.grammar_limits import YAML_NESTING_CEILING, longest_line, yaml_nesting_over


@pytest.mark.parametrize(
    ("text", "longest"),
    [(b"", 0), (b"a", 1), (b"a\n", 1), (b"ab\ncde\n", 3), (b"\n\n", 0), (b"abcd\nx", 4), (b"x\r\nyz", 2)],
)
def test_longest_line_counts_bytes_between_newlines(text: bytes, longest: int) -> None:
    assert longest_line(text) == longest


def nested(depth: int) -> bytes:
    """A block mapping ``depth`` levels deep, one level per line."""
    return b"".join(b" " * level + b"k:\n" for level in range(depth)) + b" " * depth + b"v: 1\n"


def test_nesting_over_the_limit_is_reported_and_under_it_is_not() -> None:
    assert yaml_nesting_over(nested(10), 10) == 11
    assert yaml_nesting_over(nested(9), 10) is None


def test_a_text_without_a_line_as_long_as_the_limit_is_not_scanned() -> None:
    """Every nesting level moves the column right, so the deepest line is at least as long as the depth."""
    shallow_but_wide = b"k: " + b"x" * 50 + b"\n"
    assert yaml_nesting_over(shallow_but_wide, 5) is None
    deep = nested(6)  # its longest line has 10 bytes
    assert yaml_nesting_over(deep, 6) == 7
    compact = b"- - - - - - - x\n"  # the line's column, then one level per "- ": eight on 15 bytes
    assert yaml_nesting_over(compact, 7) == 8
    assert yaml_nesting_over(compact, 8) is None


def test_the_ceiling_caps_any_setting() -> None:
    assert yaml_nesting_over(nested(YAML_NESTING_CEILING), 10_000) == YAML_NESTING_CEILING + 1
