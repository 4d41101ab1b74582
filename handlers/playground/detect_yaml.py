"""Prompts in YAML, on the tree-sitter-yaml tree: patterns Y1–Y3 and Y5 of PLAYGROUND.md.

A prompt is a string scalar (plain — not a number, boolean or null —, quoted, or a block scalar) that is the
value of a key matching ``/prompt/i`` (Y1), of a key in the keyword list (Y2), the ``content`` of a mapping
that also has ``role`` (Y3), or of any key under a ``# @prompt`` comment (Y5). An alias is not a prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from tree_sitter import Node

from . import text as decode
from .model import YAML_KEYS, Prompt

PROMPT_KEY = re.compile(r"prompt", re.IGNORECASE)
PAIRS = ("block_mapping_pair", "flow_pair")
MARK = "@prompt"


def _text(node: Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", errors="replace")


def scalar_of(node: Node | None) -> Node | None:
    """The scalar inside a value node (past block/flow wrappers and an ``&anchor``), if it is a string."""
    while node is not None and node.type in ("block_node", "flow_node"):
        node = next((c for c in node.named_children if c.type not in ("anchor", "tag")), None)
    if node is None:
        return None
    if node.type == "plain_scalar":
        inner = node.named_children[0] if node.named_children else None
        return node if inner is not None and inner.type == "string_scalar" else None
    return node if node.type in ("double_quote_scalar", "single_quote_scalar", "block_scalar") else None


def decoded(scalar: Node) -> str:
    raw = _text(scalar)
    if scalar.type == "double_quote_scalar":
        return decode.yaml_double_quoted(raw)
    if scalar.type == "single_quote_scalar":
        return decode.yaml_single_quoted(raw)
    if scalar.type == "block_scalar":
        return decode.yaml_block(raw)
    return " ".join(line.strip() for line in raw.split("\n"))  # a multi-line plain scalar folds


def key_of(pair: Node) -> str:
    key = scalar_of(pair.child_by_field_name("key"))
    return decoded(key).strip() if key is not None else _text(pair.child_by_field_name("key")).strip()


def _siblings(pair: Node) -> list[Node]:
    parent = pair.parent
    return [c for c in parent.named_children if c.type in PAIRS] if parent is not None else []


def _marked(pair: Node, text: bytes) -> bool:
    """``# @prompt`` on the lines right above the pair (blank lines allowed) or trailing on its key's line."""
    start = text.rfind(b"\n", 0, pair.start_byte) + 1
    line_end = text.find(b"\n", pair.start_byte)
    key = pair.child_by_field_name("key")
    if key is not None:
        after_key = text[key.end_byte : line_end if line_end >= 0 else len(text)]
        if b"#" in after_key and MARK.encode() in after_key.split(b"#", 1)[1]:
            return True
    while start > 0:
        prev_start = text.rfind(b"\n", 0, start - 1) + 1
        line = text[prev_start : start - 1].strip()
        if line.startswith(b"#"):
            return MARK.encode() in line
        if line:
            return False
        start = prev_start
    return False


def _path(pair: Node) -> str:
    """The key path of a pair: ``summarize.system``, ``messages[1].content``."""
    parts: list[str] = []
    node: Node | None = pair
    while node is not None and node.type != "document":
        if node.type in PAIRS:
            parts.append("." + key_of(node))
        elif node.type == "block_sequence_item" and node.parent is not None:
            items = [c.id for c in node.parent.named_children if c.type == "block_sequence_item"]
            parts.append(f"[{items.index(node.id)}]")
        elif node.type == "flow_node" and node.parent is not None and node.parent.type == "flow_sequence":
            items = [c.id for c in node.parent.named_children]
            parts.append(f"[{items.index(node.id)}]")
        node = node.parent
    return "".join(reversed(parts)).lstrip(".")


def _walk(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.named_children))


def detect(root: Node, text: bytes, keywords: Sequence[str] = YAML_KEYS) -> list[Prompt]:
    """Every prompt of a YAML stream, in document order."""
    documents = [c for c in root.named_children if c.type == "document"]
    many = len(documents) > 1
    found = []
    for index, document in enumerate(documents):
        for node in _walk(document):
            if node.type not in PAIRS:
                continue
            scalar = scalar_of(node.child_by_field_name("value"))
            if scalar is None:
                continue
            key = key_of(node)
            role_sibling = key == "content" and any(key_of(s) == "role" for s in _siblings(node))
            if not (PROMPT_KEY.search(key) or key in keywords or role_sibling or _marked(node, text)):
                continue
            content = decoded(scalar)
            if len("".join(content.split())) < 3:
                continue
            anchor = (f"{index}:" if many else "") + _path(node)
            found.append(
                Prompt(anchor, content, (scalar.start_byte, scalar.end_byte), tuple(decode.variables(content)))
            )
    return found
