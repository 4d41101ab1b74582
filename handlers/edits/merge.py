"""A three-way line merge (base / the user's version / the model's version) for targets the user also edited."""

from __future__ import annotations

from difflib import SequenceMatcher

Hunk = tuple[int, int, list[str]]  # base lines [i1, i2) replaced by these lines


def _hunks(base: list[str], other: list[str]) -> list[Hunk]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _overlap(a: Hunk, b: Hunk) -> bool:
    """Two changes touch the same base lines (insertions: at the same place, or inside the other's lines)."""
    if a[0] == a[1] and b[0] == b[1]:
        return a[0] == b[0]
    return a[0] < b[1] and b[0] < a[1]  # for one insertion too: strictly inside the other's lines


def merge3(base: str, user: str, model: str) -> str | None:
    """The model's change applied on top of the user's, or None when they touch the same lines."""
    base_lines, user_lines, model_lines = base.split("\n"), user.split("\n"), model.split("\n")
    theirs, ours = _hunks(base_lines, user_lines), _hunks(base_lines, model_lines)
    for a in theirs:
        for b in ours:
            if _overlap(a, b) and a != b:
                return None
    out: list[str] = []
    at = 0
    unique = {(i1, i2, tuple(lines)) for i1, i2, lines in theirs + ours}  # the same change made by both: once
    for i1, i2, lines in sorted(unique):
        out += base_lines[at:i1] + list(lines)
        at = i2
    out += base_lines[at:]
    return "\n".join(out)
