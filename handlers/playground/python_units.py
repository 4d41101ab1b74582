"""The units of a Python module for detection (:mod:`.units`): its top-level statements, and the module-wide
context the rules read across them.

What a Python rule reads outside the statement it looks at: import aliases (``from m import Template as T``),
module constants (a chat message naming ``SYSTEM``), the names a ``# @prompt`` comment marked (in any statement), and
the comments beside a top-level statement (its own ``# @prompt`` mark). The first three are the :class:`Context`,
which notes each question a unit asks; the comments beside a statement are part of its key (:func:`unit_keys`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node

from .python_nodes import Scopes
from .python_values import source, value_of
from .units import Lookup

MARK = "@prompt"


@dataclass(frozen=True)
class Adds:
    """What one top-level statement adds to the module-wide context, in document order."""

    aliases: tuple[tuple[str, str], ...] = ()  # alias -> imported name's last part
    constants: tuple[tuple[str, str], ...] = ()  # module-level NAME = S, with S decoded
    marked: frozenset[tuple[str, str]] = frozenset()  # (scope, name) of P2 names


@dataclass
class Context:
    """The module-wide facts (what every unit adds, later ones winning), and the questions the unit being read asks
    of them (``noted``)."""

    aliases: dict[str, str] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    marked: set[tuple[str, str]] = field(default_factory=set)
    noted: list[Lookup] | None = None

    def add(self, adds: Adds) -> None:
        self.aliases.update(adds.aliases)
        self.constants.update(adds.constants)
        self.marked |= adds.marked

    def answer(self, question: str, args: tuple[Any, ...]) -> Any:
        if question == "constant":
            return self.constants.get(args[0])
        if question == "alias":
            return self.aliases.get(args[0], args[0])
        if question == "marked":
            return args in self.marked
        return bool(self.marked)  # "any marked"

    def ask(self, question: str, *args: Any) -> Any:
        got = self.answer(question, args)
        if self.noted is not None:
            self.noted.append((question, args, got))
        return got


def target(node: Node | None) -> str | None:
    """The name an assignment binds: ``x`` or the last part of ``self.x``."""
    if node is None:
        return None
    if node.type == "identifier":
        return source(node)
    if node.type == "attribute":
        return source(node.child_by_field_name("attribute"))
    return None


def marked(statement: Node) -> bool:
    """A ``# @prompt`` comment right above the statement (blank lines allowed) or trailing on its line."""
    after = statement.next_sibling
    return _mark(statement.prev_sibling) or (
        after is not None and after.start_point.row == statement.end_point.row and _mark(after)
    )


def adds_of(up: Scopes, nodes: dict[str, list[Node]]) -> Adds:
    """What a top-level statement (its candidate ``nodes``) adds to the context: its import aliases, its constant,
    its marked names."""
    aliases = []
    for node in nodes.get("i", []):
        imported, alias = node.child_by_field_name("name"), node.child_by_field_name("alias")
        if imported is not None and alias is not None:
            aliases.append((source(alias), source(imported).rsplit(".", 1)[-1]))
    constants, names = [], set()
    for node in nodes.get("a", []):
        name = target(node.child_by_field_name("left"))
        statement = up.parent(node)
        if not name or statement is None or statement.type != "expression_statement":
            continue
        if marked(statement):
            names.add((up.scope(node), name))
        right = node.child_by_field_name("right")
        block = up.parent(node, 2)
        if block is not None and block.type == "module" and right is not None:
            value = value_of(right)
            if value is not None:
                constants.append((name, value))
    return Adds(tuple(aliases), tuple(constants), frozenset(names))


def _mark(node: Node | None) -> bool:
    return node is not None and node.type == "comment" and MARK in source(node)


def unit_keys(units: list[Node]) -> list[Hashable]:
    """Each top-level statement's key: its kind, shape and bytes, and whether a ``# @prompt`` comment is right before
    it or trailing on its last line (what :func:`marked` reads of its siblings)."""
    keys: list[Hashable] = []
    for i, unit in enumerate(units):
        before = units[i - 1] if i > 0 else None
        after = units[i + 1] if i + 1 < len(units) else None
        trailing = after is not None and after.start_point.row == unit.end_point.row and _mark(after)
        keys.append((unit.type, unit.descendant_count, unit.has_error, unit.text, _mark(before), trailing))
    return keys
