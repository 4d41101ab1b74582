"""Buffer locations while typing: carry marker locations through the exact ``didChange`` edits.

Like an editor's decorations (docs/markers.md, "Where a marker's code is now"): an edit before a block shifts it, an
edit inside its interior moves only its end, text inserted exactly at a boundary stays outside (explicit
stickiness). An edit that overlaps a boundary returns None (``span_carry.GIVE_UP``) and the caller recomputes from
the committed location, so the fast path never disagrees with the diff-based one on anything but boundary
insertions. Positions are (line, character) points: the carrying counts characters, not bytes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tether_lsp.server.documents import ByteEdit, TextVersion
from tether_lsp.server.positions import LineIndex
from tether_lsp.server.span_carry import GIVE_UP, carry_span, moved

from .calculator import Location, split_lines

Point = tuple[int, int]  # 0-based line, 0-based character


@dataclass(frozen=True, slots=True)
class CharEdit:
    """One edit in characters of the text before it: ``start``..``end`` replaced by ``new_text``."""

    start: Point
    end: Point
    new_text: str
    #: Where the new text ends (worked out once: every marker of the file is carried through the same edits).
    new_end: Point = field(init=False)

    def __post_init__(self) -> None:
        parts = split_lines(self.new_text)
        end = self.start[0] + len(parts) - 1, (self.start[1] if len(parts) == 1 else 0) + len(parts[-1])
        object.__setattr__(self, "new_end", end)

    @property
    def old_end(self) -> Point:
        return self.end

    def after(self, point: Point) -> Point:
        """Where a point at or after ``end`` goes."""
        return moved(point, self.end, self.new_end)


def shift(loc: Location, edits: Iterable[CharEdit]) -> Location | None:
    """``loc`` through ``edits`` (applied in order), or None when one overlaps a boundary."""
    start = (loc.line_start - 1, loc.col_start - 1)
    end = (loc.line_end - 1, loc.col_end - 1)
    carried = carry_span(start, end, edits, GIVE_UP)
    if carried is None:
        return None
    return Location(carried.start[0] + 1, carried.start[1] + 1, carried.end[0] + 1, carried.end[1] + 1)


def char_edits(before: TextVersion, edits: Sequence[ByteEdit]) -> list[CharEdit]:
    """The byte edits that made a version, in characters (each relative to the text the previous one left)."""
    out = []
    text, index = before.text, before.index
    for edit in edits:
        out.append(_in_characters(index, edit))
        text = edit.apply(text)
        index = index.edited(edit.start, edit.old_end, edit.new_text, text)
    return out


def edits_between(versions: Sequence[TextVersion], since: int) -> list[CharEdit] | None:
    """Every edit from version ``since`` to the newest one, or None when ``since`` is no longer kept.

    Read backwards from the newest version, whose text and line index are at hand: each older text is the newer
    one with an edit undone, its line index derived from the newer one's. No kept version is rebuilt from the
    newest and no index is made anew, so a codeLens after many keystrokes costs the edits, not the file each.
    """
    found = [k for k, v in enumerate(versions) if v.version == since]
    if not found:
        return None
    newest = versions[-1]
    text, index = newest.text, newest.index
    out: list[CharEdit] = []
    for version in reversed(versions[found[0] + 1 :]):
        for edit in reversed(version.edits):
            text = edit.undo(text)
            index = index.edited(edit.start, edit.new_end, edit.old_text, text)
            out.append(_in_characters(index, edit))
    out.reverse()
    return out


def _in_characters(index: LineIndex, edit: ByteEdit) -> CharEdit:
    """``edit`` in characters of the text before it (``index`` is that text's)."""
    start, end = index.char_point(edit.start_point), index.char_point(edit.old_end_point)
    return CharEdit(start, end, edit.new_text.decode("utf-8", errors="replace"))
