"""Agents' edits on real commits: how each way of naming an edit fares when the file moved on since the agent read it.

Consecutive first-parent commits of click's history (or ``--repo``). In a Python file whose change has two or
more hunks (as ``git diff`` groups them: changes within 6 lines of each other are one hunk), each hunk in turn
is the agent's edit, written against the commit's parent as agents write search/replace: the hunk's old lines
plus one line of context each side, and the same span of the new file. Meanwhile the "user" has already made
the commit's other hunks. The right answer is the committed file, exactly.

Strategies, compared on the same cases:

* line range — the hunk's lines (as numbered in the version the agent read) replaced in the file as it is now,
  as MCP servers that edit by line range do;
* first match — the first occurrence of the old text in the file as it is now replaced, no base version;
* Tether ``edit`` with ``old_text`` and ``base_version``; with ``old_text``, ``base_version`` and the hunk's
  ``line``; with a ``range`` in ``base_version``.

Tether's are called through the MCP tools' adapters in-process (``tether_lsp.mcp.read`` and ``.edit`` on a real
file in a temporary root), not through the stdio transport. Printed per strategy: files exactly as committed,
edits written in the wrong place, refused (not found, conflict), ambiguous; then every case a Tether strategy
missed. Then the latency of ``select`` and ``edit`` on a 10,000-line file (``--lines``) and the time from
starting ``tether-lsp mcp`` to its first answers (:mod:`benchmarks.agent_latency`). ``--json FILE`` also writes
the figures as JSON. Asserts nothing.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import figures
from benchmarks.agent_latency import latency, start_up
from benchmarks.history import Blobs, changed_python, collect, sampled_history
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.tools import table
from tether_lsp.server.errors import TetherError

edit, read = table()["edit"].answer, table()["read"].answer  # as the front calls them: arguments checked first

SEED = 31
COMMITS = 300
CONTEXT = 3  # lines of context git's hunks have: changes within 2 * CONTEXT lines of each other are one hunk
STRATEGIES = (
    "line range",
    "first match",
    "tether old_text",
    "tether old_text + line",
    "tether range",
)
#: What each strategy is held to: no edit in the wrong place, and for some every file exactly as committed.
TARGETS = {
    "tether old_text": "none wrong",
    "tether old_text + line": "100% exact, none wrong",
    "tether range": "100% exact, none wrong",
}


@dataclass(frozen=True)
class Case:
    label: str
    base: bytes  # the commit's parent: what the agent read
    current: bytes  # the parent with the commit's other hunks made: the file when the edit arrives
    new: bytes  # the committed file
    old_text: str  # the hunk's old lines with a line of context each side
    new_text: str
    first: int  # 0-based lines [first, last) of old_text in base
    last: int


def hunks(a: list[bytes], b: list[bytes]) -> list[tuple[int, int, int, int]]:
    """``git diff``'s hunks as line spans ``(i1, i2, j1, j2)`` of the old and new lines that changed."""
    out = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        changed = [op for op in group if op[0] != "equal"]
        out.append((changed[0][1], changed[-1][2], changed[0][3], changed[-1][4]))
    return out


def cases_of_commit(blobs: Blobs, repo: Path, parent: str, commit: str) -> Iterator[Case]:
    for old_path, new_path in changed_python(repo, parent, commit):
        old, new = blobs.read(parent, old_path), blobs.read(commit, new_path)
        if old is None or new is None or b"\r" in old or b"\r" in new:
            continue
        try:
            old.decode("utf-8"), new.decode("utf-8")
        except UnicodeDecodeError:
            continue
        a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
        found = hunks(a, b)
        if len(found) < 2:
            continue
        for k, (i1, i2, j1, j2) in enumerate(found):
            first, last = max(i1 - 1, 0), min(i2 + 1, len(a))
            before, after = i1 - first, last - i2
            old_text, new_text = b"".join(a[first:last]), b"".join(b[j1 - before : j2 + after])
            if not old_text:
                continue
            current = b"".join(b[:j1] + a[i1:i2] + b[j2:])
            label = f"{commit[:8]}:{new_path}: hunk {k + 1} of {len(found)}, line {first + 1}"
            yield Case(label, old, current, new, old_text.decode(), new_text.decode(), first, last)


# --- the strategies ---------------------------------------------------------------------------------------


def by_line_range(case: Case) -> tuple[str, bytes | None]:
    lines = case.current.splitlines(keepends=True)
    out = b"".join(lines[: case.first]) + case.new_text.encode() + b"".join(lines[case.last :])
    return "written", out


def by_first_match(case: Case) -> tuple[str, bytes | None]:
    current, old = case.current, case.old_text.encode()
    at = current.find(old)
    if at < 0:
        return "refused: not found", None
    return "written", current[:at] + case.new_text.encode() + current[at + len(old) :]


class Tether:
    """Tether's ``edit`` through the MCP tools' adapters, on a real file in a temporary root."""

    def __init__(self, folder: Path) -> None:
        self.context = Context([folder])
        self.file = folder / "case.py"

    def base_version(self, case: Case) -> str:
        self.file.write_bytes(case.base)
        version: str = read(self.context, {"path": "case.py"}).structured["version"]
        return version

    def edit(self, case: Case, base_version: str, target: dict[str, Any]) -> tuple[str, bytes | None]:
        self.file.write_bytes(case.current)  # the user's changes, made outside
        try:
            answer = edit(
                self.context,
                {"path": "case.py", "base_version": base_version, "edits": [{**target, "new_text": case.new_text}]},
            ).structured
        except TetherError as exc:
            return f"refused: {exc.message}", None
        status = answer["results"][0]["status"]
        if not answer["written"]:
            return ("ambiguous" if status == "ambiguous" else f"refused: {status}"), None
        return "written", self.file.read_bytes()


def range_of(case: Case) -> dict[str, Any]:
    """The old text's span in the base as a ``range`` (1-based; the end is the start of the line after it)."""
    lines = case.base.splitlines(keepends=True)
    end = {"line": case.last + 1, "column": 1}
    if case.last == len(lines) and not lines[-1].endswith(b"\n"):  # the last line, without a line break
        end = {"line": case.last, "column": len(lines[-1].decode()) + 1}
    return {"start": {"line": case.first + 1, "column": 1}, "end": end}


def outcomes(case: Case, tether: Tether) -> dict[str, str]:
    """Each strategy's outcome on ``case``: exact, wrong, ambiguous or refused (with why)."""
    base_version = tether.base_version(case)
    runs: dict[str, Callable[[], tuple[str, bytes | None]]] = {
        "line range": lambda: by_line_range(case),
        "first match": lambda: by_first_match(case),
        "tether old_text": lambda: tether.edit(case, base_version, {"old_text": case.old_text}),
        "tether old_text + line": lambda: tether.edit(
            case, base_version, {"old_text": case.old_text, "line": case.first + 1}
        ),
        "tether range": lambda: tether.edit(case, base_version, {"range": range_of(case)}),
    }
    out = {}
    for name, attempt in runs.items():
        status, text = attempt()
        out[name] = status if text is None else ("exact" if text == case.new else "wrong")
    return out


def kind(outcome: str) -> str:
    return outcome.split(":", 1)[0]


def compare(cases: list[Case]) -> dict[str, Any]:
    print("Strategies go through the MCP tools' adapters in-process (tether_lsp.mcp.read and .edit on a real")
    print("file in a temporary root), not through the stdio transport.")
    counts: dict[str, Counter[str]] = {name: Counter() for name in STRATEGIES}
    repeated = 0
    missed: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory() as folder:
        tether = Tether(Path(folder))
        for case in cases:
            repeated += case.current.count(case.old_text.encode()) > 1
            for name, outcome in outcomes(case, tether).items():
                counts[name][kind(outcome)] += 1
                if name.startswith("tether") and kind(outcome) != "exact":
                    missed.append({"strategy": name, "case": case.label, "outcome": outcome})
    total = len(cases)
    strategies: dict[str, dict[str, Any]] = {}
    print("| strategy | edits | exactly as committed | in the wrong place | refused | ambiguous | target |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in STRATEGIES:
        c = counts[name]
        share = 100 * c["exact"] / total if total else 0.0
        target = TARGETS.get(name, "-")
        ok = c["wrong"] == 0 and ("100%" not in target or c["exact"] == total) if name in TARGETS else None
        met = "" if ok is None else " (met)" if ok else " (MISSED)"
        strategies[name] = {"edits": total, **{k: c[k] for k in ("exact", "wrong", "refused", "ambiguous")}}
        strategies[name] |= {"target": TARGETS.get(name), "met": ok}
        print(
            f"| {name} | {total} | {c['exact']} ({share:.1f}%) | {c['wrong']} | {c['refused']} | {c['ambiguous']} "
            f"| {target}{met} |"
        )
    print(f"Old text found more than once in the file as it is now (first match picks one): {repeated}")
    if missed:
        print(f"Cases a Tether strategy did not make exactly as committed ({len(missed)}):")
        print("\n".join(f"  {m['strategy']}: {m['case']}: {m['outcome']}" for m in missed))
    return {
        "calls": "MCP adapters, in-process",
        "strategies": strategies,
        "repeated_old_text": repeated,
        "missed": missed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--lines", type=int, default=10_000, help="lines of the file latency is measured on")
    parser.add_argument("--rounds", type=int, default=300, help="select and edit calls timed")
    parser.add_argument("--starts", type=int, default=5, help="times tether-lsp mcp is started")
    options, _ = parser.parse_known_args()
    history = sampled_history(__doc__ or "", COMMITS, SEED)
    name, sample = history.name, history.pairs
    cases = collect(history.source.repository, sample, cases_of_commit)
    files = len({c.label.rsplit(":", 1)[0] for c in cases})
    print(f"Agents' edits on {name}'s history: {len(sample)} commit pairs (seed {SEED}), {files} files with two or")
    print(f"more hunks, {len(cases)} hunks each edited by the agent while the user made the others")
    found = {"history": history.figures(), "files": files, "hunks": len(cases), **compare(cases)}
    found["latency"] = latency(options.lines, options.rounds, SEED)
    found["start_up"] = start_up(options.starts)
    figures.write(found)


if __name__ == "__main__":
    main()
