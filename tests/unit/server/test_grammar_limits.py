"""What may reach a grammar: the prefix shortcut, the YAML block-nesting bound and the YAML line ceiling."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tether_lsp.server import grammar_limits
from tether_lsp.server.grammar_limits import (
    YAML_MAX_LINES,
    YAML_NESTING_CEILING,
    deepest_prefix,
    yaml_lines_over,
    yaml_nesting_over,
)
from tether_lsp.server.syntax import GrammarLimits


@pytest.mark.parametrize(
    ("text", "prefix"),
    [
        (b"", 0),
        (b"a", 0),
        (b"  a\n", 2),
        (b"- - x\n  y\n", 4),
        (b"k: " + b"v" * 500 + b"\n", 0),  # a long line with a short prefix
        (b"a\n    ", 4),  # the last line holds only prefix bytes
        (b"x\n\n? : - \n", 6),
        (b"\t- x\n", 0),  # a tab is content
    ],
)
def test_deepest_prefix_is_the_longest_run_of_spaces_and_compact_markers(text: bytes, prefix: int) -> None:
    assert deepest_prefix(text) == prefix


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


@pytest.mark.parametrize(
    ("text", "over"),
    [
        (b"", None),
        (b"k: v", None),
        (b"k: v\n" * YAML_MAX_LINES, None),
        (b"k: v\n" * (YAML_MAX_LINES - 1) + b"k: v", None),  # the last line without its newline
        (b"k: v\n" * YAML_MAX_LINES + b"k: v", YAML_MAX_LINES + 1),
        (b"k: v\n" * (YAML_MAX_LINES + 1), YAML_MAX_LINES + 1),
        (b"\n" * (YAML_MAX_LINES + 5), YAML_MAX_LINES + 5),
    ],
)
def test_lines_are_counted_as_an_editor_numbers_them(text: bytes, over: int | None) -> None:
    assert yaml_lines_over(text) == over


def test_the_line_ceiling_is_where_tree_sitter_yaml_stops_parsing() -> None:
    """If a new grammar numbers rows past 16 bits, this fails: raise or drop YAML_MAX_LINES then."""
    import tree_sitter
    import tree_sitter_yaml

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_yaml.language()))
    assert not parser.parse(b"k: v\n" * YAML_MAX_LINES).root_node.has_error
    assert parser.parse(b"k: v\n" * (YAML_MAX_LINES + 1)).root_node.has_error


def test_only_yaml_has_the_line_ceiling() -> None:
    many = b"k = 1\n" * (YAML_MAX_LINES + 1)
    assert GrammarLimits().check("python", many) is None
    held = GrammarLimits().check("yaml", b"k: v\n" * (YAML_MAX_LINES + 1))
    assert held is not None and held.kind == "documentTooLarge" and f"{YAML_MAX_LINES + 1} lines" in held.reason


YAML_LINE = st.tuples(
    st.integers(0, 12),
    st.lists(st.sampled_from(["- ", "? ", ": ", "-", "?", " "]), max_size=4),
    st.sampled_from(["k:", "x", "", "# c", "'q'"]),
)


@given(st.lists(YAML_LINE, max_size=30), st.integers(1, 12))
def test_the_shortcut_never_hides_a_nesting_over_the_limit(lines: list[tuple[int, list[str], str]], limit: int) -> None:
    """With the shortcut or without it, the answer is the same."""
    text = "\n".join(" " * indent + "".join(markers) + rest for indent, markers, rest in lines).encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grammar_limits, "deepest_prefix", lambda _text, at_least: 10**9)  # always the full scan
        full = yaml_nesting_over(text, limit)
    assert yaml_nesting_over(text, limit) == full
