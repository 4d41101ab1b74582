"""One file's markers carried from the text they were made in to the text at HEAD: a pure function of plain values.

A HEAD change relocates the markers of every file it changed; this is the part that costs (two parses and a line
diff per file), so it runs in worker processes (:mod:`.offload`), never on the interpreter that answers the
editor. Each file's old -> new line mapping is made once here, for all its markers and for the lines the change
added (where a block that left another file is searched for).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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
    """A batch of files: what one call to a worker process does."""
    return [relocate_file(work) for work in works]


#: How a tracker gets many files relocated: in this thread (:func:`in_thread`) or in worker processes.
Relocate = Callable[[list[FileWork]], list[FileDone]]


def in_thread(works: list[FileWork]) -> list[FileDone]:
    """In the calling thread: a request about one file's markers, tests, a front with no worker processes."""
    return relocate_files(works)
