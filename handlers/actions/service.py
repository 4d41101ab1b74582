"""One structural action on plain values: the service both fronts call (the LSP glue and the agents' front convert
ids and ranges to nodes before, and replacements to their own edits after).

Why here and not in ``actions.py``: choosing the action by name, checking how many targets it takes, and a move
or bring into *another document* (the targets' removal in one text, their insertion in the other) are
orchestration; the actions themselves stay written once over members.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node, Tree

from . import actions
from .members import member_of
from .model import ActionRefused, Member, Outcome, Replace

#: Every action by its wire name; ``after`` applies to clone, move, bring and insert.
ACTIONS = ("remove", "clone", "swap", "move", "bring", "moveUp", "moveDown", "insert", "wrap", "unwrap")


@dataclass(frozen=True)
class Source:
    """One document as an action sees it: its language, bytes and tree."""

    language: str
    text: bytes
    tree: Tree


@dataclass(frozen=True)
class Request:
    action: str
    after: bool = True
    wrapper: str | None = None
    placeholder: str | None = None


def perform(source: Source, request: Request, targets: Sequence[Node], destination: Sequence[Node] = ()) -> Outcome:
    """The action on ``targets`` (and ``destination``, in the same document) as one outcome."""
    action = request.action
    if action not in ACTIONS:
        raise ActionRefused("action", f"unknown action {action!r}; one of {', '.join(ACTIONS)}")
    if not targets:
        raise ActionRefused("targets", "no target: the node ids are not in the current version, or none was given")
    if action == "wrap":
        from .wrap import wrap

        return wrap(source.text, source.tree, targets, request.wrapper or "", request.placeholder)
    if action == "unwrap":
        from .unwrap import unwrap

        _at_most_one(targets, "unwrap")
        return unwrap(source.text, source.tree, targets[0])
    members = [member_of(source.language, source.text, node, f"targets[{k}]") for k, node in enumerate(targets)]
    text = source.text
    if action == "remove":
        return actions.remove(text, members)
    if action == "clone":
        return actions.clone(text, members, request.after)
    if action in ("moveUp", "moveDown"):
        _at_most_one(targets, action)
        return actions.move_by(text, members[0], -1 if action == "moveUp" else 1)
    if action == "insert":
        _at_most_one(targets, action)
        return actions.insert_empty(text, members[0], request.after)
    places = [member_of(source.language, text, node, "destination") for node in destination]
    if action == "swap":
        pair = members + places
        if len(pair) != 2:
            raise ActionRefused("targets", f"swap takes two targets (or one and a destination), got {len(pair)}")
        return actions.swap(text, pair[0], pair[1])
    place = _one_destination(places)
    return actions.move(text, members, place, request.after, keep=action == "bring")


def perform_across(
    origin: Source, request: Request, targets: Sequence[Node], goal: Source, destination: Sequence[Node]
) -> tuple[Outcome | None, Outcome]:
    """``move`` or ``bring`` from one document into another: the origin's outcome (None for bring) and the
    goal's. Each target's text is re-indented for the destination's place; several targets keep their order."""
    if request.action not in ("move", "bring"):
        raise ActionRefused("destination", f"{request.action} acts inside one document; only move and bring cross")
    if origin.language != goal.language:
        raise ActionRefused("destination", f"cannot move {origin.language} code into a {goal.language} document")
    if not targets:
        raise ActionRefused("targets", "no target: the node ids are not in the current version, or none was given")
    members = [member_of(origin.language, origin.text, node, f"targets[{k}]") for k, node in enumerate(targets)]
    place = _one_destination([member_of(goal.language, goal.text, node, "destination") for node in destination])
    chosen = sorted({m.span: m for m in members}.values(), key=lambda m: m.span)
    if not request.after:
        chosen = chosen[::-1]  # each inserted right before the destination: the first one last keeps the order
    inserted: list[tuple[Replace, int, int]] = []
    for member in chosen:
        text = place.text_for(member, origin.text)
        replace, offset = place.insertion(text, request.after)
        inserted.append((replace, offset, len(text)))
    into = _joined(inserted, request.after)
    out = None if request.action == "bring" else actions.remove(origin.text, chosen)
    return (Outcome(out.replaces, ()) if out is not None else None), into


def _joined(inserted: list[tuple[Replace, int, int]], after: bool) -> Outcome:
    """Insertions at one point made one, in order; the produced spans are each target's own text."""
    first = inserted[0][0]
    if any(r.start != first.start or r.end != first.end for r, _, _ in inserted) or (
        len(inserted) > 1 and first.start != first.end
    ):
        raise ActionRefused(
            "destination", "these targets cannot be inserted at one place together; move them one at a time"
        )
    parts = inserted if after else inserted[::-1]
    text, produced = b"", []
    for replace, offset, length in parts:
        start = first.start + len(text) + offset
        produced.append((start, start + length))
        text += replace.text
    return Outcome((Replace(first.start, first.end, text),), tuple(produced))


def _one_destination(places: list[Member]) -> Member:
    if len(places) != 1:
        raise ActionRefused("destination", f"this action takes one destination, got {len(places)}")
    return places[0]


def _at_most_one(targets: Sequence[Node], action: str) -> None:
    if len(targets) != 1:
        raise ActionRefused("targets", f"{action} takes one target, got {len(targets)}")
