"""YAML's members: which node a target is a member of, climbing from where a selector's cursor stands.

Why climb: a selector may give the scalar inside ``- a`` or the key of ``key: value``; the action is on the item
or the entry that holds it, the nearest one up. The members themselves are :mod:`yaml_block` (block sequences'
items and block mappings' entries, in any document of a stream) and :mod:`yaml_flow` (flow sequences' and
flow mappings' elements).
"""

from __future__ import annotations

from tree_sitter import Node

from .model import ActionRefused
from .yaml_block import BLOCK_MEMBERS, BlockMember
from .yaml_flow import FLOW_CONTAINERS, FlowMember

YamlMember = BlockMember | FlowMember


def yaml_member(source: bytes, node: Node, field: str = "targets[0]") -> YamlMember:
    """The item or entry ``node`` is, or is inside of (the nearest); refused when there is none."""
    at: Node | None = node
    while at is not None:
        if at.type in BLOCK_MEMBERS:
            return BlockMember(source, at)
        parent = at.parent
        if parent is not None and parent.type in FLOW_CONTAINERS and at.is_named and at.type != "comment":
            return FlowMember(source, at)
        at = parent
    raise ActionRefused(field, "not inside an item of a YAML sequence or an entry of a YAML mapping")
