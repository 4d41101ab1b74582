"""Detection by units, each unit's prompts kept for the next version: only the units an edit touched are read again.

A document is cut into units whose prompts do not depend on one another's text: the top-level statements of a
Python module, the documents of a YAML stream. A unit's key is everything its prompts depend on besides the
module-wide context (its bytes, and what a rule reads next to it: a ``# @prompt`` comment beside a Python statement,
the lines right around a YAML document); a unit whose key was seen in the previous version, whose lookups in the
context still give the same answers, keeps its prompts, moved by as many bytes as the unit moved. Typing in a
10,000-line file then reads one statement again instead of the whole tree (the walk: 50-90 ms).

A :class:`Memo` is per document and per detector settings; it is not shared between threads.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .model import Prompt

#: A lookup a unit made in the module-wide context: which question, its arguments, the answer it got.
Lookup = tuple[str, tuple[Any, ...], Any]


@dataclass(frozen=True)
class Unit:
    """What detection kept of one unit: where it started, its prompts there, what it adds to the module-wide
    context (Python: aliases, constants, marked names) and what it looked up in it."""

    start: int
    prompts: tuple[Prompt, ...]
    adds: Any = None
    lookups: tuple[Lookup, ...] = ()

    def moved_to(self, start: int) -> tuple[Prompt, ...]:
        """The prompts of the same unit starting at ``start``."""
        delta = start - self.start
        if delta == 0:
            return self.prompts
        return tuple(
            replace(
                p,
                span=(p.span[0] + delta, p.span[1] + delta),
                reach=None if p.reach is None else (p.reach[0] + delta, p.reach[1] + delta),
            )
            for p in self.prompts
        )


@dataclass
class Memo:
    """The units of a document's last detected version, by key; ``read``: units read (not reused) so far, which
    tests and benchmarks look at."""

    settings: Hashable = None
    units: dict[Hashable, Unit] = field(default_factory=dict)
    read: int = 0
    size: int = 0  # source bytes of the version the units are of

    def for_settings(self, settings: Hashable) -> Memo:
        """This memo, emptied if it was made with other detector settings (keywords, YAML keys)."""
        if settings != self.settings:
            self.settings, self.units = settings, {}
        return self


def still_valid(unit: Unit, answer: Callable[[str, tuple[Any, ...]], Any]) -> bool:
    """Whether every lookup the unit made gets the same answer now."""
    return all(answer(question, args) == got for question, args, got in unit.lookups)


def in_order(prompts: Sequence[tuple[Prompt, ...]]) -> list[Prompt]:
    """The units' prompts, in document order (units do not overlap; within a unit they are in order)."""
    return sorted((p for group in prompts for p in group), key=lambda p: p.span)
