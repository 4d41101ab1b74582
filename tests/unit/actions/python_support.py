"""Python actions' test support: find a member by a marker in the text, run an action, read the result."""

from __future__ import annotations

from tree_sitter import Node

from tether_lsp.handlers.actions import actions
from tether_lsp.handlers.actions.members import member_of
from tether_lsp.handlers.actions.model import Member, Outcome, applied
from tether_lsp.server.syntax import parse_text


def root(source: bytes) -> Node:
    return parse_text("python", source).root_node


def member_at(source: bytes, marker: str, nth: int = 0) -> Member:
    """The member holding the ``nth`` occurrence of ``marker`` (the smallest named node covering it, climbing)."""
    at = -1
    for _ in range(nth + 1):
        at = source.index(marker.encode(), at + 1)
    node = root(source).named_descendant_for_byte_range(at, at + len(marker.encode()))
    assert node is not None
    return member_of("python", source, node)


def has_error(source: bytes) -> bool:
    return root(source).has_error


def act(text: str, action: str, *markers: str, after: bool = True, keep: bool = False, step: int = 1) -> str:
    """``text`` after ``action`` on the members at ``markers`` (for move: the last marker is the destination)."""
    return result(text, action, *markers, after=after, keep=keep, step=step)[0]


def result(
    text: str, action: str, *markers: str, after: bool = True, keep: bool = False, step: int = 1
) -> tuple[str, list[str]]:
    """The text after the action and the texts of its produced spans."""
    source = text.encode()
    members = [member_at(source, m) for m in markers]
    outcome = run(source, action, members, after=after, keep=keep, step=step)
    out = applied(source, outcome.replaces)
    return out.decode(), [out[a:b].decode() for a, b in outcome.produced]


def run(
    source: bytes, action: str, members: list[Member], after: bool = True, keep: bool = False, step: int = 1
) -> Outcome:
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
    if action == "insert":
        return actions.insert_empty(source, members[0], after)
    raise ValueError(action)
