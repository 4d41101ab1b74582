"""What may reach a grammar: the prefix shortcut, the YAML block-nesting bound, the YAML line ceiling and the Python
indentation bound."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tether_lsp.server import grammar_limits
from tether_lsp.server.grammar_limits import (
    PYTHON_NESTING_CEILING,
    YAML_MAX_LINES,
    YAML_NESTING_CEILING,
    deepest_prefix,
    python_nesting_over,
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


def blocks(levels: int, indent: str = " ") -> bytes:
    body = "".join(indent * level + "if x:\n" for level in range(1, levels))
    return ("def f(x):\n" + body + indent * levels + "return 'x'\n").encode()


@pytest.mark.parametrize("indent", [" ", "    ", "\t", " \t"])
def test_python_indentation_over_the_limit_is_reported_and_under_it_is_not(indent: str) -> None:
    assert python_nesting_over(blocks(200, indent), 200) is None
    assert python_nesting_over(blocks(201, indent), 200) == 201
    held = GrammarLimits(python_max_nesting=50).check("python", blocks(51, indent))
    assert held is not None and held.kind == "documentTooDeep" and "tether.limits.pythonMaxNesting" in held.reason
    assert GrammarLimits(python_max_nesting=50).check("yaml", blocks(51, indent)) is None


def test_python_blank_and_comment_lines_push_no_level() -> None:
    text = b"x = 1\n" + b"\n".join(b" " * (level + 1) + b"# c" for level in range(300)) + b"\n" + b" " * 300 + b"\n"
    assert python_nesting_over(text, 10) is None


def test_the_python_ceiling_caps_any_setting() -> None:
    assert python_nesting_over(blocks(PYTHON_NESTING_CEILING + 1), 10_000) == PYTHON_NESTING_CEILING + 1


def python_depth(text: bytes) -> int:
    """The deepest stack of strictly increasing indentation widths, line by line, with no shortcut."""
    stack, deepest = [0], 0
    for line in text.split(b"\n"):
        content = line.lstrip(b" \t\f\r")
        if content and not content.startswith(b"#"):
            width = sum(8 if c == 9 else 1 for c in line[: len(line) - len(content)])
            while stack[-1] > width:
                stack.pop()
            if width > stack[-1]:
                stack.append(width)
            deepest = max(deepest, len(stack) - 1)
    return deepest


PYTHON_LINE = st.tuples(st.lists(st.sampled_from([" ", "\t"]), max_size=20), st.sampled_from(["x", "", "# c", "'s'"]))


@given(st.lists(PYTHON_LINE, max_size=30), st.integers(1, 12))
def test_the_python_shortcut_never_hides_a_nesting_over_the_limit(
    lines: list[tuple[list[str], str]], limit: int
) -> None:
    text = "\n".join("".join(indent) + rest for indent, rest in lines).encode()
    assert (python_nesting_over(text, limit) is None) == (python_depth(text) <= limit)
