"""Carrying a span of the base version forward to the current one through the recorded edits (docs/edits.md, "Placing an
edit").

Byte-precise. Text inserted exactly at the start or the end of the span stays outside it (a line the user
typed right after the target survives). An edit inside the span widens or narrows it and marks it touched;
an edit that removes all of it leaves it *gone*.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tether_lsp.server.documents import ByteEdit


@dataclass(frozen=True)
class Carried:
    start: int
    end: int
    touched: bool  # a user edit changed something inside
    gone: bool  # the whole span was removed


def carry(start: int, end: int, edits: Iterable[ByteEdit]) -> Carried:
    touched = gone = False
    for edit in edits:
        delta = edit.new_end - edit.old_end
        if edit.old_end <= start:  # before the span, or inserted exactly at its start: outside
            start, end = start + delta, end + delta
        elif edit.start >= end:  # after the span, or inserted exactly at its end: outside
            continue
        elif start == end:  # an insertion point inside a replaced region
            touched = True
            start = end = edit.new_end
        elif edit.start <= start and edit.old_end >= end:  # all of it replaced
            touched = gone = True
            start, end = edit.start, edit.new_end
        else:
            touched = True
            new_start = min(start, edit.start)
            new_end = end + delta if edit.old_end <= end else edit.new_end
            start, end = new_start, max(new_start, new_end)
    return Carried(start, end, touched, gone)
