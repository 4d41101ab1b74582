"""Markers on very long lines: what reaches the expensive comparisons is bounded, whatever the lines' length.

A 110 KB line (a prompt built by 5,000 concatenations) edited in one place cost seconds per marker: rapidfuzz's
batch calls compared both 110 KB lines whole (its one-pair call sets their common start and end aside, the batch
call does not), and finding the definitions a marker may cover walked every node of the expression. Nothing here
times anything: spies count what the comparisons were handed and how many nodes were looked at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from rapidfuzz import process
from rapidfuzz.distance import Indel, LCSseq
from tree_sitter import Node

from tether_lsp.handlers.markers import structure
from tether_lsp.handlers.markers.calculator import Location, calculate
from tether_lsp.handlers.markers.columns import common_ends
from tether_lsp.handlers.markers.line_similarity import (
    BATCH_PRODUCT,
    long_similarity,
    normalise,
    normalised_similarity,
    similar_lines,
)
from tether_lsp.handlers.markers.settings import MarkersSettings, compare_at_most, compared_product
from tether_lsp.server.syntax import parse_text

MAX_COMPARED_PRODUCT = MarkersSettings().maxComparedProduct  # tether.markers.maxComparedProduct's default

PROMPT = "PROMPT = " + " + ".join(['"tell the user hello"'] * 5_000)  # 110 KB on one line
EDITED = PROMPT[:10] + "say" + PROMPT[11:]  # its first "t" became "say"


class Comparisons:
    """The product of the lengths of every pair of strings handed to rapidfuzz (its cost)."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.products: list[int] = []
        real_extract, real_indel, real_lcs = process.extract, Indel.normalized_similarity, LCSseq.similarity

        def extract(query: str, choices: Any, **kwargs: Any) -> Any:
            self.products += [len(query) * len(c) for c in choices if c is not None]
            if kwargs.get("scorer") is indel:
                kwargs["scorer"] = real_indel
            return real_extract(query, choices, **kwargs)

        def indel(a: str, b: str, **kwargs: Any) -> float:
            self.products.append(len(a) * len(b))
            return float(real_indel(a, b, **kwargs))

        def lcs(a: str, b: str, **kwargs: Any) -> int:
            self.products.append(len(a) * len(b))
            return int(real_lcs(a, b, **kwargs))

        patch.setattr(process, "extract", extract)
        patch.setattr(Indel, "normalized_similarity", indel)
        patch.setattr(LCSseq, "similarity", lcs)


@pytest.fixture
def comparisons() -> Iterator[Comparisons]:
    with pytest.MonkeyPatch.context() as patch:
        yield Comparisons(patch)


def test_a_marker_on_a_110_kb_line_edited_in_one_place_compares_only_what_changed(comparisons: Comparisons) -> None:
    """The marker stays on its line; no comparison is handed more than the changed middle of the two lines."""
    old, new = f"x = 1\n{PROMPT}\ny = 2\n", f"x = 1\n{EDITED}\ny = 2\n"
    whole_line, part = Location(2, 1, 3, 1), Location(2, 10, 2, 30)
    result = calculate(old, new, {"line": whole_line, "part": part})
    assert result["line"].location == Location(2, 1, 3, 1)
    assert result["line"].content_changed and not result["line"].start_was_deleted
    assert result["part"].location == Location(2, 10, 2, 32)  # two characters longer: "t" became "say"
    assert comparisons.products, "the changed line was compared"
    assert max(comparisons.products) <= BATCH_PRODUCT  # the old batch call was handed 110,000 x 110,002


def test_two_long_lines_with_long_different_middles_count_their_middles_as_rewritten(
    comparisons: Comparisons,
) -> None:
    """Past MAX_COMPARED_PRODUCT the middles are not compared at all: the common ends alone make the score."""
    middle = 6_000  # 6,000 x 6,000 is over the bound
    a, b = "<" * 100 + "a" * middle + ">" * 100, "<" * 100 + "b" * middle + ">" * 100
    assert middle * middle > MAX_COMPARED_PRODUCT
    assert normalised_similarity(a, b) == pytest.approx(200 / (middle + 200))
    assert comparisons.products == []
    assert calculate(a, b, {"m": Location(1, 1, 1, 2)})["m"].start_was_deleted  # too different to be the same line


def test_a_search_for_a_long_line_among_long_lines_compares_only_their_middles(comparisons: Comparisons) -> None:
    kept = [normalise(PROMPT[:n] + "#" * (len(PROMPT) - n)) for n in (40_000, 70_000)]  # 36% and 64% in common
    assert similar_lines(PROMPT, [normalise(EDITED), "short line", *kept]) == [0, 3]
    assert max(comparisons.products) <= MAX_COMPARED_PRODUCT


lines = st.text(alphabet="ab é\t", max_size=30)


@given(lines, lines, st.integers(0, 60))
@example("ab", "ab", 0)
@example("aab", "ab", 0)  # the suffix stops where the prefix ends
@example("", "abc", 0)
def test_long_similarity_is_rapidfuzz_measure_when_the_middles_are_compared(a: str, b: str, bound: int) -> None:
    """Setting the common ends aside changes nothing when the middles are compared; else it is a lower bound."""
    if not a and not b:
        return
    was = compared_product()
    compare_at_most(bound)
    try:
        head, tail = common_ends(a, b)
        score = long_similarity(a, b)
    finally:
        compare_at_most(was)
    exact = Indel.normalized_similarity(a, b)
    if (len(a) - head - tail) * (len(b) - head - tail) <= bound:
        assert score == pytest.approx(exact)
    else:
        assert score <= exact + 1e-9


@given(lines, lines)
def test_common_ends_are_the_longest_common_prefix_and_suffix(a: str, b: str) -> None:
    head, tail = common_ends(a, b)
    assert a[:head] == b[:head] and (head == min(len(a), len(b)) or a[head] != b[head])
    assert head + tail <= min(len(a), len(b))
    assert a[len(a) - tail :] == b[len(b) - tail :]
    assert head + tail == min(len(a), len(b)) or a[len(a) - tail - 1] != b[len(b) - tail - 1]


@given(st.text(alphabet=st.sampled_from("a b\t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000x")))
def test_normalise_collapses_the_whitespace_a_regular_expression_does(line: str) -> None:
    assert normalise(line) == re.sub(r"\s+", " ", line).strip()


class Looked:
    """How many nodes :func:`structure.units` asked whether they are a unit."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for name in ("_python_unit", "_yaml_unit"):
            real = getattr(structure, name)

            def spy(*args: Any, _real: Any = real) -> Any:
                self.count += 1
                return _real(*args)

            patch.setattr(structure, name, spy)


@pytest.mark.parametrize(
    ("language", "text", "found"),
    [
        ("python", f"{PROMPT}\n", 0),
        ("python", "def f():\n    return " + "(" * 20_000 + "1" + ")" * 20_000 + "\n", 1),
        ("python", "if x:\n    PROMPT = " + " + ".join(['"hi"'] * 5_000) + "\n", 1),
        ("yaml", "prompt: " + "[" * 5_000 + "hello" + "]" * 5_000 + "\n", 1),
    ],
)
def test_finding_units_never_walks_into_an_expression(language: str, text: str, found: int) -> None:
    """Definitions and blocks are statements: the walk asks only the statements (the old walk asked 25,002
    nodes of the concatenation)."""
    with pytest.MonkeyPatch.context() as patch:
        looked = Looked(patch)
        got = structure.units(language, text)
    assert got is not None and len(got) == found
    assert looked.count <= 4  # YAML: the document, its node, its mapping, the pair


def every_unit(language: str, text: str) -> list[structure.Unit]:
    """The units a walk over every named node finds (the walk before the holders)."""
    data = text.encode()
    out: list[structure.Unit] = []
    stack: list[tuple[Node, tuple[str, ...]]] = [(parse_text(language, data).root_node, ())]
    while stack:
        node, path = stack.pop()
        children: list[tuple[Node, tuple[str, ...]]] = []
        for child in node.named_children:
            unit = (structure._python_unit if language == "python" else structure._yaml_unit)(child, path, data)
            if unit is not None:
                out.append(unit)
                inner = child.child_by_field_name("definition") if child.type == "decorated_definition" else None
                children.append((inner or child, (*path, unit.name)))
            else:
                children.append((child, path))
        stack.extend(reversed(children))
    out.sort(key=lambda u: (u.first, -u.last))
    return out


REPOSITORY = Path(__file__).resolve().parents[3]
SAMPLES = [
    *sorted((REPOSITORY / "handlers" / "markers").glob("*.py")),
    *sorted((REPOSITORY / "tests" / "unit" / "markers").glob("*.py")),
    *sorted(REPOSITORY.glob(".github/**/*.y*ml")),
    *sorted((REPOSITORY / "tests").glob("**/*.y*ml"))[:40],
]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(REPOSITORY)))
def test_the_units_are_those_a_walk_of_every_node_finds(path: Path) -> None:
    language = "python" if path.suffix == ".py" else "yaml"
    text = path.read_text()
    for version in (text, text[: len(text) // 2] + "(\n" + text[len(text) // 2 :]):  # and with a parse error
        assert structure.units(language, version) == every_unit(language, version)
