"""Placing model edits and applying them, in plain Python values: the one path every front takes.

A model made its edits on a *base* text; the document may have moved on since (the user typed, another edit
landed). A :class:`Batch` places each edit on the current text (:meth:`Batch.place`: found by its ``old_text``
or named by a byte span of the base, carried through the edits since, merged with the user's changes), checks
the batch (:meth:`Batch.placed`), and makes the one change that applies them all (:meth:`Batch.change`).
:func:`write_all` is the loop of a front that writes the change all or none to a file that may move on while
the edits are placed: it places them again on what is there now.

The LSP glue answers ``tether/edits/resolve`` with :meth:`Batch.placed`, the streamer and the tasks place their
targets with :meth:`Batch.place`, a task's whole-file change and the agents' ``edit`` tool apply with
:meth:`Batch.change`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from tether_lsp.server.byte_edits import ByteEdit, make_edit
from tether_lsp.server.positions import LineIndex

from .resolve import EditRequest, Options, Resolution, Text, check_overlaps, resolve_one, resolve_span

F = TypeVar("F")

__all__ = ["Batch", "Change", "Options", "Resolution", "Rewritable", "Target", "Written", "write_all"]


@dataclass(frozen=True)
class Target:
    """One edit made on the base: what it replaces, its ``old_text`` (``line``: the 0-based line of the base
    where the model saw it, which settles a text found at several places) or a byte ``span`` of the base (a
    node or a range the front named), and the ``new_text`` to put there."""

    id: str
    new_text: str
    old_text: str = ""
    line: int | None = None
    span: tuple[int, int] | None = None


@dataclass(frozen=True)
class Change:
    """What applying a batch writes: the new ``text``, the same change as ``edits`` (last first, as
    :func:`~tether_lsp.server.byte_edits.diff_edits` gives them) and each edit's span in the new text."""

    text: bytes
    edits: tuple[ByteEdit, ...]
    spans: dict[int, tuple[int, int]]


class Batch:
    """Edits made on one base text, placed on the current text and applied together."""

    def __init__(self, base: bytes, current: bytes, moved: Sequence[ByteEdit], options: Options) -> None:
        """``moved``: the recorded edits from ``base`` to ``current`` (each in the coordinates of the text the
        previous ones leave); ``current`` is diffed from nothing, so an empty list means none happened."""
        self.base, self.current = Text(base), Text(current)
        self.moved = moved
        self.options = options
        self.results: list[Resolution] = []

    def place(self, target: Target) -> Resolution:
        """Place one edit on the current text (its status says whether it could be)."""
        if target.span is not None:
            found = resolve_span(
                self.base, self.current, self.moved, target.id, target.span, target.new_text, self.options
            )
        else:
            request = EditRequest(target.id, target.old_text, target.new_text, target.line)
            found = resolve_one(self.base, self.current, self.moved, request, self.options)
        self.results.append(found)
        return found

    def placed(self, *, together: bool) -> list[Resolution]:
        """The edits placed so far, in order; two whose targets overlap in the base are refused (-32602 naming
        ``edits``). ``together``: they are to be applied at once, so two carried onto the same text now
        conflict (the later one)."""
        check_overlaps(self.results)
        if together:
            _overlapping_now(self.results)
        return self.results

    @property
    def resolved(self) -> bool:
        """Whether every edit placed so far has its place."""
        return all(r.status == "resolved" for r in self.results)

    def change(self, index: LineIndex | None = None) -> Change:
        """The change that applies every placed edit to the current text (all must be resolved); ``index``: the
        current text's line index, when the front keeps one."""
        assert self.resolved
        return _compose(index if index is not None else LineIndex(self.current.data), self.results)


def _overlapping_now(results: list[Resolution]) -> None:
    """Two edits carried onto the same text now (the file moved on around both): the later one conflicts."""
    placed = sorted((r.span, k) for k, r in enumerate(results) if r.status == "resolved" and r.span is not None)
    for (a, _), (b, j) in itertools.pairwise(placed):
        if b[0] < a[1]:
            results[j].status = "conflict"
            results[j].notes.append("carried onto the same text as another edit")


def _compose(index: LineIndex, results: Sequence[Resolution]) -> Change:
    """The new text, its edits and each edit's span in it."""
    text = index.text
    order = sorted(range(len(results)), key=lambda k: results[k].span or (0, 0))
    edits: list[ByteEdit] = []
    spans: dict[int, tuple[int, int]] = {}
    shift = 0
    for k in order:
        start, end = results[k].span or (0, 0)
        inserted = (results[k].new_text or "").encode("utf-8")
        spans[k] = (start + shift, start + shift + len(inserted))
        shift += len(inserted) - (end - start)
        edits.append(make_edit(index, start, end, inserted))
    new = text
    for edit in reversed(edits):
        new = edit.apply(new)
    return Change(new, tuple(reversed(edits)), spans)


class Rewritable(Protocol[F]):
    """A file edits are written to all or none, which may move on while they are placed (a front's own)."""

    def read(self) -> F:
        """The file as it is now."""

    def place(self, file: F) -> Batch:
        """The edits placed on ``file`` (every one of them given to :meth:`Batch.place`)."""

    def index(self, file: F) -> LineIndex:
        """The line index of ``file``'s text."""

    def write(self, file: F, change: Change) -> F | None:
        """Write ``change`` over ``file``; None when the file moved on before it landed (the editor's buffer
        was typed in, the file changed on disk): the edits are placed again."""


@dataclass(frozen=True)
class Written(Generic[F]):
    """How :func:`write_all` went: the file placed on (``read``), what became of each edit, the change when
    every edit had its place, and the file written (``read`` itself when it already read so; None when
    nothing was written)."""

    read: F
    results: list[Resolution]
    change: Change | None
    wrote: F | None


def write_all(files: Rewritable[F], retries: int) -> Written[F] | None:
    """Place the edits on the file as it is now and write them all, or none when one has no place; the file
    moving on in between places them again, at most ``retries`` times (None when it kept moving)."""
    for _attempt in range(retries):
        file = files.read()
        batch = files.place(file)
        results = batch.placed(together=True)
        if not batch.resolved:
            return Written(file, results, None, None)
        change = batch.change(files.index(file))
        if change.text == batch.current.data:  # it already reads so: nothing to write
            return Written(file, results, change, file)
        written = files.write(file, change)
        if written is not None:
            return Written(file, results, change, written)
    return None
