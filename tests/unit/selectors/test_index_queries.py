"""The index answers structure and text questions as tree-sitter's own nodes do, for every node of a tree.

Selectors only ever ask the index (children, fields, ancestors, kinds, spans); these properties compare each
answer with the tree-sitter ``Node`` at the same pre-order position, on snippets cut from realistic sources.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tree_sitter import Node, Tree

from tests.unit.selectors.sources import K8S, PY
from tether_lsp.handlers.selectors.index import TreeIndex
from tether_lsp.handlers.selectors.spans import WHITESPACE
from tether_lsp.server.syntax import parse_text

SOURCES = {"python": PY, "yaml": K8S}


def pre_order(tree: Tree) -> list[Node]:
    nodes: list[Node] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(reversed(node.children))
    return nodes


@st.composite
def snippets(draw: st.DrawFn) -> tuple[str, bytes]:
    """A run of whole lines of one source, with some whitespace and comments sprinkled at line ends."""
    language = draw(st.sampled_from(sorted(SOURCES)))
    lines = SOURCES[language].splitlines(keepends=True)
    start = draw(st.integers(0, len(lines) - 1))
    stop = draw(st.integers(start + 1, min(len(lines), start + 14)))
    tails = st.sampled_from(["", " ", "\t", "  # c ", "\r"])
    picked = [line.rstrip("\n") + draw(tails) + "\n" for line in lines[start:stop]]
    return language, "".join(picked).encode()


@given(snippets())
def test_structure_answers_are_tree_sitters(snippet: tuple[str, bytes]) -> None:
    language, text = snippet
    tree = parse_text(language, text)
    index = TreeIndex(tree, text)
    nodes = pre_order(tree)
    row = {node.id: i for i, node in enumerate(nodes)}
    assert len(index) == len(nodes)
    for i, node in enumerate(nodes):
        assert index.type_name(i) == node.type
        assert list(index.children(i)) == [row[c.id] for c in node.children]
        chain = []
        parent = node.parent
        while parent is not None:
            chain.append(row[parent.id])
            parent = parent.parent
        assert list(index.ancestors(i)) == chain
        for b in range(len(nodes)):
            assert index.is_ancestor(i, b) == (i in ancestors_of(index, b, nodes, row)), (i, b)
        # the fields of its children, one it may not have, and -1: what the kind table gives for an unknown name
        fields = {index.field[c] for c in index.children(i)} - {0} | {1, tree.language.field_count}
        for field_id in sorted(fields):
            expected = node.child_by_field_id(field_id)
            assert index.child_by_field(i, field_id) == (None if expected is None else row[expected.id]), field_id
        assert index.child_by_field(i, -1) is None


def ancestors_of(index: TreeIndex, b: int, nodes: list[Node], row: dict[int, int]) -> set[int]:
    found = set()
    parent = nodes[b].parent
    while parent is not None:
        found.add(row[parent.id])
        parent = parent.parent
    return found


@given(snippets())
def test_every_row_describes_its_node(snippet: tuple[str, bytes]) -> None:
    """Kind, named flag, field (as the parent's rule names it), parent row, bytes, subtree end, error flag."""
    language, text = snippet
    tree = parse_text(language, text)
    index = TreeIndex(tree, text)
    nodes = pre_order(tree)
    row = {node.id: i for i, node in enumerate(nodes)}
    fields = {0: 0}
    for node in nodes:
        for k, child in enumerate(node.children):
            name = node.field_name_for_child(k)
            fields[row[child.id]] = (tree.language.field_id_for_name(name) if name else None) or 0
    for i, node in enumerate(nodes):
        assert index.kind[i] == node.kind_id
        assert index.named[i] == node.is_named
        assert index.field[i] == fields[i]
        assert index.parent[i] == (-1 if node.parent is None else row[node.parent.id])
        assert (index.start[i], index.end[i]) == (node.start_byte, node.end_byte)
        assert index.subtree_end[i] == i + node.descendant_count
        assert index.error[i] == node.has_error


@pytest.mark.parametrize("language", ["python", "yaml"])
@pytest.mark.parametrize("text", [b"", b"\n", b" "])
def test_an_empty_or_blank_text_has_its_root_and_an_empty_span(language: str, text: bytes) -> None:
    index = TreeIndex(parse_text(language, text), text)
    assert len(index) == 1
    assert index.spans([0]) == [index.span(0)]
    assert index.span(0)[0] == index.span(0)[1]
    assert index.spans([]) == []


@given(snippets(), st.data())
def test_positions_and_text_answers_are_tree_sitters(snippet: tuple[str, bytes], data: st.DataObject) -> None:
    language, text = snippet
    tree = parse_text(language, text)
    index = TreeIndex(tree, text)
    nodes = pre_order(tree)
    kinds = sorted({node.kind_id for node in nodes})
    wanted = frozenset(data.draw(st.lists(st.sampled_from(kinds), max_size=4)))
    expected = [i for i, node in enumerate(nodes) if node.kind_id in wanted]
    assert index.positions(wanted) == expected
    assert index.positions(wanted) == expected  # cached: the same answer again
    for i, node in enumerate(nodes):
        raw = text[node.start_byte : node.end_byte]
        trimmed = raw.rstrip(bytes(sorted(WHITESPACE)))
        assert index.span(i) == (node.start_byte, node.start_byte + len(trimmed))
        assert index.node_text(i) == trimmed.decode("utf-8", errors="replace")
    assert index.spans(list(range(len(nodes)))) == [index.span(i) for i in range(len(nodes))]


def test_a_node_is_not_the_ancestor_of_the_node_after_its_subtree() -> None:
    text = b"def f(a):\n    return a\nx = 1\n"
    index = TreeIndex(parse_text("python", text), text)
    function = 1
    after = index.subtree_end[function]
    assert index.type_name(after) == "expression_statement"
    assert not index.is_ancestor(function, after)
    assert index.is_ancestor(function, after - 1)
    assert not index.is_ancestor(function, function)
