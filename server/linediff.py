"""One line diff for the whole server: anchored on unique lines, then an LCS, then slid to indentation.

Why not a plain LCS (what ``difflib`` or rapidfuzz's ``Indel.opcodes`` give): among equally long common
subsequences it picks one arbitrarily, so repeated lines (``return r``, ``    ]``, blank lines) pull an
untouched block into an insertion next to it — a marker on a 3-line function after 121 inserted lines that
end with the same ``return r`` stretched to 124 lines. Like git's patience/histogram diffs, this one first
matches the lines that occur exactly once on both sides (the longest increasing run of them: ``def`` lines,
unique statements), recurses into the gaps between those anchors, and only runs an LCS (rapidfuzz's
bit-parallel one, in C) on gaps with no unique line left. An inserted or deleted run that could sit at
several places (its first line equals the line after it, or its last the line before) is then slid to the
place an indent heuristic prefers: the run starts at the lowest indentation and ends before a blank line,
so whole definitions are inserted, not a tail of one and the head of the next (a simpler cousin of git's
indent heuristic).

Lines are compared exactly (any hashable: ``str`` or ``bytes``); callers normalise first if they want to.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Sequence
from typing import TypeVar

H = TypeVar("H", bound=Hashable)

#: A changed region: old lines ``[i1, i2)`` became new lines ``[j1, j2)``; one side may be empty.
Hunk = tuple[int, int, int, int]


def hunks(old: Sequence[H], new: Sequence[H]) -> list[Hunk]:
    """The changed regions between two line sequences, in order, never adjacent (a deletion next to an
    insertion is one region)."""
    ids: dict[Hashable, int] = {}
    a = [ids.setdefault(line, len(ids)) for line in old]
    b = [ids.setdefault(line, len(ids)) for line in new]
    found: list[Hunk] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:  # explicit stack: gaps can nest as deep as the files are long
        alo, ahi, blo, bhi = stack.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
        if alo == ahi or blo == bhi:
            if alo < ahi or blo < bhi:
                found.append((alo, ahi, blo, bhi))
            continue
        anchors = unique_anchors(a, b, alo, ahi, blo, bhi)
        if not anchors:
            found += _lcs_hunks(a, b, alo, ahi, blo, bhi)
            continue
        gaps, i, j = [], alo, blo
        for ai, bj in anchors:
            gaps.append((i, ai, j, bj))
            i, j = ai + 1, bj + 1
        gaps.append((i, ahi, j, bhi))
        stack.extend(reversed(gaps))  # popped in document order
    found.sort()
    return _merge(_slide(a, b, _merge(found), old, new))  # a slid run may now touch its neighbour


def unique_anchors(a: list[int], b: list[int], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Lines occurring once in ``a[alo:ahi]`` and once in ``b[blo:bhi]``, paired, longest increasing run."""
    count: dict[int, int] = {}
    where_a: dict[int, int] = {}
    for i in range(alo, ahi):
        line = a[i]
        count[line] = count.get(line, 0) + 1
        where_a[line] = i
    in_b: dict[int, int] = {}
    where_b: dict[int, int] = {}
    for j in range(blo, bhi):
        line = b[j]
        if count.get(line) == 1:
            in_b[line] = in_b.get(line, 0) + 1
            where_b[line] = j
    pairs = sorted((where_a[line], where_b[line]) for line, n in in_b.items() if n == 1)
    return longest_increasing(pairs)


def longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by their first item) whose second items increase (patience)."""
    tails: list[int] = []  # tails[k]: smallest b of the last pair of an increasing run of length k + 1
    tail_at: list[int] = []  # index in pairs of that pair
    back: list[int] = []
    for k, (_, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[pos], tail_at[pos] = j, k
        back.append(tail_at[pos - 1] if pos else -1)
    out: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    out.reverse()
    return out


def _lcs_hunks(a: list[int], b: list[int], alo: int, ahi: int, blo: int, bhi: int) -> list[Hunk]:
    from rapidfuzz.distance import Indel  # on first use: start-up does not need rapidfuzz

    out = []
    for op in Indel.opcodes(a[alo:ahi], b[blo:bhi]):
        if op.tag != "equal":
            out.append((alo + op.src_start, alo + op.src_end, blo + op.dest_start, blo + op.dest_end))
    return out


def _merge(found: list[Hunk]) -> list[Hunk]:
    merged: list[Hunk] = []
    for i1, i2, j1, j2 in found:
        if merged and merged[-1][1] == i1 and merged[-1][3] == j1:
            merged[-1] = (merged[-1][0], i2, merged[-1][2], j2)
        else:
            merged.append((i1, i2, j1, j2))
    return merged


def _slide(
    a: list[int], b: list[int], found: list[Hunk], old: Sequence[Hashable], new: Sequence[Hashable]
) -> list[Hunk]:
    """Slide each pure insertion or deletion to the place the indent heuristic prefers (see the module doc)."""
    out: list[Hunk] = []
    for k, (i1, i2, j1, j2) in enumerate(found):
        low_i, low_j = (out[-1][1], out[-1][3]) if out else (0, 0)  # never into the previous hunk...
        high_i, high_j = (found[k + 1][0], found[k + 1][2]) if k + 1 < len(found) else (len(a), len(b))  # ...or next
        if i1 == i2 and j1 < j2:  # an insertion slides along the equal lines around it
            lines, first, last, low, high, seq = new, j1, j2, low_j, high_j, b
        elif j1 == j2 and i1 < i2:  # a deletion too
            lines, first, last, low, high, seq = old, i1, i2, low_i, high_i, a
        else:
            out.append((i1, i2, j1, j2))
            continue
        up = 0
        while first - up - 1 >= low and seq[last - up - 1] == seq[first - up - 1]:
            up += 1
        down = 0
        while last + down < high and seq[first + down] == seq[last + down]:
            down += 1
        if up or down:
            size = last - first
            shift = min(range(-up, down + 1), key=lambda s: (*slide_cost(lines, first + s, size), -s))
            i1, i2, j1, j2 = i1 + shift, i2 + shift, j1 + shift, j2 + shift
        out.append((i1, i2, j1, j2))
    return out


def indent_of(line: Hashable) -> int | None:
    """Columns of leading whitespace; None for a blank line (or a line that is not text)."""
    if isinstance(line, bytes):
        stripped_b = line.lstrip(b" \t")
        return None if not stripped_b.strip() else len(line) - len(stripped_b)
    if isinstance(line, str):
        stripped = line.lstrip(" \t")
        return None if not stripped.strip() else len(line) - len(stripped)
    return None


def slide_cost(lines: Sequence[Hashable], first: int, size: int) -> tuple[int, int, int]:
    """Lower is better, in order: the run's first non-blank line has a low indentation; the run starts and
    ends right after a blank line (both its edges fall between paragraphs); the line after the run is blank
    or indented no deeper than the run starts (the end of a definition, not the middle of one)."""
    start = next((n for n in map(indent_of, lines[first : first + size]) if n is not None), None)
    start_cost = 10_000 if start is None else start
    edges = sum(k > 0 and indent_of(lines[k - 1]) is not None for k in (first, first + size))
    if first + size >= len(lines):
        return start_cost, edges, 0
    follow = indent_of(lines[first + size])
    return start_cost, edges, 0 if follow is None or (start is not None and follow <= start) else 1
