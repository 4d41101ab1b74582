"""YAML actions' test support: find members, act through the Member protocol, and say what a YAML loader reads.

The loader is PyYAML's composer (a dev dependency): it keeps duplicate keys (a cloned entry) and expands aliases,
and ``shape`` turns its node graph into plain lists so an expected transformation can be written on it.
"""

from __future__ import annotations

from typing import Any

import yaml
from tree_sitter import Node

from tether_lsp.handlers.actions import actions
from tether_lsp.handlers.actions.model import Outcome, Replace, applied
from tether_lsp.handlers.actions.yaml_block import BLOCK_MEMBERS, BlockMember
from tether_lsp.handlers.actions.yaml_flow import FLOW_CONTAINERS, FlowMember
from tether_lsp.handlers.actions.yaml_members import YamlMember as YamlMember
from tether_lsp.handlers.actions.yaml_members import yaml_member
from tether_lsp.server.syntax import parse_text

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def root(source: bytes) -> Node:
    return parse_text("yaml", source).root_node


def member_at(source: bytes, marker: str, nth: int = 0) -> YamlMember:
    """The member holding the ``nth`` occurrence of ``marker`` (the node at its first byte, climbing)."""
    at = -1
    for _ in range(nth + 1):
        at = source.index(marker.encode(), at + 1)
    node = root(source).descendant_for_byte_range(at, at + 1)
    assert node is not None
    return yaml_member(source, node)


def all_members(source: bytes) -> list[YamlMember]:
    out: list[YamlMember] = []
    stack = [root(source)]
    while stack:
        node = stack.pop()
        if node.type in BLOCK_MEMBERS:
            out.append(BlockMember(source, node))
        parent = node.parent
        if parent is not None and parent.type in FLOW_CONTAINERS and node.is_named and node.type != "comment":
            out.append(FlowMember(source, node))
        stack.extend(reversed(node.children))
    return out


def removed(source: bytes, member: YamlMember) -> bytes:
    return applied(source, member.removal())


def cloned(source: bytes, member: YamlMember, after: bool = True) -> bytes:
    replace, _ = member.insertion(member.text_for(member, source), after)
    return applied(source, [replace])


def swapped(source: bytes, a: YamlMember, b: YamlMember) -> bytes:
    return applied(source, [Replace(*a.span, a.text_for(b, source)), Replace(*b.span, b.text_for(a, source))])


def parses_cleanly(source: bytes) -> bool:
    return not root(source).has_error


def shape(source: bytes) -> list[Any]:
    """Each document as plain values: ["seq", items], ["map", [[key, value]…]], ("scalar", tag, value)."""
    return [_plain(doc) for doc in yaml.compose_all(source.decode("utf-8"), Loader=_LOADER)]


def _plain(node: yaml.Node) -> Any:
    if isinstance(node, yaml.SequenceNode):
        return ["seq", [_plain(n) for n in node.value]]
    if isinstance(node, yaml.MappingNode):
        return ["map", [[_plain(k), _plain(v)] for k, v in node.value]]
    return ("scalar", node.tag, node.value)


def path_of(container: Node) -> tuple[int, list[tuple[int, str | None]]]:
    """Where ``container`` is in the loader's shape: its document's index and, from there, the index of each
    member on the way down with the side of a mapping entry it is in ("key", "value" or None)."""
    steps: list[tuple[int, str | None]] = []
    node = container
    while node.parent is not None and node.type != "document":
        parent = node.parent
        if parent.type in BLOCK_MEMBERS or (parent.type not in FLOW_CONTAINERS and _flow_member(parent)):
            side = _side(parent, container) if parent.type in ("block_mapping_pair", "flow_pair") else None
            if parent.type == "flow_pair" and parent.parent is not None and parent.parent.type == "flow_sequence":
                steps.append((0, side))  # a pair in [a: 1] is a mapping of its own
                side = None
            elif parent.parent is not None and parent.parent.type == "flow_mapping" and parent.type != "flow_pair":
                side = "key"  # {a, b}: a set's element is a key
            steps.append((_index(parent), side))
        node = parent
    documents = [c for c in node.parent.children if c.type == "document"] if node.parent is not None else [node]
    return documents.index(node), list(reversed(steps))


def _flow_member(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type in FLOW_CONTAINERS and node.is_named and node.type != "comment"


def _side(pair: Node, inner: Node) -> str:
    colon = next((c for c in pair.children if c.type == ":"), None)
    return "value" if colon is not None and inner.start_byte >= colon.end_byte else "key"


def _index(member: Node) -> int:
    parent = member.parent
    assert parent is not None
    kin = [c for c in parent.children if c.type in BLOCK_MEMBERS or _flow_member(c)]
    return next(i for i, c in enumerate(kin) if c.start_byte == member.start_byte)


def _collection(documents: list[yaml.Node], where: tuple[int, list[tuple[int, str | None]]]) -> list[Any]:
    """The loader's list of items or entries of the collection at ``where`` (edited in place: an alias sees it)."""
    doc, steps = where
    node = documents[doc]
    for index, side in steps:
        node = node.value[index]
        if side is not None:
            node = node[0] if side == "key" else node[1]
    return node.value


def expected_after(source: bytes, edit: Any, *members: YamlMember) -> list[Any]:
    """The loader's shape of ``source`` with ``edit(lists, indexes)`` applied to the members' collections."""
    documents = list(yaml.compose_all(source.decode("utf-8"), Loader=_LOADER))
    lists = [_collection(documents, path_of(m.parent)) for m in members]
    edit(lists, [_index(m.node) for m in members])
    return [_plain(d) for d in documents]


def act(text: str, action: str, *markers: str, after: bool = True, keep: bool = False, step: int = 1) -> str:
    """``text`` after an action of actions.py on the members at ``markers`` (move's last marker: the destination).
    A marker ``name@n`` is the n-th occurrence of ``name``."""
    source = text.encode()
    members = [member_at(source, *_marker(m)) for m in markers]
    return applied(source, run(source, action, members, after, keep, step).replaces).decode()


def _marker(marker: str) -> tuple[str, int]:
    name, _, nth = marker.partition("@")
    return name, int(nth or 0)


def run(source: bytes, action: str, members: list[Any], after: bool, keep: bool, step: int) -> Outcome:
    if action == "remove":
        return actions.remove(source, members)
    if action == "clone":
        return actions.clone(source, members, after)
    if action == "swap":
        return actions.swap(source, members[0], members[1])
    if action == "move":
        return actions.move(source, members[:-1], members[-1], after, keep)
    if action == "move_by":
        return actions.move_by(source, members[0], step)
    assert action == "insert_empty"
    return actions.insert_empty(source, members[0], after)
