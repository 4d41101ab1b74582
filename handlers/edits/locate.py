"""Finding a model's ``oldText`` in the version of the document the model saw (docs/edits.md, "Placing an edit").

Rules in order — exact substring, whole lines ignoring trailing whitespace, whole lines ignoring indentation,
an elision marker, fuzzy windows —; the first rule with exactly one hit wins, several hits at one rule are
*ambiguous* (never "the first occurrence") unless the caller says on which line it saw the target: then the one
hit nearest that line wins, and two as near are still ambiguous. Works on text with ``\\n`` line endings, in
characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tether_lsp.server.lazy import lazy_module
from tether_lsp.server.positions import line_starts

if TYPE_CHECKING:
    from rapidfuzz import process
    from rapidfuzz.distance import Indel
else:  # loaded on first use (~50 ms to import): initialize does not need it
    process = lazy_module("rapidfuzz.process")
    Indel = lazy_module("rapidfuzz.distance.Indel")

FUZZY_LEAD = 0.05


@dataclass(frozen=True)
class Found:
    """Where the target is: ``[start, end)`` in characters of the base text, and how it was found."""

    kind: str  # exact | trailingWhitespace | indentation | truncated | fuzzy
    start: int
    end: int
    similarity: float = 1.0
    indent_delta: int | None = None  # indentation rule: base indent - quoted indent, when uniform


@dataclass(frozen=True)
class Located:
    found: Found | None
    candidates: list[tuple[int, int]] = field(default_factory=list)  # ambiguous hits (characters)
    kind: str | None = None  # the rule that was ambiguous


class Lines:
    """A text's lines with their character offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.starts = line_starts(text)

    def span(self, first: int, count: int, newline: bool) -> tuple[int, int]:
        """Characters of lines ``first .. first+count-1`` (their last newline included when ``newline``)."""
        last = first + count - 1
        end = self.starts[last] + len(self.lines[last])
        if newline and last + 1 < len(self.starts):
            end += 1
        return self.starts[first], end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _windows(base: Lines, quoted: list[str], norm: Callable[[str], str]) -> list[int]:
    """First lines of the windows of ``base`` equal to ``quoted`` under a line normalisation ``norm``."""
    want = [norm(q) for q in quoted]
    n = len(want)
    first = want[0]
    hits = []
    for i in range(len(base.lines) - n + 1):
        if norm(base.lines[i]) != first:
            continue
        if all(norm(base.lines[i + k]) == want[k] for k in range(1, n)):
            hits.append(i)
    return hits


def _quoted_lines(old: str) -> tuple[list[str], bool]:
    newline = old.endswith("\n")
    return (old[:-1] if newline else old).split("\n"), newline


def nearest(lines: list[int], near_line: int | None) -> int | None:
    """The index of the one entry of ``lines`` nearest ``near_line`` (None: no hint, or a tie)."""
    if near_line is None or not lines:
        return None
    distances = sorted((abs(line - near_line), k) for k, line in enumerate(lines))
    if len(distances) > 1 and distances[0][0] == distances[1][0]:
        return None
    return distances[0][1]


def locate(
    base_text: str, old: str, *, fuzzy: bool = True, min_similarity: float = 0.9, near_line: int | None = None
) -> Located:
    """Find ``old`` in ``base_text`` (both with ``\\n`` line endings); ``near_line`` (0-based) settles several hits
    at one rule (see the module docstring)."""
    exact = [m.start() for m in re.finditer(f"(?={re.escape(old)})", base_text)] if old else []  # overlaps too
    if len(exact) > 1 and (pick := nearest([base_text.count("\n", 0, s) for s in exact], near_line)) is not None:
        exact = [exact[pick]]
    if len(exact) == 1:
        return Located(Found("exact", exact[0], exact[0] + len(old)))
    if len(exact) > 1:
        return Located(None, [(s, s + len(old)) for s in exact], "exact")
    base = Lines(base_text)
    quoted, newline = _quoted_lines(old)
    if not any(q.strip() for q in quoted):
        return Located(None)
    for kind, key in (("trailingWhitespace", str.rstrip), ("indentation", str.strip)):
        hits = _windows(base, quoted, key)
        if len(hits) > 1 and (pick := nearest(hits, near_line)) is not None:
            hits = [hits[pick]]
        if len(hits) == 1:
            start, end = base.span(hits[0], len(quoted), newline)
            delta = (
                _uniform_delta(base.lines[hits[0] : hits[0] + len(quoted)], quoted) if kind == "indentation" else None
            )
            return Located(Found(kind, start, end, 1.0, delta))
        if len(hits) > 1:
            return Located(None, [base.span(h, len(quoted), newline) for h in hits], kind)
    elided = _elided(base, quoted, newline)
    if elided is not None:
        return elided
    if fuzzy:
        return _fuzzy(base, quoted, newline, min_similarity)
    return Located(None)


def _uniform_delta(base_lines: list[str], quoted: list[str]) -> int | None:
    deltas = {_indent(b) - _indent(q) for b, q in zip(base_lines, quoted, strict=True) if q.strip()}
    return deltas.pop() if len(deltas) == 1 else None


def _is_elision(line: str, base: Lines) -> bool:
    stripped = line.strip()
    if stripped in ("<truncated/>", "</truncated>", "<truncated />"):
        return True
    return stripped in ("...", "…") and not any(b.strip() == stripped for b in base.lines)


def _elided(base: Lines, quoted: list[str], newline: bool) -> Located | None:
    marks = [k for k, q in enumerate(quoted) if _is_elision(q, base)]
    if len(marks) != 1:
        return None
    head, tail = quoted[: marks[0]], quoted[marks[0] + 1 :]
    if not head or not tail:
        return None
    heads = _windows(base, head, str.rstrip)
    if len(heads) != 1:
        return Located(None, [base.span(h, len(head), False) for h in heads], "truncated") if heads else None
    after = heads[0] + len(head)
    tails = [t for t in _windows(base, tail, str.rstrip) if t >= after]
    if len(tails) != 1:
        return Located(None, [base.span(t, len(tail), False) for t in tails], "truncated") if tails else None
    start = base.span(heads[0], 1, False)[0]
    end = base.span(tails[0], len(tail), newline)[1]
    return Located(Found("truncated", start, end))


def _fuzzy(base: Lines, quoted: list[str], newline: bool, min_similarity: float) -> Located:
    """Windows of the same line count, similarity >= ``min_similarity`` and a clear lead over the runner-up."""
    n = len(quoted)
    if n > len(base.lines):
        return Located(None)
    target = "\n".join(line.strip() for line in quoted)
    windows = ["\n".join(line.strip() for line in base.lines[i : i + n]) for i in range(len(base.lines) - n + 1)]
    scored = process.extract(target, windows, scorer=Indel.normalized_similarity, limit=2, score_cutoff=0.5)
    if not scored or scored[0][1] < min_similarity:
        return Located(None)
    best = scored[0]
    if len(scored) > 1 and best[1] - scored[1][1] < FUZZY_LEAD:
        spans = [base.span(s[2], n, newline) for s in scored]
        return Located(None, spans, "fuzzy")
    start, end = base.span(best[2], n, newline)
    return Located(Found("fuzzy", start, end, round(float(best[1]), 4)))
