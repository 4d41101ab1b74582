"""The replacement engine's parts, one by one: error counting, the cursor tests, the anchor line, the confidence
model and the validation of an edit. (``test_engine.py`` drives whole analyses.)"""

from __future__ import annotations

import pytest

from tether_lsp.handlers.replacement.engine import (
    anchor_offset,
    confidence,
    error_count,
    errors_between,
    mid_word,
    validates,
)
from tether_lsp.handlers.replacement.model import Unit
from tether_lsp.server.syntax import parse_text


def test_error_count_counts_error_and_missing_nodes_only() -> None:
    assert error_count(parse_text("python", b"def f():\n    pass\n").root_node) == 0
    assert error_count(parse_text("python", b"def f(:\n    pass\n").root_node) == 1  # a MISSING ")"
    assert error_count(parse_text("python", b"def f(:\n    pass\ndef g(:\n    pass\n").root_node) == 2


# "a = 1\nb = [\n": one ERROR node over bytes 6..11 ("b = ["), the module ends at 12
BROKEN = parse_text("python", b"a = 1\nb = [\n").root_node


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (0, 5, False),  # ends before the error
        (0, 3, False),
        (0, 6, True),  # touches its first byte: both ends count
        (11, 12, True),  # starts at its end
        (12, 12, False),  # after it
        (7, 8, True),  # inside it
    ],
)
def test_errors_between_includes_both_ends(start: int, end: int, expected: bool) -> None:
    assert errors_between(BROKEN, start, end) is expected


def test_errors_between_looks_past_clean_statements() -> None:
    root = parse_text("python", b"def f(:\n    pass\nx = 1\ny = 2\n").root_node
    assert errors_between(root, 0, len(b"def f(:\n    pass\nx = 1\ny = 2\n"))


@pytest.mark.parametrize(
    ("text", "cursor", "expected"),
    [
        (b"abcd", 3, True),
        (b"ab", 1, True),
        (b"ab cd", 3, False),  # after a space
        (b"ab cd", 2, False),  # before a space
        (b"ab", 0, False),
        (b"ab", 2, False),
        ("𠀀𠀁".encode(), 4, True),  # four-byte word characters on both sides
        ("東京".encode(), 3, True),
        ("é=".encode(), 2, False),
    ],
)
def test_mid_word(text: bytes, cursor: int, expected: bool) -> None:
    assert mid_word(text, cursor) is expected


@pytest.mark.parametrize(
    ("text", "cursor", "expected"),
    [
        (b"a\n\n  - b\n\nX", 10, 7),  # the nearest code line above, past its indentation and dash
        (b"x = 1\n\n\n", 7, 0),
        (b"\n\nX", 2, None),  # nothing above (the cursor line itself does not count), nothing below
        (b"\nX", 1, None),
        (b"X\n\n  - b\n", 0, 7),  # nothing above: the nearest code line below
        (b"\n  b", 0, 3),
        (b"\n\n", 0, None),
        (b"def f():\r\n\r\n    pass\r\n", 10, 0),
    ],
)
def test_the_anchor_is_the_nearest_code_line(text: bytes, cursor: int, expected: int | None) -> None:
    assert anchor_offset(text, cursor) == expected


@pytest.mark.parametrize(
    ("old_column", "lines", "expected"),
    [
        (4, 1, 0.95),  # same column: +0.1
        (4, 2, 1.0),  # and multi-line: +0.05, capped at 1
        (0, 1, 0.65),  # another column: -0.2
        (0, 2, 0.7),
        (0, 3, 0.7),
    ],
)
def test_confidence_model(old_column: int, lines: int, expected: float) -> None:
    assert confidence(Unit("yaml-list-item", "x", 4), old_column, lines) == expected


def test_confidence_of_a_function() -> None:
    assert confidence(Unit("python-function", "f", 0), 4, 1) == 0.75


PY = b"def f():\n    return 1\n"


def test_an_edit_that_keeps_the_code_valid_validates() -> None:
    tree = parse_text("python", PY)
    assert validates(tree, PY, "python", (0, 21), "def f():\n    return 2")
    assert validates(tree, PY, "python", (0, 21), "def f():\n    x = [1,\n         2]\n    return x")


def test_an_edit_that_adds_errors_does_not_validate() -> None:
    tree = parse_text("python", PY)
    assert not validates(tree, PY, "python", (0, 21), "def f(:\n    return 2")
    assert not validates(tree, PY, "python", (9, 21), "return (")


def test_an_edit_that_nests_too_deep_for_the_grammar_does_not_validate() -> None:
    text = b"a:\n  b: 1\n"
    tree = parse_text("yaml", text)
    deep = "".join(f"{'  ' * k}k{k}:\n" for k in range(1, 230)) + "  " * 230 + "v: 1"
    assert not validates(tree, text, "yaml", (3, 9), deep)


def test_the_anchor_line_below_starts_right_after_its_newline() -> None:
    assert anchor_offset(b"\nb", 0) == 1


def test_an_error_on_the_line_above_is_not_before_the_cursor_on_its_line() -> None:
    from tether_lsp.handlers.replacement.engine import ADAPTERS, incomplete

    text = b"if x:\n    y = )\n    z"
    assert incomplete(ADAPTERS["python"], parse_text("python", text), text, len(text)) is None
    text = b"if x:\n    y = 1\n    z = )"
    reason = incomplete(ADAPTERS["python"], parse_text("python", text), text, len(text))
    assert reason == "syntax error before the cursor on its line"
