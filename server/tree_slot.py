"""One version's tree as a snapshot holds it: built on first use, all at once or in slices, and refilled after the
parse cache dropped it (:mod:`server.syntax`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast

from tree_sitter import Tree

from .grammar_limits import TextOnly
from .nodes import NodeIdSpace

T = TypeVar("T")


@dataclass(frozen=True)
class Parsed:
    """What one parse produced: the tree and its ids, or why the text was not parsed."""

    tree: Tree | None
    ids: NodeIdSpace | None
    parse_ms: float = 0.0
    text_only: TextOnly | None = None


class TreeSlot:
    """One version's tree, built on first use (``build``); the cache may drop the tree under memory pressure
    and refill it on demand.

    Re-parsing the same bytes yields the same tree, node for node, so the refilled tree keeps the parse's
    node ids (its :class:`NodeIdSpace`) — an id a client holds stays valid.
    """

    __slots__ = ("_build", "_derived", "_parsed", "_refill", "_slicing", "_tree")

    def __init__(
        self,
        tree: Tree | None,
        refill: Callable[[], Tree] | None = None,
        *,
        build: Callable[[], Parsed] | None = None,
        parsed: Parsed | None = None,
    ) -> None:
        self._tree = tree
        self._refill = refill
        self._build = build
        self._slicing: asyncio.Future[None] | None = None
        self._parsed = parsed if build is None else None
        self._derived: dict[str, Any] = {}

    def parsed(self) -> Parsed:
        """Parse now if it has not happened yet (the one place laziness is resolved)."""
        if self._parsed is None:
            build, self._build = self._build, None
            parsed = build() if build is not None else Parsed(None, None)
            # the slot holds the tree, not the record: eviction must be able to free it
            self._tree, self._parsed = parsed.tree, replace(parsed, tree=None)
        return self._parsed

    async def parse_soon(self) -> None:
        """Parse now, in slices of a few milliseconds (:mod:`.sliced_parse`) with the loop running between them.
        Every caller waits for the one task slicing the parse (one slice per turn of the loop, however many wait),
        and one that needs the tree at once meanwhile finishes it."""
        if self._parsed is None:
            if self._slicing is None:
                self._slicing = asyncio.ensure_future(self._slice())
            await asyncio.shield(self._slicing)  # a cancelled caller leaves the parse to the others
        self.parsed()

    async def _slice(self) -> None:
        while self._parsed is None:
            step = getattr(self._build, "step", None)
            if step is None or step():
                break
            await asyncio.sleep(0)
        self.parsed()

    @property
    def is_parsed(self) -> bool:
        return self._parsed is not None

    @property
    def resident(self) -> bool:
        return self._tree is not None

    def get(self) -> Tree | None:
        self.parsed()
        if self._tree is None and self._refill is not None:
            self._tree = self._refill()
        return self._tree

    def evict(self) -> None:
        if self._refill is not None:
            self._tree = None
            self._derived.clear()

    def set_refill(self, refill: Callable[[], Tree]) -> None:
        self._refill = refill

    def derived(self, key: str, build: Callable[[Tree], T]) -> T:
        """Data a feature derives from this tree (an index, say): built once, dropped with the tree."""
        value = self._derived.get(key)
        if value is None:
            tree = self.get()
            if tree is None:
                raise LookupError("no tree")
            value = self._derived[key] = build(tree)
        return cast(T, value)
