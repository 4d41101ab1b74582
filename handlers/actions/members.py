"""From a cursor node to the member an action works on, by language."""

from __future__ import annotations

import importlib

from tree_sitter import Node

from .model import ActionRefused, Member
from .python_members import python_member


def member_of(language: str, source: bytes, node: Node, field: str = "targets[0]") -> Member:
    """The member ``node`` stands for in ``source`` (climbing to the nearest ancestor that is one);
    ActionRefused naming ``field`` when there is none or the language has no members."""
    if language == "python":
        return python_member(source, node, field)
    if language == "yaml":
        yaml_members = importlib.import_module(f"{__package__}.yaml_members")  # the YAML helper's module
        member: Member = yaml_members.yaml_member(source, node, field)
        return member
    raise ActionRefused(field, f"structural actions do not support {language!r} documents")
