"""Selectors at their edges: the root and top-level nodes, range boundaries, the last pair of cursors, YAML
scalars with escapes, and the default pattern length limit."""

from __future__ import annotations

import time

import pytest
import regex

from tests.unit.selectors.harness import Doc
from tether_lsp.handlers.selectors.engine import validate
from tether_lsp.handlers.selectors.text_filter import text_filter
from tether_lsp.handlers.selectors.vocabulary import Context
from tether_lsp.server.errors import InvalidParams

PY = Doc("python", "a = 1\nb = 2\nc = 3\n")


def test_the_next_sibling_of_a_top_level_statement_is_one_statement() -> None:
    assert PY.texts("selectStatements", ("selectNth", 0), "selectNextSibling") == ["b = 2"]


def test_the_root_has_no_next_sibling_and_a_top_level_statement_has_siblings() -> None:
    assert PY.texts("selectNextSibling") == []
    assert PY.texts("selectPrevSibling") == []
    assert PY.texts("selectStatements", ("selectNth", 1), "selectPrevSibling") == ["a = 1"]
    assert PY.texts("selectStatements", ("selectNth", 0), "selectSiblings") == ["a = 1", "b = 2", "c = 3"]


@pytest.mark.parametrize(
    ("range_", "expected"),
    [
        ((0, 0, 0, 5), ["a = 1"]),  # a statement starting exactly at the range's start is inside it
        ((0, 0, 1, 5), ["a = 1", "b = 2"]),
        ((0, 5, 1, 5), ["b = 2"]),
        ((0, 4, 0, 5), ["1"]),  # found by descending through every partly covered node
        ((0, 0, 0, 1), ["a"]),  # the first child of the first child of the first child
    ],
)
def test_range_edges(range_: tuple[int, int, int, int], expected: list[str]) -> None:
    assert PY.texts(("selectRange", *range_)) == expected


def test_innermost_checks_the_last_pair_of_cursors() -> None:
    doc = Doc("python", "a = 1\ndef f():\n    return 1\n")
    assert doc.texts("selectStatements", "filterInnermost") == ["a = 1", "return 1"]


def test_a_yaml_scalar_has_no_children_even_with_escapes() -> None:
    doc = Doc("yaml", 'a: "x\\ny"\nb: plain\n')
    assert doc.texts(("selectByType", "double_quote_scalar")) == ['"x\\ny"']
    assert doc.texts(("selectByType", "double_quote_scalar"), "selectChildren") == []


def test_the_default_pattern_length_limit_is_1000_characters() -> None:
    validate("filterText", ["a" * 1000])
    with pytest.raises(InvalidParams, match="1001 characters, over the limit of 1000"):
        validate("filterText", ["a" * 1001])


def test_select_by_type_skips_a_keyword_of_the_same_name() -> None:
    doc = Doc("python", "type X = int\ndef f(a: int) -> str: pass\n")
    assert doc.texts(("selectByType", "type")) == ["X", "int", "int", "str"]  # not the soft keyword `type`


def test_the_default_repeat_limit_is_10000_copies() -> None:
    validate("filterText", ["a{10000}"])
    with pytest.raises(InvalidParams, match="10001 copies, over the limit of 10000"):
        validate("filterText", ["a{10001}"])


@pytest.mark.parametrize("keep", [True, False])
def test_a_text_filter_past_its_deadline_refuses_instead_of_answering(keep: bool) -> None:
    """The budget ran out between two cursors (no search timed out): the request fails, whichever filter."""
    ctx = Context(PY.index, PY.table, PY.tree, lambda line, ch: 0, "filterText", time.monotonic() - 0.5, 0.5)
    with pytest.raises(InvalidParams, match="ran out of its 0.5 s budget"):
        text_filter(keep)(ctx, [1, 2], regex.compile("a"))
