"""server/nodes.py: an ancestor chain found by walking down equals tree-sitter's own parent links."""

from __future__ import annotations

import pytest
from tree_sitter import Node

from tests.helpers import EXAMPLES
from tether_lsp.server.nodes import descendant_index, enclosing, lineage, preorder
from tether_lsp.server.syntax import parse_text


def parent_chain(node: Node | None) -> list[Node]:
    chain: list[Node] = []
    while node is not None:
        chain.append(node)
        node = node.parent
    return chain


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("python", (EXAMPLES / "prompts.py").read_text(encoding="utf-8")),
        ("python", "def f(a):\n    return g(a, 'é — 中文 🎉')\n\nclass C:\n    x = (1, [2, {3: 4}])\n"),
        ("python", "def broken(:\n    if x\n        return )\n"),  # error and missing nodes
        ("yaml", "a: 1\nb:\n  - c: [1, {d: 'é'}]\n  - 🎉\n"),
    ],
    ids=["examples-prompts", "non-ascii", "errors", "yaml"],
)
def test_enclosing_is_the_parent_chain_of_the_smallest_node_at_every_offset(language: str, text: str) -> None:
    data = text.encode()
    tree = parse_text(language, data)
    root = tree.root_node
    for offset in range(len(data) + 1):
        expected = parent_chain(root.descendant_for_byte_range(offset, offset))
        assert [n.id for n in enclosing(root, offset)] == [n.id for n in expected], offset
    spans = [(0, len(data) // 3), (5, 9), (len(data) // 2, len(data))]
    for start, end in spans:
        expected = parent_chain(root.descendant_for_byte_range(start, end))
        assert [n.id for n in enclosing(root, start, end)] == [n.id for n in expected]


def test_descendant_index_names_every_node_of_a_tree() -> None:
    tree = parse_text("python", b"def f(x):\n    return [x, (x,), {x: x}]\n")
    nodes = list(preorder(tree))
    assert len(nodes) == tree.root_node.descendant_count
    assert [descendant_index(tree, node) for node in nodes] == list(range(len(nodes)))


def test_lineage_of_a_node_outside_the_tree_is_an_error() -> None:
    one = parse_text("python", b"x = 1\n")
    other = parse_text("python", b"def g():\n    pass\n\n\ny = [1, 2]\n")
    deep = other.root_node.descendant_for_byte_range(30, 30)
    assert deep is not None
    with pytest.raises(LookupError):
        lineage(one.root_node, deep)


def test_a_chain_20000_levels_deep_is_complete() -> None:
    text = ("x = " + "(" * 20_000 + "1" + ")" * 20_000 + "\n").encode()
    tree = parse_text("python", text)
    chain = enclosing(tree.root_node, 20_004)
    assert chain[0].type == "integer" and chain[-1] == tree.root_node
    assert len(chain) > 20_000
