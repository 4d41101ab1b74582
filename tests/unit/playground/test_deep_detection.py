"""Prompt detection on hostile nesting: the prompt is found, and finding it costs the nesting's size, not its square.

``node.parent`` walks down from the root each time, so asking it at every level of a 5,000-deep dict cost
seconds; the detectors ask :class:`server.nodes.Ancestors` (Python) or note parents on their one walk (YAML).
Nothing here times anything: a counter says how many levels the ancestor walk went down, and the sources are
checked to read no ``.parent``.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from tree_sitter import Node

from tests.helpers import EXAMPLES
from tether_lsp.handlers.playground import detect_python, detect_yaml, python_nodes
from tether_lsp.handlers.playground.engine import detect
from tether_lsp.server.nodes import Ancestors, lineage, preorder
from tether_lsp.server.syntax import parse_text

DEPTH = 5_000


def nested(opening: str, inner: str, closing: str, depth: int = DEPTH) -> str:
    return opening * depth + inner + closing * depth


#: name -> (language, text, the prompts' anchors)
DEEP = {
    "a dict of dicts": ("python", "PROMPT = " + nested('{"prompt": ', '"tell the user hello"', "}"), ["dict.prompt"]),
    "dicts under other keys": (
        "python",
        "X = " + nested('{"x": ', '{"prompt": "tell the user hello"}', "}"),
        ["dict.prompt"],
    ),
    "keyword arguments": ("python", "X = " + nested("f(prompt=", '"tell the user hello"', ")"), ["f(prompt=)"]),
    "chained assignments": ("python", "prompt_a = " * DEPTH + '"tell the user hello"', ["prompt_a"]),
    "constructor calls": ("python", "X = " + nested("Template(", '"tell the user hello"', ")"), ["Template()"]),
    "lists of messages": (
        "python",
        "X = " + nested('[{"role": "user", "content": "hello there"}, ', "1", "]", 1_000),
        ["X[0].content", *["dict[0].content"] * 999],
    ),
    "yaml flow mappings": (
        "yaml",
        "prompt: " + nested("{prompt: ", "tell the user hello", "}"),
        ["prompt" + ".prompt" * DEPTH],
    ),
    "yaml messages": (
        "yaml",
        "x: " + nested("{role: user, content: ", "tell the user hello", "}"),
        ["x" + ".content" * DEPTH],
    ),
    "yaml lists under prompt keys": (
        "yaml",
        "prompt: " + nested("[{prompt: ", "tell the user hello", "}]"),
        ["prompt" + "[0].prompt" * DEPTH],
    ),
}


@pytest.mark.parametrize("name", list(DEEP))
def test_deep_nesting_is_detected_walking_down_each_level_at_most_once(name: str) -> None:
    language, text, anchors = DEEP[name]
    data = text.encode()
    tree = parse_text(language, data)
    steps = 0
    push = Ancestors._push

    def counted(self: Ancestors, node: Node) -> None:
        nonlocal steps
        steps += 1
        push(self, node)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Ancestors, "_push", counted)
        found = detect(language, tree, data)
    assert [p.anchor for p in found] == anchors
    assert all("tell the user hello" in p.content or p.content == "hello there" for p in found)
    assert steps <= tree.root_node.descendant_count  # each node walked down to once at most


def test_nested_candidates_are_not_copied_out_whole_at_each_level() -> None:
    """The memo's key is a node's source: only nodes up to MEMO_BYTES are keyed (each level of
    ``f(prompt=f(prompt=…))`` was: 45 KB copied at the top, 5,000 times in all)."""
    _, text, _ = DEEP["keyword arguments"]
    data = text.encode()
    detect_python._decoded.clear()
    detect("python", parse_text("python", data), data)
    assert detect_python._decoded
    assert max(len(source) for _, source in detect_python._decoded) <= detect_python.MEMO_BYTES


@pytest.mark.parametrize("module", [detect_python, python_nodes, detect_yaml], ids=["python", "python nodes", "yaml"])
def test_the_detectors_never_ask_a_node_for_its_parent(module: object) -> None:
    tree = ast.parse(Path(str(getattr(module, "__file__", ""))).read_text(encoding="utf-8"))
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}  # ancestors.parent(node)
    asked = sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "parent" and id(node) not in called
    )
    assert asked == [], f"lines reading .parent: {asked}"


SAMPLES = {
    "examples": ("python", (EXAMPLES / "prompts.py").read_text(encoding="utf-8")),
    "errors": ("python", "def broken(:\n    if x\n        return )\nx = [1, (2\n"),
    "empty nodes": ("python", "def f(:\n    pass\nclass\n"),
    "same spans": ("python", "x = 1\n(y)\nz = w = ((1))\n"),
    "yaml": ("yaml", "a: 1\nb:\n  - c: [1, {d: 'é'}]\n  - 🎉\n"),
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_ancestors_are_tree_sitters_parents_in_any_order(name: str) -> None:
    language, text = SAMPLES[name]
    tree = parse_text(language, text.encode())
    root, nodes = tree.root_node, list(preorder(tree))
    shuffled = nodes[:]
    random.Random(7).shuffle(shuffled)
    for order in (nodes, shuffled, nodes[::-1]):
        ancestors = Ancestors(root)
        for node in order:
            assert ancestors.parent(node) == node.parent, node
            assert ancestors.chain(node)[::-1] == lineage(root, node)
            grandparent = node.parent.parent if node.parent is not None else None
            assert ancestors.parent(node, 2) == grandparent


def test_every_node_of_a_deep_nesting_asked_in_document_order_walks_it_once() -> None:
    text = nested("[", "1", "]")
    tree = parse_text("python", text.encode())
    ancestors, nodes, same_span = Ancestors(tree.root_node), list(preorder(tree)), 0
    for node in nodes:
        chain = ancestors.chain(node)
        assert chain[-1] == node
        same_span += len(chain) > 1 and chain[-2].byte_range == node.byte_range
    # every node but the root walked down to once, and again after a node spanning the same bytes as its parent
    assert ancestors.steps <= len(nodes) - 1 + same_span
