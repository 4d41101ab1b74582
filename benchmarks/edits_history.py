"""Inline edits on real rewrites: click's history, consecutive first-parent commits.

For every function, method or class a commit changed, a model rewrites it on the version it saw (``oldText`` =
the old definition, ``newText`` = the commit's) while the user makes the same commit's other changes: the
document goes from the old file to the new file with the old definition still in place, either as one
incremental change per hunk, or as one change per character typed (a hunk's old lines deleted, then its new
text typed a character at a time). Then the model's edit is resolved from its base version, as
``tether/edits/resolve`` does (the same history, the same engine): the result must be the committed file
exactly.

The clock is simulated: a hunk takes 2 s, a character 0.2 s (5 characters a second), so the time window of
``tether.limits.historySeconds`` is exercised as a user would. An evicted base is counted apart, split by
whether the edit came within the window (a bug) or after it (the documented limit).
Prints exact results, statuses and time per resolve. Asserts nothing.
"""

from __future__ import annotations

import difflib
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.history import Blobs, changed_python, collect, definitions, sampled_pairs
from benchmarks.syntax import pct
from tether_lsp.handlers.edits.resolve import EditRequest, Options, resolve_all
from tether_lsp.server.documents import ContentChange, Document, HistoryBudget
from tether_lsp.server.positions import Encoding, Pos

SEED = 20
COMMITS = 400
MAX_TYPED = 20_000  # characters: longer user changes are typed as one change per hunk only
SECONDS_PER_HUNK = 2.0
SECONDS_PER_CHARACTER = 0.2


@dataclass
class Case:
    label: str
    old: bytes  # the model's base: the file before the commit
    user: bytes  # what the user makes of it: the new file with the old definition still there
    new: bytes  # the committed file
    old_text: str
    new_text: str


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def cases_of_commit(blobs: Blobs, repo: Path, parent: str, commit: str) -> Iterator[Case]:
    for old_path, new_path in changed_python(repo, parent, commit):
        old, new = blobs.read(parent, old_path), blobs.read(commit, new_path)
        if old is None or new is None or b"\r" in old or b"\r" in new:
            continue
        before, after = definitions(old), definitions(new)
        if before is None or after is None:
            continue
        for name, found in after.items():
            was = before.get(name)
            if was is None or was.text(old) == found.text(new):
                continue
            user = new[: found.start] + was.text(old) + new[found.end :]
            label = f"{commit[:8]}:{new_path}:{name}"
            yield Case(label, old, user, new, was.text(old).decode(), found.text(new).decode())


def position(text: bytes, offset: int) -> Pos:
    line_start = text.rfind(b"\n", 0, offset) + 1
    return Pos(text.count(b"\n", 0, offset), offset - line_start)


def changes(old: bytes, user: bytes, per_character: bool) -> Iterator[tuple[ContentChange, float]]:
    """The user's changes, top to bottom, each with the seconds it takes, in positions of the text it edits."""
    a, b = old.splitlines(keepends=True), user.splitlines(keepends=True)
    text, shift = old, 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        start = sum(map(len, a[:i1])) + shift
        end = start + sum(map(len, a[i1:i2]))
        inserted = b"".join(b[j1:j2])
        if not per_character or len(inserted) > MAX_TYPED:
            yield ContentChange(inserted.decode(), (position(text, start), position(text, end))), SECONDS_PER_HUNK
            text = text[:start] + inserted + text[end:]
        else:
            if end > start:
                yield ContentChange("", (position(text, start), position(text, end))), SECONDS_PER_HUNK
                text = text[:start] + text[end:]
            at = start
            for char in inserted.decode():
                here = position(text, at)
                yield ContentChange(char, (here, here)), SECONDS_PER_CHARACTER
                data = char.encode()
                text = text[:at] + data + text[at:]
                at += len(data)
        shift += len(inserted) - (end - start)


def run(case: Case, per_character: bool, budget: HistoryBudget) -> tuple[str, float | None, int]:
    """The outcome (``exact``, a status, ``evicted-in-window``, ``evicted-after-window``), ms, versions."""
    clock = Clock()
    doc = Document("file:///bench/case.py", "python", 1, case.old.decode(), budget=budget, clock=clock)
    version = 1
    for change, seconds in changes(case.old, case.user, per_character):
        clock.now += seconds
        version += 1
        doc.apply(version, [change], Encoding.UTF8)
    assert doc.current.text == case.user, case.label
    started = time.perf_counter()
    base = doc.get(1)
    edits = doc.edits_since(1)
    if base is None or edits is None:
        within = clock.now <= budget.seconds
        return ("evicted-in-window" if within else "evicted-after-window"), None, version - 1
    request = EditRequest("e", case.old_text, case.new_text)
    (result,) = resolve_all(base.text, doc.current.text, list(edits), [request], Options())
    ms = (time.perf_counter() - started) * 1000
    if result.status != "resolved" or result.span is None or result.new_text is None:
        return result.status, ms, version - 1
    current = doc.current.text
    out = current[: result.span[0]] + result.new_text.encode() + current[result.span[1] :]
    return ("exact" if out == case.new else "resolved, not exact"), ms, version - 1


def main() -> None:
    repo, name, sample = sampled_pairs(__doc__ or "", COMMITS, SEED)
    cases = collect(repo, sample, cases_of_commit)
    budget = HistoryBudget()
    print(f"Inline edits on {name}'s history: {len(sample)} commit pairs (seed {SEED}), {len(cases)} rewrites")
    print(f"  history budget: {budget.bytes:,} bytes, {budget.seconds:g} s; a hunk takes {SECONDS_PER_HUNK:g} s,")
    print(f"  a typed character {SECONDS_PER_CHARACTER:g} s")
    print(
        "| user changes | rewrites | exact | exact, edits within the window | statuses "
        "| versions since the base (p50 / max) | resolve p50 / p99 |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    failures: list[str] = []
    for per_character in (False, True):
        outcomes: Counter[str] = Counter()
        times: list[float] = []
        versions: list[float] = []
        for case in cases:
            outcome, ms, count = run(case, per_character, budget)
            outcomes[outcome] += 1
            versions.append(count)
            if ms is not None:
                times.append(ms)
            if outcome != "exact":
                failures.append(f"  {'per character' if per_character else 'per hunk'}: {case.label}: {outcome}")
        mode = "one per character typed" if per_character else "one per hunk"
        exact = outcomes["exact"]
        share = 100 * exact / len(cases) if cases else 0.0
        within = len(cases) - outcomes["evicted-after-window"]
        share_within = 100 * exact / within if within else 0.0
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        timing = f"{pct(times, 50):.2f} / {pct(times, 99):.2f} ms" if times else "-"
        print(
            f"| {mode} | {len(cases)} | {exact} ({share:.1f}%) | {exact} of {within} ({share_within:.1f}%) "
            f"| {statuses} | "
            f"{pct(versions, 50):.0f} / {max(versions, default=0)} | {timing} |"
        )
    if failures:
        print(f"Not exact ({len(failures)}):")
        print("\n".join(failures[:60]))


if __name__ == "__main__":
    main()
