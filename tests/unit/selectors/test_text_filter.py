"""``filterText`` searches only the nodes that hold the pattern's required literal, and keeps what a search of
every node keeps.

The literal read off a pattern must be in every text the pattern finds a match in (else the filter would drop
a match): checked on patterns assembled from the pieces that could fool the reading (quantifiers, classes,
escapes, groups, alternatives, flags, fuzzy constraints) against the texts of every node of realistic
sources. That the filter searches fewer nodes is counted (the search's clock reading is what made a
whole-file filter slow), never timed.
"""

from __future__ import annotations

from typing import Any

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.selectors.harness import Doc
from tests.unit.selectors.sources import ACTIONS, K8S, PY
from tether_lsp.handlers.selectors.engine import Validated, run, validate
from tether_lsp.handlers.selectors.text_filter import Literal, required_literal

SOURCES = [("python", PY), ("yaml", K8S), ("yaml", ACTIONS)]
DOCS = [Doc(language, source) for language, source in SOURCES]

PIECES = [
    *"abcdefxyz _:=-#'\"",
    "de",
    "def ",
    "class ",
    "return",
    "name",
    "^",
    "$",
    ".",
    "*",
    "+",
    "?",
    "*?",
    "{2}",
    "{0,1}",
    "{1,}+",
    "{e<=1}",
    "{",
    "}",
    "|",
    "(?i)",
    "(?:",
    "(",
    ")",
    ")?",
    "[a-z]",
    "[^ ]",
    "[[:alpha:]]",
    "[]a]",
    r"\b",
    r"\B",
    r"\A",
    r"\Z",
    r"\s",
    r"\d",
    r"\w+",
    r"\.",
    r"\(",
    r"\x61",
    r"\p{L}",
    r"\N{LATIN SMALL LETTER A}",
    r"\1",
    r"\n",
    r"\m",
]


def node_texts(doc: Doc) -> list[tuple[int, int]]:
    return [doc.index.span(i) for i in range(len(doc.index))]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=7))
def test_every_text_a_pattern_matches_holds_its_literal(pieces: list[str]) -> None:
    pattern = "".join(pieces)
    try:
        compiled = regex.compile(pattern, flags=regex.VERSION0)
    except (regex.error, ValueError, OverflowError):
        return
    literal = required_literal(pattern)
    if literal is None:
        return
    for doc in DOCS:
        for start, end in node_texts(doc):
            if compiled.search(doc.text[start:end].decode("utf-8", errors="replace")) is not None:
                assert literal.may_match(doc.text, start, end), (pattern, literal, doc.text[start:end])


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"^def get_7\b", Literal(b"def get_7", True)),
        (r"\bget_user\b", Literal(b"get_user", False)),
        (r"def\s+get_77\(", Literal(b"get_77(", False)),
        (r"^class Store\d+:", Literal(b"class Store", True)),
        (r"^.abc", Literal(b"abc", False)),
        ("abc*", Literal(b"ab", False)),
        (r"x{e<=1}yz", Literal(b"yz", False)),
        (r"^\w+", None),
        ("(?i)def", None),
        ("def|class", None),
        (r"[[:alpha:]]xyz", None),
        (r"\x41bc", None),
    ],
)
def test_the_literal_read_off_a_pattern(pattern: str, literal: Literal | None) -> None:
    assert required_literal(pattern) == literal


class CountingPattern:
    """A compiled pattern that counts its searches."""

    def __init__(self, pattern: str) -> None:
        self.compiled = regex.compile(pattern, flags=regex.VERSION0)
        self.pattern = pattern
        self.searches = 0

    def search(self, text: str, **options: Any) -> Any:
        self.searches += 1
        return self.compiled.search(text, **options)


def many_functions(count: int) -> Doc:
    return Doc("python", "".join(f"def get_{k}(key):\n    return key + {k}\n\n" for k in range(count)))


def test_a_whole_file_filter_searches_only_the_nodes_holding_the_literal() -> None:
    doc = many_functions(500)
    functions = doc.chain("selectFunctions")
    pattern = CountingPattern(r"^def get_7\b")
    validated = validate("filterText", [pattern.pattern])
    counted = Validated(validated.selector, (pattern,), validated.limits)
    found = run(counted, doc.index, doc.table, doc.tree, functions, lambda line, ch: 0)
    assert [doc.index.node_text(i).split("(")[0] for i in found] == ["def get_7"]
    # get_7 and get_70..get_79 start with the literal; the 489 others are never searched (before: all 500)
    assert pattern.searches == 11


@pytest.mark.parametrize(
    "steps",
    [
        ("selectFunctions", ("filterText", r"^def get_1\d\b")),
        ("selectFunctions", ("filterNotText", r"^def get_1")),
        ("selectStrings", ("filterText", "Modül")),
        ("selectCalls", ("filterText", r"print\(")),
        ("selectPairs", ("filterText", r"^name:")),
    ],
)
def test_filters_keep_what_searching_every_node_keeps(steps: tuple[Any, ...]) -> None:
    for doc in [*DOCS, many_functions(60)]:
        name, (filter_name, expression) = steps
        cursors = doc.chain(name)
        keep = filter_name == "filterText"
        compiled = regex.compile(expression, flags=regex.VERSION0)
        expected = [c for c in cursors if (compiled.search(doc.index.node_text(c)) is not None) == keep]
        assert doc.chain(name, (filter_name, expression)) == expected
