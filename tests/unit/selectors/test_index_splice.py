"""The selector index of a new version, spliced from the previous one, equals a full walk node for node.

Random edit sequences (tokens that open strings and brackets, newlines, indentation, deletions) on Python and
YAML sources; after every edit the spliced index is compared, column by column, with a fresh walk.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tether_lsp.handlers.selectors.index import TreeIndex
from tether_lsp.handlers.selectors.index_rows import COLUMNS
from tether_lsp.handlers.selectors.index_splice import SPLICE_MAX_CHANGED_SHARE
from tether_lsp.server.syntax import parse_text

PYTHON = '''import os


class Store:
    """Keeps things."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.items = [1, 2, 3]

    @property
    def size(self) -> int:
        return len(self.items)


def load(name, *, strict=False):
    if strict:
        raise ValueError(f"no {name}")
    return {"name": name, "café": "☕"}
'''

YAML = """- hosts: all
  tasks:
    - name: install
      apt:
        name: nginx
        state: present
    - name: start
      service: {name: nginx, state: started}
services:
  web:
    image: "nginx:1.25"
    ports: [80, 443]
# a comment
notes: |
  multi-line
  text 日本語
"""

TOKENS = ["x", " ", "\n", "    ", '"', "'", "(", ")", "[", "]", ":", "def f():\n    pass\n", "- a: 1\n", "#", "é", "🙂"]

edit = st.tuples(st.floats(0, 1), st.integers(0, 12), st.sampled_from(TOKENS))


def apply(text: bytes, where: float, delete: int, insert: str) -> bytes:
    at = int(where * len(text))
    while at < len(text) and (text[at] & 0xC0) == 0x80:  # keep the text valid UTF-8
        at += 1
    end = min(len(text), at + delete)
    while end < len(text) and (text[end] & 0xC0) == 0x80:
        end += 1
    return text[:at] + insert.encode() + text[end:]


def assert_same(spliced: TreeIndex, fresh: TreeIndex) -> None:
    for name, _, _ in COLUMNS:
        assert bytes(getattr(spliced, name)) == bytes(getattr(fresh, name)), name


def run_sequence(language: str, source: str, edits: list[tuple[float, int, str]]) -> None:
    text = source.encode()
    index = TreeIndex(parse_text(language, text), text)
    for where, delete, insert in edits:
        text = apply(text, where, delete, insert)
        tree = parse_text(language, text)
        index = TreeIndex.updated(index, tree, text)
        assert_same(index, TreeIndex(tree, text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edit, min_size=1, max_size=8))
# `[` then `'` inside the last return's dict: the dict's pairs keep their kinds and spans, but the rule around
# them changes, and with it the field name of a child copied from the old rows
@example(edits=[(0.90625, 11, "["), (0.94921875, 0, "'")])
def test_python_splices_equal_full_walks(edits: list[tuple[float, int, str]]) -> None:
    run_sequence("python", PYTHON, edits)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edit, min_size=1, max_size=8))
def test_yaml_splices_equal_full_walks(edits: list[tuple[float, int, str]]) -> None:
    run_sequence("yaml", YAML, edits)


def test_a_one_character_edit_reuses_the_unchanged_subtrees() -> None:
    """Most of the new index comes from copies: only the path to the edit and the edited leaf are visited."""
    text = (PYTHON * 20).encode()
    old = TreeIndex(parse_text("python", text), text)
    at = text.index(b"self.items = [1, 2, 3]", len(text) // 2)
    new_text = text[:at] + b"self.items = [1, 2, 3, 4]" + text[at + len(b"self.items = [1, 2, 3]") :]
    tree = parse_text("python", new_text)
    index = TreeIndex.updated(old, tree, new_text)
    assert_same(index, TreeIndex(tree, new_text))
    walked = len(index) - index.copied_rows
    assert walked < 40  # the path from the root to the edited list, not thousands of nodes
    assert index.copied_rows > 0.99 * tree.root_node.descendant_count - walked


def test_a_different_language_or_a_wide_change_walks_afresh() -> None:
    text = PYTHON.encode()
    old = TreeIndex(parse_text("python", text), text)
    other = YAML.encode()
    tree = parse_text("yaml", other)
    index = TreeIndex.updated(old, tree, other)
    assert index.copied_rows == 0
    assert_same(index, TreeIndex(tree, other))

    keep = text.index(b"    @property")  # the class header and __init__ stay: a splice could copy them
    wide = text[:keep] + b"    size = 0\n"
    assert len(text) - keep > SPLICE_MAX_CHANGED_SHARE * len(text)  # more than the share worth splicing
    tree = parse_text("python", wide)
    index = TreeIndex.updated(old, tree, wide)
    assert index.copied_rows == 0
    assert_same(index, TreeIndex(tree, wide))
    narrow = text[:keep] + b"    size = 0\n" + text[keep:]  # the same kept lines, a narrow change: spliced
    assert TreeIndex.updated(old, parse_text("python", narrow), narrow).copied_rows > 0


@given(
    st.lists(
        st.sampled_from(["x = 1", "def f():", "    return 2  ", "\t", "", "# c ", "y = [1,\r", " 2]"]), max_size=12
    )
)
def test_spans_in_bulk_are_the_spans_one_by_one(lines: list[str]) -> None:
    text = "\n".join(lines).encode()
    index = TreeIndex(parse_text("python", text), text)
    rows = list(range(len(index)))
    assert index.spans(rows) == [index.span(i) for i in rows]
    assert index.spans([]) == []


@pytest.mark.parametrize("depth", [100, 20_000])
@pytest.mark.parametrize("language", ["python", "yaml"])
def test_an_edit_at_the_bottom_of_deep_nesting_gives_the_index_of_a_full_walk(language: str, depth: int) -> None:
    """No recursion down the path to the edit: 20,000 parentheses or YAML flow sequences deep."""
    opening = ("x = " if language == "python" else "") + ("(" if language == "python" else "[") * depth
    closing = (")" if language == "python" else "]") * depth
    text = f"{opening}1{closing}\n".encode()
    index = TreeIndex(parse_text(language, text), text)
    for new in (f"{opening}2{closing}\n", f"{opening}22{closing}\n", f"{opening}[2]{closing}\n"):
        new_text = new.encode()
        tree = parse_text(language, new_text)
        index = TreeIndex.updated(index, tree, new_text)
        assert_same(index, TreeIndex(tree, new_text))
        assert len(index) == tree.root_node.descendant_count
