"""Which old line became which new line: the line diff and the matching of lines inside a Change.

Kept apart from the calculator (:mod:`.calculator`), which turns these line answers into block locations and
columns: this is the part that compares whole lines, old against new, and caches what it compared.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from tether_lsp.server.linediff import hunks

from .line_similarity import (
    LINE_THRESHOLD,
    SHORT_LINE,
    batchable,
    normalise,
    normalised_similarity,
    similar_lines,
)

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
        import rapidfuzz.distance.Indel as Indel  # rapidfuzz loads on first use (~50 ms): start-up does not need it
        import rapidfuzz.process as process

        batch, long = batchable(norm, others)  # a long line is None in the batch: skipped by extract
        for other, score, k in process.extract(norm, batch, scorer=Indel.normalized_similarity, limit=None):
            out[k] = 1.0 if other == norm else (float(score) if len(other) >= SHORT_LINE else 0.0)
        for k in long:
            out[k] = normalised_similarity(norm, others[k])
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

    def opcode(self, line: int) -> Opcode:
        """The opcode whose old range contains ``line`` (inserts have empty old ranges and never do)."""
        k = bisect.bisect_right(self._ends, line)
        return self.opcodes[min(k, len(self.opcodes) - 1)]

    def map(self, line: int, lower: int = 0) -> int | None:
        """The new line of old ``line`` (None when deleted); matches inside a Change are >= ``lower``."""
        tag, i1, i2, j1, j2 = self.opcode(line)
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
