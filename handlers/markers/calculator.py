"""The location calculator: where does a code block of the old text live in the new text?

Pure (docs/markers.md, "How a location is computed across a change"): old text, new text and 1-based locations in,
new locations and flags out. The reference pipeline's shape is kept — an in-process line diff becomes
Changes; lines outside Changes shift; a tracked line inside a Change is matched to its most similar added
line — with these fixes:

* similarity is rapidfuzz's normalised edit similarity on whitespace-normalised lines; very short lines only
  match identically (a lone ``}`` matches nothing else); ties prefer the line nearest its expected place;
* the start and end matches are monotone, so a location is never inverted;
* trimming stops at the first/last *surviving line of the block*;
* a block whose lines are all gone is searched for among the added lines of the file (moved), best first;
* columns follow a character-level alignment of the old and new line and are clamped to ``[1, len + 1]``;
* a location outside the old text never produces one outside the new text.

The line diff and the matching inside a Change are :mod:`.line_map`'s, the similarity of two lines
:mod:`.line_similarity`'s; this module turns their answers about lines into block locations, columns and flags.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .columns import map_column
from .line_map import LineMap, line_diff
from .line_similarity import normalise

#: Minimum average similarity for a block found elsewhere to count as moved.
MOVE_THRESHOLD = 0.8

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Location:
    """1-based lines and columns; ``col_end`` is exclusive (after the last char of a line of length n: n + 1)."""

    line_start: int
    col_start: int
    line_end: int
    col_end: int


@dataclass(frozen=True, slots=True)
class Calculated:
    """Where a block went. ``location`` is None when it is missing (``reason`` says why)."""

    location: Location | None
    start_was_deleted: bool = False
    end_was_deleted: bool = False
    entirely_deleted: bool = False
    content_changed: bool = False
    moved: bool = False
    reason: str | None = None


def split_lines(text: str) -> list[str]:
    """Lines without terminators, split as LSP does (``\\r\\n``, ``\\r``, ``\\n``).

    A text without CR is split by ``str.split``: the same lines, where the regular expression tries its alternatives
    at every character (3-4 ms for a file with a 110 KB line, split several times per list)."""
    if "\r" not in text:
        return text.split("\n")
    return _LINE_BREAK.split(text)


def _block_text(lines: Sequence[str], loc: Location) -> str:
    if loc.line_start == loc.line_end:
        return lines[loc.line_start - 1][loc.col_start - 1 : loc.col_end - 1]
    parts = [lines[loc.line_start - 1][loc.col_start - 1 :]]
    parts += lines[loc.line_start : loc.line_end - 1]
    parts.append(lines[loc.line_end - 1][: loc.col_end - 1])
    return "\n".join(parts)


def block_of_lines(lines: Sequence[str], loc: Location) -> str:
    return _block_text(lines, loc)


def block_of(text: str, loc: Location) -> str:
    """The text of the block at ``loc`` (lines joined with "\\n")."""
    return _block_text(split_lines(text), loc)


def clamp_to(lines: Sequence[str], loc: Location) -> Location | None:
    """The part of ``loc`` inside ``lines`` (None when it starts past the end)."""
    if loc.line_start > len(lines) or loc.line_start < 1:
        return None
    line_end = min(max(loc.line_end, loc.line_start), len(lines))
    col_end = loc.col_end if line_end == loc.line_end else len(lines[line_end - 1]) + 1
    col_start = max(1, min(loc.col_start, len(lines[loc.line_start - 1]) + 1))
    col_end = max(1, min(col_end, len(lines[line_end - 1]) + 1))
    if line_end == loc.line_start:
        col_end = max(col_end, col_start)
    return Location(loc.line_start, col_start, line_end, col_end)


def _find_moved(lm: LineMap, first: int, last: int) -> tuple[int, float] | None:
    """The best window of added lines matching old lines ``first..last`` (0-based), if any."""
    size = last - first + 1
    tracked = [i for i in range(first, last + 1) if lm.old_norm(i)]
    if not tracked:
        return None
    anchor = tracked[0]
    added = lm.added_set
    best: tuple[int, float] | None = None
    for j in lm.anchor_hits(lm.old_norm(anchor)):  # the block's first non-blank line must be there
        start = j - (anchor - first)
        if start < 0 or start + size > len(lm.new) or not all(k in added for k in range(start, start + size)):
            continue
        score = sum(lm.sim(i, start + (i - first)) for i in tracked) / len(tracked)
        if score >= MOVE_THRESHOLD and (best is None or score > best[1]):
            best = (start, score)
    return best


def calculate(
    old_text: str, new_text: str, locations: Mapping[str, Location], *, line_map: LineMap | None = None
) -> dict[str, Calculated]:
    """Recalculate every location of ``old_text`` for ``new_text`` (``line_map``: the two texts' mapping, when the
    caller made it already, for the lines they added)."""
    if old_text == new_text:  # the common case of a clean file: no diff needed
        lines = split_lines(new_text)
        return {key: _unchanged(lines, loc) for key, loc in locations.items()}
    lm = line_map or LineMap(split_lines(old_text), split_lines(new_text))
    return {key: _one(lm, loc) for key, loc in locations.items()}


def _unchanged(lines: Sequence[str], loc: Location) -> Calculated:
    clamped = clamp_to(lines, loc)
    if clamped is None:
        return Calculated(None, entirely_deleted=True, reason="missingOriginalLocation")
    return Calculated(clamped)


def _one(lm: LineMap, original: Location) -> Calculated:
    old, new = lm.old, lm.new
    loc = clamp_to(old, original)
    if loc is None:
        return Calculated(None, entirely_deleted=True, reason="missingOriginalLocation")
    first, last = loc.line_start - 1, loc.line_end - 1
    start = lm.map(first)
    end = lm.map(last, lower=(start + (1 if last > first else 0)) if start is not None else 0)
    start_deleted, end_deleted = start is None, end is None
    col_start, col_end = loc.col_start, loc.col_end
    grown_end = False
    if last > first:  # a Change inside the block at its edge: all it wrote is the block's (grown body or head)
        tag, i1, i2, j1, j2 = lm.opcode(last)
        if tag == "replace" and i2 - 1 == last and first < i1 and end != j2 - 1 and (start is None or j2 - 1 >= start):
            end, grown_end = j2 - 1, True
        tag, i1, i2, j1, j2 = lm.opcode(first)
        if tag == "replace" and i1 == first and i2 - 1 < last and (end is None or j1 <= end):
            start = j1
    if start is None:
        for line in range(first + 1, last + 1):  # trim to the first surviving (non-blank) line of the block
            if not lm.old_norm(line):
                continue  # a blank line that survives says nothing about the block
            start = lm.map(line)
            if start is not None:
                col_start = 1
                break
    else:
        col_start = map_column(old[first], new[start], loc.col_start)
    if end is None:
        for line in range(last - 1, first - 1, -1):  # ... and to the last surviving one
            if not lm.old_norm(line):
                continue
            end = lm.map(line, lower=start if start is not None else 0)
            if end is not None:
                col_end = len(new[end]) + 1
                break
    elif grown_end and loc.col_end > len(old[last]):  # it ended with its line: it ends with the new one
        col_end = len(new[end]) + 1
    else:
        col_end = map_column(old[last], new[end], loc.col_end, end=True)
    if start is None or end is None or end < start:
        return _moved(lm, loc)
    new_loc = _normalised(Location(start + 1, col_start, end + 1, col_end), new)
    changed = _block_text(new, new_loc) != _block_text(old, loc)
    return Calculated(new_loc, start_deleted, end_deleted, False, changed)


def _moved(lm: LineMap, loc: Location) -> Calculated:
    """The block's lines are gone from their place: the best window of added lines holding them, if any."""
    old, new = lm.old, lm.new
    first, last = loc.line_start - 1, loc.line_end - 1
    moved = _find_moved(lm, first, last)
    if moved is None:
        return Calculated(None, True, True, True, reason="codeBlockDeleted")
    start, end = moved[0], moved[0] + (last - first)
    col_start = map_column(old[first], new[start], loc.col_start)
    col_end = map_column(old[last], new[end], loc.col_end, end=True)
    new_loc = _normalised(Location(start + 1, col_start, end + 1, col_end), new)
    changed = _block_text(new, new_loc) != _block_text(old, loc)
    return Calculated(new_loc, True, True, False, changed, moved=True)


def added_lines(old_text: str | None, new_text: str) -> list[int]:
    """0-based lines of ``new_text`` that a diff from ``old_text`` (None: a new file) says were added."""
    new = split_lines(new_text)
    if old_text is None:
        return list(range(len(new)))
    ops = line_diff(split_lines(old_text), new)
    return [j for tag, _, _, j1, j2 in ops if tag in ("replace", "insert") for j in range(j1, j2)]


class Target:
    """Another text searched for moved blocks: split and normalised once, whatever the number of searches."""

    def __init__(self, text: str, added: Sequence[int] | None = None) -> None:
        self.lines = split_lines(text)
        self.added = list(range(len(self.lines))) if added is None else list(added)
        self.norm: dict[int, str] = {}
        self.added_norms = [normalise(self.lines[j]) for j in self.added]


def find_elsewhere(old: str | Sequence[str], location: Location, target: Target | str) -> Calculated:
    """Search another text's added lines (a ``str``: all its lines) for the block at ``location`` of ``old``.

    A block moved to another file in a commit shows up among that file's added lines.
    """
    old_lines = split_lines(old) if isinstance(old, str) else old
    where = Target(target) if isinstance(target, str) else target
    loc = clamp_to(old_lines, location)
    if loc is None:
        return Calculated(None, entirely_deleted=True, reason="missingOriginalLocation")
    return _moved(
        LineMap(old_lines, where.lines, added=where.added, new_norm=where.norm, added_norms=where.added_norms), loc
    )


def find_code(code: str, text: str) -> Calculated:
    """Content fallback: where the block ``code`` is in ``text``, best match first (missing when absent)."""
    lines = split_lines(code)
    return find_elsewhere(code, Location(1, 1, len(lines), len(lines[-1]) + 1), text)


def _normalised(loc: Location, lines: Sequence[str]) -> Location:
    """Never inverted, never out of bounds."""
    clamped = clamp_to(lines, loc)
    assert clamped is not None
    return clamped
