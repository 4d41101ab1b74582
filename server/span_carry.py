"""Carrying a span through edits: where a range of a text is once the text has changed, for every feature that
follows one while the user types (the target of a model's edit, a prompt's span, a marker's block).

One rule, in whatever unit the caller counts (byte offsets, or (line, character) points). Each edit replaces
``start``..``old_end`` of the text the previous edit left (an insertion when the two are equal). A boundary
the edit does not reach moves with the text: it shifts when the edit lies before it and stays when the edit
lies after it. Text inserted exactly at a boundary stays outside the span: an edit ending exactly at the start
lies before the span, one starting exactly at the end lies after it (a line typed right after the span never
joins it).

Features differ only where an edit *overlaps* a boundary, that is, replaces the text just after the start
(``edit.start <= start < edit.old_end``) or just before the end (``edit.start < end <= edit.old_end``). A
:class:`Policy` names what each does there:

* :data:`WIDEN` (placing a model's edit): the span widens to take in the replacement, and an empty span
  (a point) that a replacement covers lands after its new text; :class:`Carried` says whether an edit touched
  the span and whether one removed all of it;
* :data:`HOLD_START` (a prompt's span while its file has a syntax error): the start holds, the end takes in
  the replacement;
* :data:`GIVE_UP` (a marker's block while typing): no answer (None), so the caller recomputes the span from
  something it trusts more.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from tether_lsp.server.documents import ByteEdit

#: A position: a byte offset, or a 0-based (line, character) point. Ordered either way.
P = TypeVar("P", int, tuple[int, int])
P_co = TypeVar("P_co", int, tuple[int, int], covariant=True)


class Edit(Protocol[P_co]):
    """One replacement: ``start``..``old_end`` of the text before it replaced by a text ending at ``new_end``."""

    @property
    def start(self) -> P_co: ...

    @property
    def old_end(self) -> P_co: ...

    @property
    def new_end(self) -> P_co: ...


def moved(position: P, old_end: P, new_end: P) -> P:
    """Where a position at or after an edit's ``old_end`` is once the edit is made: shifted by what the edit
    added; a point on the edit's last line also changes line and column with it."""
    if isinstance(position, int):
        return position + new_end - old_end
    line, char = position
    if line == old_end[0]:
        return new_end[0], new_end[1] + char - old_end[1]
    return line + new_end[0] - old_end[0], char


class Overlap(enum.Enum):
    """What a boundary does when an edit overlaps it."""

    HOLD = "hold"  # it stays where it was
    WIDEN = "widen"  # it moves out to take in the replacement: a start to the edit's start, an end to its new end
    GIVE_UP = "give up"  # the span is not carried: the answer is None


@dataclass(frozen=True, slots=True)
class Policy:
    start: Overlap  # an edit overlapping the start
    end: Overlap  # an edit overlapping the end
    #: An empty span strictly inside a replaced region lands where the new text ends (before the rules above).
    point_lands_after: bool = False


WIDEN = Policy(Overlap.WIDEN, Overlap.WIDEN, point_lands_after=True)
HOLD_START = Policy(Overlap.HOLD, Overlap.WIDEN)
GIVE_UP = Policy(Overlap.GIVE_UP, Overlap.GIVE_UP)


@dataclass(frozen=True, slots=True)
class Carried(Generic[P]):
    start: P
    end: P
    touched: bool  # an edit changed something inside (or replaced around an empty span)
    gone: bool  # an edit removed the whole (non-empty) span


def carry_span(start: P, end: P, edits: Iterable[Edit[P]], policy: Policy) -> Carried[P] | None:
    """``start``..``end`` carried through ``edits`` (applied in order) under ``policy``; None when the policy
    gives up on an edit that overlaps a boundary."""
    touched = gone = False
    for edit in edits:
        at, old_end = edit.start, edit.old_end
        if old_end <= start and old_end < end:  # wholly before the span, or inserted exactly at its start
            new_end = edit.new_end
            start, end = moved(start, old_end, new_end), moved(end, old_end, new_end)
            continue
        if at > start and at >= end:  # wholly after it, or inserted exactly at its end
            continue
        # The rules, one boundary at a time (the two cases above are shortcuts: these give the same answer there).
        if start < old_end and at < end:  # it reaches into the span, or replaces around an empty one
            touched = True
            gone = gone or (start < end and at <= start and end <= old_end)
            if policy.point_lands_after and start == end:  # (strictly inside the replaced text, then)
                start = end = edit.new_end
                continue
        if old_end <= start:  # before the start, or inserted exactly at it: outside
            new_start = moved(start, old_end, edit.new_end)
        elif at > start:
            new_start = start
        elif policy.start is Overlap.GIVE_UP:
            return None
        else:
            new_start = start if policy.start is Overlap.HOLD else at
        if at >= end:  # after the end, or inserted exactly at it: outside
            new_end = end
        elif old_end < end:
            new_end = moved(end, old_end, edit.new_end)
        elif policy.end is Overlap.GIVE_UP:
            return None
        else:
            new_end = end if policy.end is Overlap.HOLD else edit.new_end
        start, end = new_start, max(new_start, new_end)
    return Carried(start, end, touched, gone)


def carry(start: int, end: int, edits: Iterable[ByteEdit]) -> Carried[int]:
    """A byte span of the version a model's edit was written against, carried to the current text
    (:data:`WIDEN`): docs/edits.md, "Placing an edit"."""
    carried = carry_span(start, end, edits, WIDEN)
    assert carried is not None  # WIDEN never gives up
    return carried
