"""One file's markers carried from the text they were made in to the text at HEAD: a pure function of plain values.

A HEAD change relocates the markers of every file it changed; this is the part that costs (two parses and a line
diff per file), so it runs in worker processes (:mod:`.offload`), never on the interpreter that answers the
editor. Each file's old -> new line mapping is made once here, for all its markers and for the lines the change
added (where a block that left another file is searched for).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass, field
from typing import Any, Protocol

from tether_lsp.server.syntax import GrammarLimits

from .calculator import Calculated, Location, split_lines
from .line_map import LineMap
from .settings import compare_at_most, compared_product
from .structure import follow


@dataclass(frozen=True, slots=True)
class FileWork:
    """A file's text where its markers were made (None: the file is new there), its text now, and the markers'
    locations in the old text (none: only the added lines are asked); ``compared_product``: the bound on comparing
    two long lines in force where the work was made (``tether.markers.maxComparedProduct``)."""

    old: str | None
    new: str
    locations: dict[str, Location]
    language: str | None
    limits: GrammarLimits | None
    compared_product: int = field(default_factory=compared_product)


@dataclass(frozen=True, slots=True)
class FileDone:
    """Where each marker went, and the 0-based lines of the new text that the change added."""

    results: dict[str, Calculated]
    added: list[int]


def relocate_file(work: FileWork) -> FileDone:
    """The markers of one file at its new text, and the lines added, from one line mapping."""
    compare_at_most(work.compared_product)  # a worker process works under the server's setting
    if work.old is None:
        return FileDone({}, list(range(len(split_lines(work.new)))))
    line_map = None if work.old == work.new else LineMap(split_lines(work.old), split_lines(work.new))
    results = (
        follow(work.old, work.new, work.locations, work.language, work.limits, line_map=line_map)
        if work.locations
        else {}
    )
    return FileDone(results, list(line_map.added) if line_map is not None else [])


def relocate_files(works: Sequence[FileWork]) -> list[FileDone]:
    """A batch of files, in this thread."""
    return [relocate_file(work) for work in works]


#: A :class:`FileWork` and a :class:`FileDone` as they travel to and from a worker process: plain tuples. Frozen
#: slotted dataclasses pickle field by field through Python code (``__getstate__``/``__setstate__``): 10,000
#: markers' works and answers cost the serving interpreter ~90 ms of pickling, plain values ~10 (measured).
WireWork = tuple[str | None, str, dict[str, tuple[int, int, int, int]], str | None, tuple[Any, ...] | None, int]
WireCalculated = tuple[tuple[int, int, int, int] | None, bool, bool, bool, bool, bool, str | None]
WireDone = tuple[dict[str, WireCalculated], list[int]]


def to_wire(work: FileWork) -> WireWork:
    locations = {k: (v.line_start, v.col_start, v.line_end, v.col_end) for k, v in work.locations.items()}
    limits = astuple(work.limits) if work.limits is not None else None
    return (work.old, work.new, locations, work.language, limits, work.compared_product)


def relocate_wire(batch: list[WireWork]) -> list[WireDone]:
    """A batch of files: what one call to a worker process does, plain values in and out."""
    out: list[WireDone] = []
    for old, new, locations, language, limits, product in batch:
        grammar = GrammarLimits(*limits) if limits is not None else None
        work = FileWork(old, new, {k: Location(*v) for k, v in locations.items()}, language, grammar, product)
        done = relocate_file(work)
        out.append(({k: _calculated_to_wire(c) for k, c in done.results.items()}, done.added))
    return out


def from_wire(done: WireDone) -> FileDone:
    results, added = done
    return FileDone({k: Calculated(Location(*c[0]) if c[0] else None, *c[1:]) for k, c in results.items()}, added)


def _calculated_to_wire(c: Calculated) -> WireCalculated:
    loc = c.location
    at = (loc.line_start, loc.col_start, loc.line_end, loc.col_end) if loc is not None else None
    return (at, c.start_was_deleted, c.end_was_deleted, c.entirely_deleted, c.content_changed, c.moved, c.reason)


#: How a tracker gets many files relocated: in this thread (:func:`in_thread`) or in worker processes.
Relocate = Callable[[list[FileWork]], list[FileDone]]


def in_thread(works: list[FileWork]) -> list[FileDone]:
    """In the calling thread: a request about one file's markers, tests, a front with no worker processes."""
    return relocate_files(works)


class Pending(Protocol):
    """A batch of files being relocated: whether its answers are in, and the answers (waited for)."""

    def ready(self) -> bool: ...

    def results(self) -> list[FileDone]: ...


#: How a HEAD sync relocates files as it reads them: starts a batch and returns at once (:mod:`.offload`: in the
#: worker processes), so that git reads, relocation and database writes overlap.
Start = Callable[[list[FileWork]], Pending]


@dataclass(frozen=True, slots=True)
class Relocated:
    """A batch relocated already."""

    done: list[FileDone]

    def ready(self) -> bool:
        return True

    def results(self) -> list[FileDone]:
        return self.done


def start_in_thread(works: list[FileWork]) -> Pending:
    """:data:`Start` in the calling thread: the batch is relocated before this returns."""
    return Relocated(relocate_files(works))
