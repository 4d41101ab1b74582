"""Which Python member a cursor node stands for: the nearest ancestor (the node itself first) that is an
element of a delimited container or a line-based member of a block, a definition or a compound statement.

Why climb: selectors hand over what they matched (the name inside ``debug=True``, the ``function_definition``
inside its decorators); the action is about the member that holds it.
"""

from __future__ import annotations

from tree_sitter import Node

from .model import ActionRefused, Member
from .python_delimited import CONTAINERS, Delimited, DelimitedMember, elements_of, is_element
from .python_lines import LineMember, Lines, is_line_member, members_of


def python_member(source: bytes, node: Node, field: str = "targets[0]") -> Member:
    """The member ``node`` stands for; ActionRefused naming ``field`` when no ancestor is one."""
    current: Node | None = node
    while current is not None:
        parent = current.parent
        if parent is None:
            break
        if current.type == "comment":
            owner = _comment_owner(source, current, parent)
            if owner is not None:
                return owner
            current = parent
            continue
        if parent.type == "decorated_definition" and current.type != "decorator":
            current = parent  # a definition goes with its decorators
            continue
        if is_element(current):
            box = Delimited(source, parent)
            index = next(k for k, e in enumerate(elements_of(parent)) if e.id == current.id)
            return DelimitedMember(box, index)
        if is_line_member(current):
            lines = Lines(source, parent)
            index = next(k for k, m in enumerate(lines.members) if m.id == current.id)
            return LineMember(lines, index)
        current = parent
    raise ActionRefused(field, f"no argument, element, statement or other member holds this {node.type}")


def _comment_owner(source: bytes, comment: Node, parent: Node) -> Member | None:
    """The member a comment belongs to: a statement it sits above or at the end of, or the element it follows
    on the element's line."""
    start = comment.start_byte
    end = start + len(source[start : comment.end_byte].rstrip())  # a CRLF's \r may end a comment token
    if members_of(parent):
        lines = Lines(source, parent)
        for index in range(len(lines.members)):
            first, last = lines.span_of(index)
            if first <= start and end <= last:
                return LineMember(lines, index)
    if parent.type in CONTAINERS and elements_of(parent):
        box = Delimited(source, parent)
        for index, element in enumerate(box.elements):
            if element.start_byte <= start and end <= box.after(index):
                return DelimitedMember(box, index)
    return None
