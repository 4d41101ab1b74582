"""Prompts in Python, on the tree-sitter-python tree: patterns P1–P5 of PLAYGROUND.md.

A prompt's value S is a string literal (not bytes), an implicit concatenation, a parenthesised S, a ``+``
chain with at least one S, or ``textwrap.dedent(S)`` / ``inspect.cleandoc(S)``. Docstrings, dict keys and
``role`` values are never prompts: only assignment values, keyword-argument values and dict values are looked at.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node, Query, QueryCursor

from tether_lsp.server.syntax import language_by_name

from . import text as decode
from .model import DEFAULT_KEYWORDS, Prompt

PROMPT_NAME = re.compile(r"prompt", re.IGNORECASE)
DEDENT = {"textwrap.dedent": decode.dedent, "dedent": decode.dedent}
CLEANDOC = {"inspect.cleandoc": decode.cleandoc, "cleandoc": decode.cleandoc}
MARK = "@prompt"


def _text(node: Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", errors="replace")


def value_of(node: Node) -> str | None:
    """The decoded text of a string expression S, or None when ``node`` is not one."""
    kind = node.type
    if kind == "string":
        literal = decode.python_literal(_text(node))
        return None if literal is None else literal[0]
    if kind == "concatenated_string":
        parts = [value_of(child) for child in node.named_children]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return value_of(node.named_children[0])
    if kind == "binary_operator" and _text(node.child_by_field_name("operator")) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        a, b = value_of(left), value_of(right)
        if a is None and b is None:
            return None
        return (a if a is not None else "{" + _text(left) + "}") + (b if b is not None else "{" + _text(right) + "}")
    if kind == "call":
        function = _text(node.child_by_field_name("function")).replace(" ", "")
        transform = DEDENT.get(function) or CLEANDOC.get(function)
        args = node.child_by_field_name("arguments")
        if transform is not None and args is not None and args.named_child_count == 1:
            inner = value_of(args.named_children[0])
            return None if inner is None else transform(inner)
    return None


_decoded: dict[tuple[str, bytes], tuple[str, tuple[str, ...]] | None] = {}


def _prompt(anchor: str, node: Node) -> Prompt | None:
    """A prompt at ``node``; decoding is memoised by the literal's text (most prompts do not change per edit)."""
    key = (node.type, node.text or b"")
    if key not in _decoded:
        if len(_decoded) > 20_000:
            _decoded.clear()
        content = value_of(node)
        usable = content is not None and len("".join(content.split())) >= 3
        _decoded[key] = (content, tuple(decode.variables(content))) if usable and content is not None else None
    found = _decoded[key]
    if found is None:
        return None
    return Prompt(anchor, found[0], (node.start_byte, node.end_byte), found[1])


def _scope(node: Node) -> str:
    """``Class.method().`` for a node inside definitions; empty at module level."""
    parts = []
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_definition", "class_definition"):
            name = _text(parent.child_by_field_name("name"))
            parts.append(name + "()" if parent.type == "function_definition" else name)
        parent = parent.parent
    return "".join(p + "." for p in reversed(parts))


def _target(node: Node | None) -> str | None:
    """The name an assignment binds: ``x`` or the last part of ``self.x``."""
    if node is None:
        return None
    if node.type == "identifier":
        return _text(node)
    if node.type == "attribute":
        return _text(node.child_by_field_name("attribute"))
    return None


def _marked(statement: Node) -> bool:
    """A ``# @prompt`` comment right above the statement (blank lines allowed) or trailing on its line."""
    before = statement.prev_sibling
    if before is not None and before.type == "comment" and MARK in _text(before):
        return True
    after = statement.next_sibling
    return (
        after is not None
        and after.type == "comment"
        and after.start_point.row == statement.end_point.row
        and MARK in _text(after)
    )


def _container(node: Node) -> str:
    """What holds a dict or list: the assigned name or the keyword argument, else a generic word."""
    parent = node.parent
    if parent is not None and parent.type == "keyword_argument":
        return _text(parent.child_by_field_name("name"))
    if parent is not None and parent.type == "assignment":
        return _target(parent.child_by_field_name("left")) or "dict"
    return "dict"


def _key(pair: Node) -> str | None:
    key = pair.child_by_field_name("key")
    if key is None or key.type != "string":
        return None
    literal = decode.python_literal(_text(key))
    return None if literal is None else literal[0]


_QUERY: Query | None = None


def _candidates(root: Node) -> dict[str, list[Node]]:
    """Assignments, keyword arguments and dicts, found by a tree-sitter query (in C, not a Python walk)."""
    global _QUERY
    if _QUERY is None:
        _QUERY = Query(language_by_name("python").language, "(assignment) @a (keyword_argument) @k (dictionary) @d")
    return QueryCursor(_QUERY).captures(root)


def detect(root: Node, keywords: Sequence[str] = DEFAULT_KEYWORDS) -> list[Prompt]:
    """Every prompt of a module, in document order."""
    nodes = _candidates(root)
    assignments = nodes.get("a", [])
    marked: set[tuple[str, str]] = set()  # (scope, name) of P2 names: a prompt name in that scope
    for node in assignments:
        name = _target(node.child_by_field_name("left"))
        statement = node.parent
        if name and statement is not None and statement.type == "expression_statement" and _marked(statement):
            marked.add((_scope(node), name))
    found: list[Prompt] = []
    for node in [*assignments, *nodes.get("k", []), *nodes.get("d", [])]:
        found += _at(node, keywords, marked)
    return sorted(found, key=lambda p: p.span)


def _at(node: Node, keywords: Sequence[str], marked: set[tuple[str, str]]) -> list[Prompt]:
    kind = node.type
    if kind == "assignment":
        name, right = _target(node.child_by_field_name("left")), node.child_by_field_name("right")
        if name and right is not None and (PROMPT_NAME.search(name) or (_scope(node), name) in marked):
            prompt = _prompt(_scope(node) + name, right)
            return [prompt] if prompt else []
    elif kind == "keyword_argument":
        name, value = _text(node.child_by_field_name("name")), node.child_by_field_name("value")
        if value is not None and name in keywords:
            call = node.parent.parent if node.parent is not None else None
            callee = _text(call.child_by_field_name("function")).replace(" ", "") if call is not None else "call"
            prompt = _prompt(f"{callee}({name}=)", value)
            return [prompt] if prompt else []
    elif kind == "dictionary":
        return _in_dict(node, keywords)
    return []


def _in_dict(node: Node, keywords: Sequence[str]) -> list[Prompt]:
    pairs = {k: p for p in node.named_children if p.type == "pair" and (k := _key(p)) is not None}
    out = []
    if "role" in pairs and "content" in pairs:  # P4: a chat message
        value = pairs["content"].child_by_field_name("value")
        holder = node.parent
        if value is not None and holder is not None and holder.type == "list":
            index = [c.id for c in holder.named_children].index(node.id)
            prompt = _prompt(f"{_container(holder)}[{index}].content", value)
        else:
            prompt = _prompt(f"{_container(node)}.content", value) if value is not None else None
        return [prompt] if prompt else []
    for key, pair in pairs.items():  # P5
        value = pair.child_by_field_name("value")
        if value is not None and (key in keywords or PROMPT_NAME.search(key)):
            prompt = _prompt(f"{_container(node)}.{key}", value)
            if prompt:
                out.append(prompt)
    return out
