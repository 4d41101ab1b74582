"""The reference design's way of recalculating locations, for the benchmark's ratio (not used by Tether).

Per request: write both texts, run ``git diff -U3`` (a fresh process), parse hunks into Changes, and for each
location's start/end line inside a Change pick the most similar added line with difflib's ratio (threshold 0.5).
Only what the benchmark needs: line numbers, no columns.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from difflib import SequenceMatcher
from pathlib import Path

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _changes(diff: str) -> list[tuple[int, list[str], int, list[str]]]:
    """(delStart, dels, addStart, adds), 1-based, from a unified diff."""
    out: list[tuple[int, list[str], int, list[str]]] = []
    old_line = new_line = 0
    current: tuple[int, list[str], int, list[str]] | None = None
    for line in diff.splitlines():
        m = HUNK.match(line)
        if m:
            old_line, new_line = int(m.group(1)), int(m.group(3))
            current = None
            continue
        if not old_line and not new_line:
            continue
        if line.startswith("-") and not line.startswith("---"):
            if current is None:
                current = (old_line, [], new_line, [])
                out.append(current)
            current[1].append(line[1:])
            old_line += 1
        elif line.startswith("+") and not line.startswith("+++"):
            if current is None:
                current = (old_line, [], new_line, [])
                out.append(current)
            current[3].append(line[1:])
            new_line += 1
        else:
            current = None
            old_line += 1
            new_line += 1
    return out


def _map(line: int, old_lines: list[str], changes: list[tuple[int, list[str], int, list[str]]]) -> int | None:
    offset = 0
    for del_start, dels, add_start, adds in changes:
        if line < del_start or (not dels and line < del_start):
            break
        if line < del_start + len(dels):
            text = old_lines[line - 1]
            scored = [(SequenceMatcher(None, text, a).ratio(), k) for k, a in enumerate(adds)]
            best = max(scored, default=(0.0, 0))
            return add_start + best[1] if best[0] >= 0.5 else None
        offset = (add_start + len(adds)) - (del_start + len(dels))
    return line + offset


def recalculate(old_text: str, new_text: str, lines: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int] | None]:
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp, "a"), Path(tmp, "b")
        a.write_text(old_text, encoding="utf-8")
        b.write_text(new_text, encoding="utf-8")
        diff = subprocess.run(
            ["git", "diff", "--no-index", "-U3", str(a), str(b)], capture_output=True, text=True, check=False
        ).stdout
    changes = _changes(diff)
    old_lines = old_text.split("\n")
    out: dict[str, tuple[int, int] | None] = {}
    for key, (start, end) in lines.items():
        s, e = _map(start, old_lines, changes), _map(end, old_lines, changes)
        out[key] = None if s is None or e is None else (s, e)
    return out
