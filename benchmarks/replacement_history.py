"""Replacement analysis on real rewrites: click's history, consecutive first-parent commits.

Every function, method or class (decorators included, nested ones too) whose text a commit changed is a
rewrite case; the completion is the commit's new definition as a model writes it (first line from the cursor
column, the rest at their own indentation). Up to four cursor placements per rewrite, each a blank line at
the definition's indentation:

- ``above``: a line opened right above the definition (expected: replace, the opened line absorbed);
- ``separator``: when one blank line or more separates the definition from the code before it in its block,
  the cursor on the last of them with the definition's indentation typed (expected: replace, the separator
  kept, empty);
- ``scope-end``: at the end of the enclosing scope (the class, function or module holding it);
- ``below``: right below the definition.

Expected for all of them: ``replace``, the old definition's lines exactly, and the accepted edit leaves the
document with the old definition swapped for the new one. Definitions a commit added (the name absent from
the old file's top level) are ``new`` cases on a blank line at the end of the file: expected ``insert``.
Prints the table per placement, the failures with their reasons, and p50 analysis time (``--json FILE`` also
writes the figures as JSON). Asserts nothing.

``--baseline REV`` also runs the Python adapter as it was at ``REV`` (say, before a change to scoping) on every
case, interleaved with today's (the order alternates per case), and prints both tables and times.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import figures
from benchmarks.history import Blobs, Definition, changed_python, collect, definitions, sampled_history
from benchmarks.syntax import pct
from tether_lsp.handlers.replacement import engine
from tether_lsp.handlers.replacement.engine import analyze
from tether_lsp.handlers.replacement.model import Adapter, Analysis, Options
from tether_lsp.handlers.replacement.ranges import normalised
from tether_lsp.server.syntax import parse_text

SEED = 20
COMMITS = 400  # sampled commit pairs (B = A + 1 on the first-parent line)
PLACEMENTS = ("above", "separator", "scope-end", "below")
SKIPPED: Counter[str] = Counter()  # rewrites that are no case, by why


@dataclass
class Case:
    label: str  # commit:path:qualified name
    placement: str
    document: bytes
    cursor: int
    completion: str
    expected_span: tuple[int, int] | None  # None: an insert is expected
    expected_result: bytes | None


def reindent(text: bytes, old_column: int, new_column: int) -> bytes:
    """The new definition moved to the old one's column (a model writes at the cursor)."""
    if old_column == new_column:
        return text
    shift = old_column - new_column
    if shift > 0:
        return b"\n".join(b" " * shift + line if line.strip() else line for line in text.split(b"\n"))
    return b"\n".join(line[-shift:] for line in text.split(b"\n"))


def rewrite_cases(label: str, old: bytes, found: Definition, new: Definition, new_data: bytes) -> list[Case]:
    indent = old[found.start : found.start + found.column]  # tabs stay tabs
    if new_data[new.start : new.start + new.column].strip(b" ") != indent.strip(b" "):
        SKIPPED["rewrites where the commit changed tabs to spaces or back"] += 1
        return []
    body = reindent(new.text(new_data), found.column, new.column)
    completion = body[found.column :].decode("utf-8", "replace")
    old_span = found.start, found.end
    if found.decorated and not new.decorated:
        # a completion without decorators keeps the old ones: it replaces from the old `def` line onwards
        old_span = (old.index(b"\n", found.start, found.end) + 1, found.end)
        while old[old_span[0] :].lstrip().startswith(b"@"):
            old_span = (old.index(b"\n", old_span[0]) + 1, found.end)
    if normalised(old[old_span[0] : old_span[1]].decode("utf-8", "replace")) == normalised(completion):
        SKIPPED["rewrites of whitespace only, or of decorators removed (rightly 'identical')"] += 1
        return []
    out = []
    for placement in PLACEMENTS:
        at = {"above": found.start, "scope-end": found.scope_end, "below": found.end}.get(placement, found.start)
        if placement == "separator":
            if not separated(old, found.start, found.column) or old_span[0] != found.start:
                continue
            blank = found.start - 1  # the separator's start: it is empty, right above the definition
            document = old[:blank] + indent + old[blank:]
            span = (old_span[0] + len(indent), old_span[1] + len(indent))
            expected = old[: old_span[0]] + body + old[old_span[1] :]
            out.append(Case(label, placement, document, blank + len(indent), completion, span, expected))
            continue
        if placement == "above":
            document = old[:at] + indent + b"\n" + old[at:]
            cursor = at + len(indent)
            shift = len(indent) + 1
        else:
            document = old[:at] + b"\n" + indent + old[at:]
            cursor = at + 1 + len(indent)
            shift = 1 + len(indent) if at <= found.start else 0
        span = (old_span[0] + shift, old_span[1] + shift)
        expected = document[: span[0]] + body + document[span[1] :]
        if placement == "above" and old_span[0] == found.start:
            expected = old[: old_span[0]] + body + old[old_span[1] :]  # the opened line right above is absorbed
        out.append(Case(label, placement, document, cursor, completion, span, expected))
    return out


def separated(data: bytes, start: int, column: int) -> bool:
    """An empty line right above the line at ``start``, and above the blank lines there, code of the same block
    (indented at least ``column``), not the block's header."""
    if start < 2 or data[start - 2 : start] != b"\n\n":
        return False
    above = data[: start - 1].rstrip(b" \t\r\n")
    line = above[above.rfind(b"\n") + 1 :]
    return bool(line.strip()) and len(line) - len(line.lstrip(b" \t")) >= column


def new_text_column(text: bytes) -> int:
    return len(text) - len(text.lstrip(b" "))


def new_case(label: str, old: bytes, new_text: bytes) -> Case:
    column = new_text_column(new_text)
    body = reindent(new_text, 0, column)
    stem = old.rstrip()
    document = stem + b"\n\n\n"
    return Case(label, "new", document, len(document), body.decode("utf-8", "replace"), None, None)


def cases_of_commit(blobs: Blobs, repo: Path, parent: str, commit: str) -> list[Case]:
    out: list[Case] = []
    for old_path, new_path in changed_python(repo, parent, commit):
        old, new = blobs.read(parent, old_path), blobs.read(commit, new_path)
        if old is None or new is None or b"\r" in old:
            continue
        before, after = definitions(old), definitions(new)
        if before is None or after is None:
            SKIPPED["changed files that Python 3 does not compile (Python 2, fragments, mixed tabs)"] += 1
            continue
        top_level = {name for name in before if "." not in name}
        for name, found in after.items():
            label = f"{commit[:8]}:{new_path}:{name}"
            if name in before:
                was = before[name]
                if was.text(old) != found.text(new):
                    out.extend(rewrite_cases(label, old, was, found, new))
            elif name.rpartition(".")[2] not in top_level and "." not in name:
                out.append(new_case(label, old, found.text(new)))
    return out


def verdict(case: Case, result: Analysis) -> str | None:
    """None when the analysis is what the case expects, else what went wrong."""
    if case.expected_span is None:
        return None if result.mode == "insert" else f"replace of {result.replace_span}: {result.reason}"
    if result.mode != "replace":
        return f"insert: {result.reason}"
    if result.replace_span != case.expected_span:
        return f"range {result.replace_span} instead of {case.expected_span}"
    start, end = result.edit_span
    applied = case.document[:start] + result.new_text.encode() + case.document[end:]
    return None if applied == case.expected_result else "the accepted edit leaves a different file"


@dataclass
class Tally:
    """One adapter's results over the cases."""

    totals: Counter[str]
    passed: Counter[str]
    failures: dict[str, list[str]]
    times: list[float]

    @classmethod
    def empty(cls) -> Tally:
        return cls(Counter(), Counter(), defaultdict(list), [])

    def add(self, case: Case, adapter: Adapter) -> None:
        tree = parse_text("python", case.document)
        engine.ADAPTERS["python"] = adapter
        t = time.perf_counter()
        result = analyze(case.document, tree, "python", case.cursor, case.completion, Options())
        self.times.append((time.perf_counter() - t) * 1000)
        self.totals[case.placement] += 1
        wrong = verdict(case, result)
        if wrong is None:
            self.passed[case.placement] += 1
        else:
            self.failures[case.placement].append(f"{case.label}: {wrong}")

    def table(self, title: str) -> None:
        print(f"{title}\n| placement | cases | exact (replace: range and result; new: insert) |\n| --- | --- | --- |")
        for placement in (*PLACEMENTS, "new"):
            n = self.totals[placement]
            share = 100 * self.passed[placement] / n if n else 0.0
            print(f"| {placement} | {n} | {self.passed[placement]} ({share:.1f}%) |")
        print(f"  analysis p50 {pct(self.times, 50):.2f} ms, p99 {pct(self.times, 99):.2f} ms (n={len(self.times)})")

    def figures(self) -> dict[str, object]:
        placements = {p: {"cases": self.totals[p], "exact": self.passed[p]} for p in (*PLACEMENTS, "new")}
        times = {"p50": pct(self.times, 50), "p99": pct(self.times, 99), "n": len(self.times)} if self.times else None
        return {"placements": placements, "analysis_ms": times, "failures": dict(self.failures)}


def adapter_at(rev: str) -> Adapter:
    """The Python adapter as it was at ``rev``, loaded beside today's (its relative imports are today's)."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(
        ["git", "show", f"{rev}:handlers/replacement/python_adapter.py"], cwd=root, capture_output=True, check=True
    ).stdout
    name = "tether_lsp.handlers.replacement._baseline_python_adapter"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "tether_lsp.handlers.replacement"
    exec(compile(source, f"{rev}:python_adapter.py", "exec"), module.__dict__)
    adapter: Adapter = module  # a module with the adapter's functions
    return adapter


def main() -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--baseline", help="also run the Python adapter as it was at this revision, interleaved")
    baseline_rev = parser.parse_known_args()[0].baseline
    history = sampled_history(__doc__ or "", COMMITS, SEED)
    repo, name, sample = history.source.repository, history.name, history.pairs
    cases = collect(repo, sample, cases_of_commit)
    today, current = Tally.empty(), engine.ADAPTERS["python"]
    baseline, old = (Tally.empty(), adapter_at(baseline_rev)) if baseline_rev else (None, None)
    for k, case in enumerate(cases):
        if baseline is None or old is None:
            today.add(case, current)
        elif k % 2:
            today.add(case, current)
            baseline.add(case, old)
        else:
            baseline.add(case, old)
            today.add(case, current)
    engine.ADAPTERS["python"] = current
    print(f"Replacement analysis on {name}'s history: {len(sample)} commit pairs (seed {SEED}), {len(cases)} cases")
    today.table("Today's engine:")
    if baseline is not None:
        baseline.table(f"The Python adapter at {baseline_rev} (same cases, interleaved):")
        ratio = pct(today.times, 50) / pct(baseline.times, 50)
        print(f"  p50 today / p50 at {baseline_rev}: {ratio:.2f}")
    for why, count in SKIPPED.items():
        print(f"  not a case: {count} {why}")
    for placement, lines in today.failures.items():
        print(f"Failures, {placement} ({len(lines)}):")
        for line in lines[:40]:
            print(f"  {line}")
    figures.write({"history": history.figures(), "cases": len(cases), "not_cases": dict(SKIPPED), **today.figures()})


if __name__ == "__main__":
    main()
