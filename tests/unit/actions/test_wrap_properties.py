"""wrap / unwrap properties on code no one here wrote (standard library modules, plus a tabbed and a CRLF
sample): every result parses with no error node; the wrapper's body has exactly the original statements'
``ast`` and nothing else moved; wrap then unwrap gives the original ``ast`` back; unwrapping a call or a pair
of parentheses gives the expected ``ast`` (the call replaced by its argument, the same tree)."""

from __future__ import annotations

import ast
import contextlib
import inspect
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator

import pytest
from tree_sitter import Node

from tether_lsp.handlers.actions.model import ActionRefused, Outcome, applied
from tether_lsp.handlers.actions.unwrap import unwrap
from tether_lsp.handlers.actions.wrap import wrap
from tether_lsp.handlers.actions.wrap_targets import EXPRESSIONS, binding_reason
from tether_lsp.server.syntax import parse_text

HOLE = "WRAPPED_HOLE"
#: Statements tried per file and wrapper: each try parses the whole file a few times.
SAMPLE = 25

TABBED = (
    'class Café:\n\t"""Docstring\n    with its own indentation."""\n\n\tdef m(self, x):\n'
    "\t\tif x:  # note\n\t\t\ty = (x +\n\t\t\t\t1)\n\t\t\treturn f'{y!r} 東京'\n"
    "\t\tfor i in range(3):\n\t\t\tprint(i)\n\t\telse:\n\t\t\tpass\n\t\treturn -(x ** 2)\n"
)


def _corpus() -> dict[str, bytes]:
    files = {m.__name__: inspect.getsource(m).encode() for m in (textwrap, contextlib)}
    files["tabbed"] = TABBED.encode()
    files["crlf"] = files["textwrap"].replace(b"\n", b"\r\n")
    return files


CORPUS = _corpus()


class _FlatBooleans(ast.NodeTransformer):
    """``a and b and c`` as Python reads it, whatever the nesting: tree-sitter nests it to the left, so a call
    put around ``a and b`` reads back as ``BoolOp(BoolOp(a, b), c)``, the same meaning."""

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        values: list[ast.expr] = []
        for value in node.values:
            if isinstance(value, ast.BoolOp) and type(value.op) is type(node.op):
                values += value.values
            else:
                values.append(value)
        node.values = values
        return node


def dump(source: bytes) -> str:
    return ast.dump(ast.parse(source))


def walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack += reversed(current.children)


def parses_clean(text: bytes) -> bool:
    """No ERROR and no MISSING node (tree-sitter counts both in ``has_error``)."""
    return not parse_text("python", text).root_node.has_error


def statements(source: bytes) -> list[Node]:
    root = parse_text("python", source).root_node
    return [
        n for n in walk(root) if n.parent is not None and n.parent.type in ("block", "module") and n.type != "comment"
    ]


def is_hole(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Name) and node.id == HOLE


def is_wrapper(node: ast.AST) -> bool:
    if isinstance(node, ast.If):
        return is_hole(node.test)
    if isinstance(node, ast.With):
        return is_hole(node.items[0].context_expr)
    return isinstance(node, ast.Try) and bool(node.handlers) and is_hole(node.handlers[0].type)


class _Flatten(ast.NodeTransformer):
    """Put each wrapper's body where the wrapper is: what the tree was before wrapping."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and any(isinstance(v, ast.stmt) and is_wrapper(v) for v in value):
                flat: list[ast.AST] = []
                for item in value:
                    is_one = isinstance(item, (ast.If, ast.With, ast.Try)) and is_wrapper(item)
                    flat += item.body if isinstance(item, (ast.If, ast.With, ast.Try)) and is_one else [item]
                setattr(node, field, flat)
        return node


class _Unwrapped(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        return node.args[0] if is_hole(node.func) else node


def unwrapped_dump(text: bytes, transformer: ast.NodeTransformer) -> str:
    return ast.dump(_FlatBooleans().visit(transformer.visit(ast.parse(text))))


def enclosing(root: Node, span: tuple[int, int], kinds: tuple[str, ...]) -> Node:
    node = root.descendant_for_byte_range(*span)
    while node is not None and node.type not in kinds:
        node = node.parent
    assert node is not None
    return node


def roundtrip(text: bytes, outcome: Outcome, kinds: tuple[str, ...]) -> bytes:
    """``text`` (a wrap's result) with each wrapper unwrapped again, last first so offsets hold."""
    for span in sorted(outcome.produced, reverse=True):
        tree = parse_text("python", text)
        back = unwrap(text, tree, enclosing(tree.root_node, span, kinds))
        text = applied(text, back.replaces)
    return text


@pytest.mark.parametrize("wrapper", ["try", "if", "with"])
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_wrapping_each_statement_keeps_it_and_unwraps_back(name: str, wrapper: str) -> None:
    source = CORPUS[name]
    original = dump(source)
    counts: Counter[str] = Counter()
    kinds = ("try_statement",) if wrapper == "try" else (f"{wrapper}_statement",)
    found = statements(source)
    for statement in found[:: max(1, len(found) // SAMPLE)]:
        tree = parse_text("python", source)
        node = tree.root_node.descendant_for_byte_range(statement.start_byte, statement.end_byte)
        while node is not None and (node.start_byte, node.end_byte, node.type) != (
            statement.start_byte,
            statement.end_byte,
            statement.type,
        ):
            node = node.parent
        assert node is not None
        try:
            outcome = wrap(source, tree, [node], wrapper, placeholder=HOLE)
        except ActionRefused as refused:
            counts[f"refused: {refused.reason}"] += 1
            continue
        text = applied(source, outcome.replaces)
        assert parses_clean(text), text.decode()
        assert [text[s:e] for s, e in outcome.produced] == [HOLE.encode()]
        assert unwrapped_dump(text, _Flatten()) == original, statement.text
        back = roundtrip(text, outcome, kinds)
        assert dump(back) == original, back.decode()
        counts["same text" if back == source else "same ast"] += 1
    assert counts["same text"] + counts["same ast"] >= min(SAMPLE, len(found)) * 3 // 4, counts
    refusals = {k: v for k, v in counts.items() if k.startswith("refused")}
    assert set(refusals) <= {"refused: it shares its line with other code; put it on a line of its own first"}, counts
    assert sum(refusals.values()) <= counts["same text"] // 20, counts


def _parent_type(node: Node) -> str:
    return node.parent.type if node.parent is not None else ""


def expressions(source: bytes) -> list[Node]:
    root = parse_text("python", source).root_node
    return [
        n
        for n in walk(root)
        if n.is_named
        and n.type in EXPRESSIONS
        and binding_reason(n) is None
        and _parent_type(n) != "concatenated_string"
    ]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_wrapping_expressions_in_a_call_and_back(name: str) -> None:
    source = CORPUS[name]
    original = dump(source)
    found = expressions(source)
    tree = parse_text("python", source)
    sample = [n for n in found if not (n.type == "generator_expression" and _parent_type(n) == "call")][::3]
    outcome = wrap(source, tree, sample, "call", placeholder=HOLE)
    text = applied(source, outcome.replaces)
    assert parses_clean(text)
    assert len(outcome.produced) == len(sample) > (5 if name == "tabbed" else 100)
    assert unwrapped_dump(text, _Unwrapped()) == ast.dump(_FlatBooleans().visit(ast.parse(source)))
    assert dump(roundtrip(text, outcome, ("call",))) == original


def _each(source: bytes, kind: str, check: Callable[[bytes, Node], str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    tree = parse_text("python", source)
    for node in walk(tree.root_node):
        if node.type == kind:
            counts[check(source, node)] += 1
    return counts


def _parentheses(source: bytes, node: Node) -> str:
    tree = parse_text("python", source)
    try:
        outcome = unwrap(source, tree, node)
    except ActionRefused as refused:
        inner = node.named_children[0] if node.named_children else node
        bare = (
            source[: node.start_byte]
            + b" "
            + source[inner.start_byte : inner.end_byte]
            + b" "
            + source[node.end_byte :]
        )
        with contextlib.suppress(SyntaxError):
            if dump(bare) == dump(source):
                return "refused though not needed"
        return "refused: " + refused.reason.split(":")[0]
    text = applied(source, outcome.replaces)
    assert parses_clean(text)
    assert dump(text) == dump(source), text[outcome.produced[0][0] - 40 : outcome.produced[0][1] + 40]
    return "dropped"


def _call(source: bytes, node: Node) -> str:
    tree = parse_text("python", source)
    try:
        outcome = unwrap(source, tree, node)
    except ActionRefused:
        return "refused"
    text = applied(source, outcome.replaces)
    assert parses_clean(text)
    assert dump(text) == _call_replaced(source, node), text[outcome.produced[0][0] - 40 : outcome.produced[0][1] + 40]
    return "unwrapped"


def _call_replaced(source: bytes, call: Node) -> str:
    where = (call.start_point.row + 1, call.start_point.column, call.end_point.row + 1, call.end_point.column)

    class Replace(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset) == where:
                return node.args[0]
            return node

    return ast.dump(Replace().visit(ast.parse(source)))


def test_unwrapping_parentheses_keeps_the_tree() -> None:
    counts: Counter[str] = Counter()
    for source in CORPUS.values():
        counts += _each(source, "parenthesized_expression", _parentheses)
    assert counts["dropped"] > 0, counts
    assert counts["refused though not needed"] <= counts["dropped"] // 10, counts


@pytest.mark.parametrize("name", ["textwrap", "tabbed", "crlf"])
def test_parentheses_put_around_an_expression_come_off_again(name: str) -> None:
    """Every expression that stands bare stands bare again: parentheses put around it are dropped (not
    refused) and the text is the original's."""
    source = CORPUS[name]
    counts: Counter[str] = Counter()
    found = [n for n in expressions(source) if not (n.type == "generator_expression" and _parent_type(n) == "call")]
    for node in found[:: max(1, len(found) // 150)]:
        text = (
            source[: node.start_byte] + b"(" + source[node.start_byte : node.end_byte] + b")" + source[node.end_byte :]
        )
        tree = parse_text("python", text)
        parentheses = tree.root_node.descendant_for_byte_range(node.start_byte, node.end_byte + 2)
        assert parentheses is not None and parentheses.type == "parenthesized_expression", text.decode()
        try:
            outcome = unwrap(text, tree, parentheses)
        except ActionRefused:
            counts[f"refused {node.type} in {_parent_type(node)}"] += 1
            continue
        assert applied(text, outcome.replaces) == source
        counts["dropped"] += 1
    assert counts["dropped"] >= sum(counts.values()) * 95 // 100, counts


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_unwrapping_a_call_keeps_its_argument(name: str) -> None:
    counts = _each(CORPUS[name], "call", _call)
    assert counts["unwrapped"] > (1 if name == "tabbed" else 10), counts
