"""handlers/selectors/spans.py: trimmed spans and the expand-selection chain ("«…»" marks the cursor)."""

from __future__ import annotations

import itertools

import pytest

from tether_lsp.handlers.selectors.spans import expansion, trimmed_span
from tether_lsp.server.syntax import parse_text


def chain(language: str, annotated: str) -> list[str]:
    offset = annotated.encode().index(b"|")
    text = annotated.replace("|", "", 1).encode()
    tree = parse_text(language, text)
    return [text[s:e].decode() for s, e in expansion(text, tree.root_node, offset)]


def test_python_chain_skips_same_range_wrappers() -> None:
    steps = chain("python", "def f(a):\n    return g(a|, 'é')\n\nx = 1\n")
    assert steps[:4] == ["a", "(a, 'é')", "g(a, 'é')", "return g(a, 'é')"]
    assert steps[-1] == "def f(a):\n    return g(a, 'é')\n\nx = 1"
    assert len(steps) == len(set(steps))  # no step repeats its predecessor's range


def test_blocks_are_trimmed() -> None:
    text = b"def f():\n    x = 1\n    \n\ny = 2\n"
    tree = parse_text("python", text)
    block = tree.root_node.children[0].child_by_field_name("body")
    assert block is not None
    s, e = trimmed_span(text, block)
    assert text[s:e] == b"x = 1"


def test_cursor_after_a_word_starts_from_it() -> None:
    assert chain("python", "value| = 1\n")[0] == "value"


def test_yaml_chain_with_non_ascii() -> None:
    steps = chain("yaml", "a:\n  b: café\n  c: [東京, 🚀|x]\n")
    assert steps[0] == "🚀x"
    assert "[東京, 🚀x]" in steps
    assert "c: [東京, 🚀x]" in steps


@pytest.mark.parametrize("text", ["", "   \n\n", "x"])
def test_never_empty(text: str) -> None:
    data = text.encode()
    tree = parse_text("python", data)
    for offset in range(len(data) + 1):
        spans = expansion(data, tree.root_node, offset)
        assert spans
        for (s1, e1), (s2, e2) in itertools.pairwise(spans):
            assert s2 <= s1 <= e1 <= e2
