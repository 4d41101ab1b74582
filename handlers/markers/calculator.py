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
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Indel

from tether_lsp.server.linediff import hunks

from .columns import map_column

#: Minimum similarity for a changed line to count as the same line (reference: 0.5).
LINE_THRESHOLD = 0.5
#: Minimum average similarity for a block found elsewhere to count as moved.
MOVE_THRESHOLD = 0.8
#: Normalised lines shorter than this only match identically.
SHORT_LINE = 4

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SPACES = re.compile(r"\s+")


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
    """Lines without terminators, split as LSP does (``\\r\\n``, ``\\r``, ``\\n``)."""
    return _LINE_BREAK.split(text)


def normalise(line: str) -> str:
    return _SPACES.sub(" ", line).strip()


def similarity(a: str, b: str) -> float:
    """Normalised edit similarity of two lines, whitespace-insensitive; short lines only match exactly."""
    return normalised_similarity(normalise(a), normalise(b))


def normalised_similarity(na: str, nb: str) -> float:
    if na == nb:
        return 1.0
    if len(na) < SHORT_LINE or len(nb) < SHORT_LINE:
        return 0.0
    return float(Indel.normalized_similarity(na, nb))


#: Lines compared per rapidfuzz call. One call holds the GIL throughout; in a worker thread a call over
#: thousands of lines would stall the event loop, so long searches are made in slices.
SEARCH_SLICE = 1000


def similar_lines(line: str, norms: Sequence[str], *, normalised: bool = False) -> list[int]:
    """Indexes of the normalised lines ``norms`` at least LINE_THRESHOLD similar to ``line``, in order."""
    norm = line if normalised else normalise(line)
    if len(norm) < SHORT_LINE:
        return [k for k, n in enumerate(norms) if n == norm]
    out: list[int] = []
    for first in range(0, len(norms), SEARCH_SLICE):
        piece = norms[first : first + SEARCH_SLICE]
        found = process.extract(
            norm, piece, scorer=Indel.normalized_similarity, score_cutoff=LINE_THRESHOLD, limit=None
        )
        out += (first + k for n, _, k in found if len(n) >= SHORT_LINE or n == norm)
    return sorted(out)


Opcode = tuple[str, int, int, int, int]

#: Equal runs this short between two changes are folded into the change (and re-matched by similarity):
#: an LCS aligns stray blank or repeated lines inside rewritten regions.
STRAY_EQUAL = 2


def line_diff(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """Opcodes (difflib's shape) of the server's line diff (:mod:`server.linediff`: anchored on unique lines),
    with stray equal runs between two changes merged into one Change."""
    raw: list[Opcode] = []
    i = j = 0
    for i1, i2, j1, j2 in hunks(old, new):
        if i1 > i:
            raw.append(("equal", i, i1, j, j1))
        raw.append(("change", i1, i2, j1, j2))
        i, j = i2, j2
    if i < len(old):
        raw.append(("equal", i, len(old), j, len(new)))
    merged: list[Opcode] = []
    for k, (tag, i1, i2, j1, j2) in enumerate(raw):
        after_change = bool(merged) and merged[-1][0] != "equal"
        stray = tag == "equal" and i2 - i1 <= STRAY_EQUAL and k + 1 < len(raw) and raw[k + 1][0] != "equal"
        if after_change and (tag != "equal" or stray):
            _, mi1, _, mj1, _ = merged[-1]
            merged[-1] = ("change", mi1, i2, mj1, j2)
        else:
            merged.append((tag, i1, i2, j1, j2))
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in merged:
        if tag == "change":
            tag = "replace" if i1 < i2 and j1 < j2 else "delete" if i1 < i2 else "insert"
        out.append((tag, i1, i2, j1, j2))
    return out


class LineMap:
    """Old line -> new line (0-based) through a line diff, with in-Change matching."""

    def __init__(
        self,
        old: Sequence[str],
        new: Sequence[str],
        *,
        added: Sequence[int] | None = None,
        new_norm: dict[int, str] | None = None,
        added_norms: list[str] | None = None,
    ) -> None:
        self.old, self.new = old, new
        self._old_norm: dict[int, str] = {}  # normalised lazily: only lines near changes are ever compared
        self._new_norm: dict[int, str] = {} if new_norm is None else new_norm
        if added is not None:  # another file: only its given (added) lines are candidate places for the block
            self.opcodes: list[Opcode] = [("replace", 0, len(old), 0, len(new))]
            self.added = list(added)
        else:
            self.opcodes = line_diff(old, new) or [("equal", 0, 0, 0, 0)]
            self.added = [
                j for tag, _, _, j1, j2 in self.opcodes if tag in ("replace", "insert") for j in range(j1, j2)
            ]
        self._ends = [op[2] for op in self.opcodes]
        self._added_norms: list[str] | None = added_norms
        self._rows: dict[int, list[float]] = {}
        self._columns: dict[int, list[float]] = {}
        self.added_set = frozenset(self.added)

    def old_norm(self, i: int) -> str:
        found = self._old_norm.get(i)
        if found is None:
            found = self._old_norm[i] = normalise(self.old[i])
        return found

    def new_norm(self, j: int) -> str:
        found = self._new_norm.get(j)
        if found is None:
            found = self._new_norm[j] = normalise(self.new[j])
        return found

    def anchor_hits(self, norm: str) -> list[int]:
        """Added lines similar enough to a normalised line (one C loop over them, not a Python one)."""
        if self._added_norms is None:
            self._added_norms = [self.new_norm(j) for j in self.added]
        return [self.added[k] for k in similar_lines(norm, self._added_norms, normalised=True)]

    def sim(self, i: int, j: int) -> float:
        return normalised_similarity(self.old_norm(i), self.new_norm(j))

    def scores(self, norm: str, others: list[str]) -> list[float]:
        """``normalised_similarity(norm, o)`` for every ``o`` of ``others`` in one C call."""
        out = [0.0] * len(others)
        if len(norm) < SHORT_LINE:
            for k, other in enumerate(others):
                out[k] = 1.0 if other == norm else 0.0
            return out
        for other, score, k in process.extract(norm, others, scorer=Indel.normalized_similarity, limit=None):
            out[k] = 1.0 if other == norm else (float(score) if len(other) >= SHORT_LINE else 0.0)
        return out

    def _row(self, line: int, j1: int, j2: int) -> list[float]:
        """Similarities of old ``line`` to the new lines ``j1..j2`` of its Change (cached)."""
        row = self._rows.get(line)
        if row is None:
            row = self._rows[line] = self.scores(self.old_norm(line), [self.new_norm(j) for j in range(j1, j2)])
        return row

    def _column(self, j: int, i1: int, i2: int) -> list[float]:
        """Similarities of new line ``j`` to the old lines ``i1..i2`` of its Change (cached)."""
        column = self._columns.get(j)
        if column is None:
            column = self._columns[j] = self.scores(self.new_norm(j), [self.old_norm(i) for i in range(i1, i2)])
        return column

    def _opcode(self, line: int) -> Opcode:
        """The opcode whose old range contains ``line`` (inserts have empty old ranges and never do)."""
        k = bisect.bisect_right(self._ends, line)
        return self.opcodes[min(k, len(self.opcodes) - 1)]

    def map(self, line: int, lower: int = 0) -> int | None:
        """The new line of old ``line`` (None when deleted); matches inside a Change are >= ``lower``."""
        tag, i1, i2, j1, j2 = self._opcode(line)
        if tag == "equal":
            return j1 + (line - i1)
        if tag == "insert" or j1 == j2:
            return None
        expected = j1 + (line - i1) * (j2 - j1) / max(1, i2 - i1)
        best, best_score = None, LINE_THRESHOLD
        row = self._row(line, j1, j2)
        for j in range(max(j1, lower), j2):
            score = row[j - j1]
            if score > best_score or (
                best is not None and score == best_score and abs(j - expected) < abs(best - expected)
            ):
                best, best_score = j, score
            elif best is None and score == best_score:
                best = j
        if best is not None:
            column = self._column(best, i1, i2)
            if any(column[other - i1] > best_score for other in range(i1, i2) if other != line):
                return None  # another old line of this Change is a better match for it: ours was deleted
        return best


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


def calculate(old_text: str, new_text: str, locations: Mapping[str, Location]) -> dict[str, Calculated]:
    """Recalculate every location of ``old_text`` for ``new_text``."""
    if old_text == new_text:  # the common case of a clean file: no diff needed
        lines = split_lines(new_text)
        return {key: _unchanged(lines, loc) for key, loc in locations.items()}
    old, new = split_lines(old_text), split_lines(new_text)
    lm = LineMap(old, new)
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
        tag, i1, i2, j1, j2 = lm._opcode(last)
        if tag == "replace" and i2 - 1 == last and first < i1 and end != j2 - 1 and (start is None or j2 - 1 >= start):
            end, grown_end = j2 - 1, True
        tag, i1, i2, j1, j2 = lm._opcode(first)
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
