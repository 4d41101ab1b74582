"""The data of replacement analysis: options, the logical unit of a completion, and the analysis result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tree_sitter import Node


@dataclass(frozen=True)
class Options:
    """What inline completion asks the model; per-request ``options`` override the settings."""

    enable_replacements: bool = True
    min_confidence: float = 0.6
    visual_diff_min_lines: int = 2
    visual_diff_min_confidence: float = 0.85


#: How likely a replace is, by the type of the unit, before the column and size adjustments.
BASE_CONFIDENCE = {
    "yaml-key-value-block": 0.9,
    "yaml-list-item": 0.85,
    "python-function": 0.95,
    "python-class": 0.95,
}


@dataclass(frozen=True)
class Unit:
    """What a completion defines: a YAML pair or list item, a Python function or class.

    ``identifier``: the key, the item's identity (its ``name`` or first pair) or the definition's name;
    ``column``: the indentation of the completion's first line in the document; ``decorated``: a Python
    definition that comes with its decorators.
    """

    type: str
    identifier: str
    column: int
    decorated: bool = False


@dataclass(frozen=True)
class Candidate:
    """An old unit that the completion may replace, and how it was found."""

    node: Node
    strategy: str
    reason: str


@dataclass(frozen=True)
class Analysis:
    """The decision, in document bytes. ``replace_span`` None means insert; ``edit_span`` is always set."""

    mode: str
    edit_span: tuple[int, int]
    new_text: str
    reason: str
    replace_span: tuple[int, int] | None = None
    confidence: float = 0.0
    show_visual_diff: bool = False
    replaced_lines: int = 0
    unit: Unit | None = None
    strategy: str | None = None
    warning: str | None = None  # accepting would leave the file broken: say so, do not offer it as acceptable


class Adapter(Protocol):
    """What the engine asks of a language (``python_adapter``, ``yaml_adapter``: modules that fit this)."""

    def incomplete(self, root: Node, cursor: int) -> str | None:
        """Why the cursor cannot start a new unit (inside a string, brackets…), or None."""

    def unit_of(self, root: Node, first_line: str, column: int) -> Unit | None:
        """The unit a completion defines (parsed on its own), or None when it defines none."""

    def positional(self, root: Node, text: bytes, cursor: int) -> Candidate | None:
        """The unit a blank cursor line stands for by position alone (YAML: ``key:`` above), or None."""

    def scope(self, root: Node, anchor: int, unit: Unit) -> Node | None:
        """The block that holds the cursor line by indentation, where siblings of ``unit`` are looked for."""

    def candidates(self, scope_node: Node, unit: Unit) -> list[Candidate]:
        """The units of ``scope_node`` that ``unit`` could replace."""

    def layout(self, node: Node) -> tuple[list[Node], int]:
        """The units of the block holding the old unit ``node``, in order, ``node`` (or its decorated statement)
        among them; and the blank lines the language's usual style puts between them, for a block that shows
        none of its own."""
