"""Applying one selector: validate, resolve cursor ids, run, de-duplicate and sort (docs/selectors.md, "The model").

Pure: no pygls. The LSP edge (``lsp.py``) hands in a snapshot's tree and id space and converts the
resulting byte spans to ranges.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Tree

from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.nodes import NodeIdSpace

from .index import TreeIndex
from .kinds import KindTable
from .vocabulary import SELECTORS, Context, RegexLimits, Selector, parse_args


@dataclass(frozen=True)
class Validated:
    selector: Selector
    args: tuple[Any, ...]
    limits: RegexLimits = field(default_factory=RegexLimits)


def validate(name: str, args: Sequence[Any], limits: RegexLimits = RegexLimits()) -> Validated:
    """Check the selector name and its arguments before anything else (whatever the document)."""
    selector = SELECTORS.get(name)
    if selector is None:
        raise InvalidParams(
            "selector",
            f"unknown selector {name!r}",
            kind="unknownSelector",
            selector=name,
            available=sorted(SELECTORS),
        )
    return Validated(selector, parse_args(selector, args, limits), limits)


def resolve(ids: NodeIdSpace, cursor_ids: Sequence[int]) -> list[int]:
    """Cursor ids -> pre-order indices: duplicates removed, stale ids dropped, document order.

    ``[]`` means the root; a non-empty list whose ids are all stale resolves to nothing.
    """
    if not cursor_ids:
        return [0]
    return sorted({node_id - ids.base for node_id in cursor_ids if ids.contains(node_id)})


def run(
    validated: Validated,
    index: TreeIndex,
    table: KindTable,
    tree: Tree,
    cursors: Sequence[int],
    to_offset: Callable[[int, int], int],
) -> list[int]:
    """Apply the selector to the cursors; returns sorted, unique pre-order indices."""
    selector, args = validated.selector, validated.args
    if selector.name == "selectByType" and not table.has_type(args[0]):
        raise InvalidParams(
            "args[0]",
            f"{args[0]!r} is not a named node type of the {table.name} grammar",
            kind="invalidArgs",
            selector=selector.name,
        )
    budget = validated.limits.budget_s
    ctx = Context(index, table, tree, to_offset, selector.name, time.monotonic() + budget, budget)
    if selector.list_level:
        out = set(selector.run(ctx, list(cursors), *args))
    else:
        out = {node for c in cursors for node in selector.run(ctx, c, *args)}
    return sorted(out)
