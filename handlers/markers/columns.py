"""Mapping a column of a line onto the same line after an edit, through a character alignment.

Kept apart from the line calculator: this is the one place that compares characters, and the one whose cost
grows with the product of two lines' lengths, so it carries its own bound.
"""

from __future__ import annotations

from collections.abc import Callable
from difflib import SequenceMatcher
from functools import lru_cache

#: Lines longer than this product of lengths are aligned on their changed middle only, and a middle still longer
#: as one replacement: difflib's alignment costs the product on repeated characters (two 40,000-character lines
#: took minutes).
MAX_ALIGNED_PRODUCT = 250_000


def common_ends(a: str, b: str) -> tuple[int, int]:
    """The lengths of the common prefix and of the common suffix after it (never overlapping the prefix).

    Found by halving, comparing slices: C comparisons over a few times the line's length, where a loop over the
    characters in Python took 0.2 s on two 110 KB lines.
    """
    limit = min(len(a), len(b))
    head = _common_length(limit, lambda n: a[:n] == b[:n])
    rest = limit - head
    tail = _common_length(rest, lambda n: a[len(a) - n :] == b[len(b) - n :])
    return head, tail


def _common_length(limit: int, same: Callable[[int], bool]) -> int:
    """The largest ``n <= limit`` with ``same(n)`` (``same`` holds up to some length and not past it)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low


def character_opcodes(old: str, new: str) -> list[tuple[str, int, int, int, int]]:
    """difflib opcodes aligning two lines, bounded in time (see :data:`MAX_ALIGNED_PRODUCT`).

    Kept for the last few pairs of lines: a block's start and end columns on one line, and every marker on that
    line, are mapped through the same alignment (three alignments of the same two 110 KB lines per list before).
    """
    return list(_kept_opcodes(old, new, MAX_ALIGNED_PRODUCT))


@lru_cache(maxsize=8)
def _kept_opcodes(old: str, new: str, bound: int) -> tuple[tuple[str, int, int, int, int], ...]:
    return tuple(_aligned(old, new, bound))


def _aligned(old: str, new: str, bound: int) -> list[tuple[str, int, int, int, int]]:
    if len(old) * len(new) <= bound:
        matcher = SequenceMatcher(None, old, new, autojunk=False)
        return [(tag, i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    head, tail = common_ends(old, new)
    a, b = old[head : len(old) - tail], new[head : len(new) - tail]
    opcodes: list[tuple[str, int, int, int, int]] = [("equal", 0, head, 0, head)] if head else []
    if len(a) * len(b) > bound:
        opcodes.append(("replace", head, head + len(a), head, head + len(b)))
    elif a or b:
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            opcodes.append((tag, head + i1, head + i2, head + j1, head + j2))
    if tail:
        opcodes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return opcodes


def map_column(old_line: str, new_line: str, column: int, *, end: bool = False) -> int:
    """A 1-based column of ``old_line`` mapped onto ``new_line`` through a character alignment.

    A start column goes before text that replaced what followed it; an (exclusive) ``end`` column goes after
    text that replaced what preceded it — so a block keeps a replaced word at either of its edges.
    """
    index = column - 1
    if old_line == new_line:
        return max(1, min(column, len(new_line) + 1))
    for tag, i1, i2, j1, j2 in character_opcodes(old_line, new_line):
        if end and i1 < index <= i2:
            mapped = j1 + (index - i1) if tag == "equal" else j2
        elif not end and (i1 <= index < i2 or index == i2 == len(old_line)):
            mapped = j1 + (index - i1) if tag == "equal" else j1
        else:
            continue
        return max(1, min(mapped + 1, len(new_line) + 1))
    return max(1, min(len(new_line) + 1, column))
