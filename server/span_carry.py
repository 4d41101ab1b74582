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


class Edit(Protocol[P]):
    """One replacement, in positions of the text before it."""

    @property
    def start(self) -> P: ...

    @property
    def old_end(self) -> P: ...

    def after(self, position: P) -> P:
        """Where a position at or after ``old_end`` is once the edit is made (``after(old_end)``: where the new
        text ends)."""
        ...


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
        if start < old_end and at < end:  # neither wholly before nor wholly after: it reaches the span
            touched = True
            gone = gone or (start < end and at <= start and end <= old_end)
            if policy.point_lands_after and start == end and at < start:
                start = end = edit.after(old_end)
                continue
        if old_end <= start:  # before the start, or inserted exactly at it: outside
            new_start = edit.after(start)
        elif at > start:
            new_start = start
        elif policy.start is Overlap.GIVE_UP:
            return None
        else:
            new_start = start if policy.start is Overlap.HOLD else at
        if at >= end:  # after the end, or inserted exactly at it: outside
            new_end = end
        elif old_end < end:
            new_end = edit.after(end)
        elif policy.end is Overlap.GIVE_UP:
            return None
        else:
            new_end = end if policy.end is Overlap.HOLD else edit.after(old_end)
        start, end = new_start, max(new_start, new_end)
    return Carried(start, end, touched, gone)


def carry(start: int, end: int, edits: Iterable[ByteEdit]) -> Carried[int]:
    """A byte span of the version a model's edit was written against, carried to the current text
    (:data:`WIDEN`): docs/edits.md, "Placing an edit"."""
    carried = carry_span(start, end, edits, WIDEN)
    assert carried is not None  # WIDEN never gives up
    return carried
