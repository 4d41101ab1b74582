"""String expressions' values (``python_values.value_of``): a ``+`` chain is read as one step over its operands.

The reference below reads sums as they nest (``a + b + c`` is ``(a + b) + c``): a sum of two parts that are not S
is not S, and a part that is not S reads as ``{its source}``. The chain's one step must give the same text.
"""

from __future__ import annotations

import itertools

import pytest
from tree_sitter import Node

from tether_lsp.handlers.playground import python_values
from tether_lsp.handlers.playground.python_values import source, value_of
from tether_lsp.server.syntax import parse_text


def expression(code: str) -> Node:
    """The right-hand side of ``x = code``."""
    tree = parse_text("python", f"x = {code}\n".encode())
    right = tree.root_node.children[0].children[0].child_by_field_name("right")
    assert right is not None
    return right


def nested(node: Node) -> str | None:
    """The value as the nested sums read it, one ``+`` at a time."""
    if node.type == "binary_operator" and source(node.child_by_field_name("operator")) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        assert left is not None and right is not None
        values = nested(left), nested(right)
        if values == (None, None):
            return None
        return "".join(
            v if v is not None else "{" + source(n) + "}" for n, v in zip((left, right), values, strict=True)
        )
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return nested(node.named_children[0])
    return value_of(node)


PARTS = ['"a"', "name", "f(x)", "'b{c}'", '"{{d}}".format(e=1)', "(g + 'h')", "(i + j)", "k.l"]


def test_every_chain_of_up_to_four_parts_reads_as_its_nested_sums() -> None:
    for parts in (p for n in (1, 2, 3, 4) for p in itertools.product(PARTS[:5], repeat=n)):
        node = expression(" + ".join(parts))
        assert value_of(node) == nested(node), parts


@pytest.mark.parametrize("code", ["name + other + 'x' + more", "(a + b) + (c + 'd')", "'a' + (b + (c + 'd'))"])
def test_parenthesised_and_right_nested_sums_read_as_nested(code: str) -> None:
    node = expression(code)
    assert value_of(node) == nested(node)


@pytest.mark.parametrize("code", [" + ".join(PARTS), " + ".join(reversed(PARTS)), "a + b + c + d"])
def test_mixed_chains_read_as_nested(code: str) -> None:
    node = expression(code)
    assert value_of(node) == nested(node)


def test_a_long_chain_is_one_step_each_operand_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """5,000 strings added: before, each ``+`` was a step of its own whose value copied the text so far (a second
    and more for 110 KB); now the chain's operands are joined once."""
    count = 5_000
    node = expression(" + ".join(['"tell the user hello"'] * count))
    expanded: list[str] = []
    expand = python_values._expand

    def counted(n: Node) -> object:
        expanded.append(n.type)
        return expand(n)

    monkeypatch.setattr(python_values, "_expand", counted)
    assert value_of(node) == "tell the user hello" * count
    assert expanded.count("binary_operator") == 1 and expanded.count("string") == count
