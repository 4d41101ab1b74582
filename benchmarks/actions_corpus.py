"""Structural actions over CPython's standard library: for every argument, parameter, element, dict entry,
statement, function and class, ``remove``, ``clone`` (after), ``swap`` with the next sibling and ``moveUp``
through the engine's generic actions (handlers/actions), each result checked against things no one here wrote:

- *valid*: the whole new text parses with tree-sitter with no ERROR or MISSING node, and with ``ast.parse``;
- *ast-equal*: its ``ast`` equals the expected transformation of the original's ``ast``
  (benchmarks/actions_corpus_expect.py says what is expected, and when the right answer is a refusal);
- *round-trip*: ``swap`` twice, and ``clone`` then ``remove`` of the copy, give the original bytes back.

Targets: 100% valid and ≥ 99.9% ast-equal of the actions the engine did not refuse.

    .venv/bin/python -m benchmarks.actions_corpus [--modules N] [--workers 2] [--json F] [paths...]

``--modules N`` takes N files spread evenly over the sorted standard library (default: all of it).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.actions_corpus_expect import ACTIONS
from benchmarks.actions_corpus_run import Engine, Report, TetherEngine, check_source
from benchmarks.actions_corpus_targets import KINDS
from benchmarks.syntax import pct

STDLIB = Path(sysconfig.get_paths()["stdlib"])
FAILURES = ("crash", "invalid", "unequal", "notRefused", "roundTripFails", "windowDisagrees", "refused")


def stdlib_files(modules: int | None = None) -> list[Path]:
    """The standard library's .py files (no third-party packages), ``modules`` of them spread evenly."""
    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
    if modules is not None and modules < len(files):
        step = len(files) / modules
        files = [files[int(k * step)] for k in range(modules)]
    return files


def check_files(files: list[Path], engine: Engine, verify_every: int = 0) -> Report:
    """In this process (tests hand in an engine of their own)."""
    report = Report()
    for path in files:
        check_source(_short(path), path.read_bytes(), engine, report, verify_every)
    return report


_ENGINE: Engine | None = None


def _work(job: tuple[str, int]) -> Report:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = TetherEngine()
    report = Report()
    path = Path(job[0])
    check_source(_short(path), path.read_bytes(), _ENGINE, report, job[1])
    return report


def check_parallel(files: list[Path], workers: int, verify_every: int) -> Report:
    """Files over ``workers`` processes, the largest first so no process is left with a big one at the end."""
    jobs = [(str(p), verify_every) for p in sorted(files, key=lambda p: -p.stat().st_size)]
    if workers <= 1:
        return check_files(files, TetherEngine(), verify_every)
    report = Report()
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for done, part in enumerate(pool.imap_unordered(_work, jobs, chunksize=4), 1):
            report.merge(part)
            if done % 200 == 0:
                print(f"  … {done}/{len(jobs)} files", file=sys.stderr, flush=True)
    return report


def _short(path: Path) -> str:
    try:
        return path.relative_to(STDLIB).as_posix()
    except ValueError:
        return str(path)


def table(report: Report) -> list[dict[str, object]]:
    """One row per action and kind: tried, refused (rightly: no Python text exists), valid, equal, round trips."""
    rows = []
    for action in ACTIONS:
        for kind in KINDS:
            c = {what: report.counts[f"{action}|{kind}|{what}"] for what in _WHATS}
            if not c["tried"]:
                continue
            acted = c["tried"] - c["refused"] - c["refusedRightly"] - c["crash"]
            rows.append({"action": action, "kind": kind, **c, "acted": acted})
    return rows


_WHATS = (
    "tried",
    "refused",
    "refusedRightly",
    "crash",
    "valid",
    "equal",
    "notRefused",
    "roundTripTried",
    "roundTrip",
    "verified",
    "windowDisagrees",
)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:7.3f}%" if whole else "      — "


def print_table(rows: list[dict[str, object]]) -> None:
    head = f"  {'action':<7} {'kind':<9} {'tried':>8} {'refused':>8} {'(right)':>8} {'valid':>8} {'':>8}"
    print(head + f" {'ast-equal':>9} {'':>8} {'round-trip':>14}")
    total: Counter[str] = Counter()
    for r in rows:
        total.update({k: v for k, v in r.items() if isinstance(v, int)})
        _print_row(str(r["action"]), str(r["kind"]), r)
    _print_row("all", "", dict(total))


def _print_row(action: str, kind: str, r: dict[str, object]) -> None:
    n = {k: int(v) for k, v in r.items() if isinstance(v, int)}
    trip = f"{n['roundTrip']}/{n['roundTripTried']}" if n["roundTripTried"] else "—"
    print(
        f"  {action:<7} {kind:<9} {n['tried']:>8} {n['refused'] + n['crash']:>8} {n['refusedRightly']:>8}"
        f" {n['valid']:>8} {_percent(n['valid'], n['acted'])} {n['equal']:>9} {_percent(n['equal'], n['acted'])}"
        f" {trip:>14}"
    )


def print_failures(report: Report, limit: int = 3) -> None:
    for key in sorted(report.examples):
        action, kind, what = key.split("|")
        if what not in FAILURES:
            continue
        count = report.counts[key] if what != "refused" else report.counts[f"{action}|{kind}|refused"]
        print(f"\n{what}: {action} {kind} ({count})")
        for example in report.examples[key][:limit]:
            print(f"  {example['where']}: {example['detail']}")
            for line in example["diff"].splitlines():
                print(f"      {line}")
    if report.refusals:
        print("\nRefusals by reason (the transformation had Python text):")
        for key, count in report.refusals.most_common(30):
            print(f"  {count:>7}  {key.replace('|', ' ', 2)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="files to check instead of the standard library")
    parser.add_argument("--modules", type=int, default=None, help="N standard library files, spread evenly")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--verify-every", type=int, default=200, help="judge every N-th pass on the whole file too")
    parser.add_argument("--json", type=Path, default=None, help="write the counts and examples here")
    args = parser.parse_args()
    files = args.paths or stdlib_files(args.modules)
    started = time.perf_counter()
    report = check_parallel(files, args.workers, args.verify_every)
    seconds = time.perf_counter() - started
    rows = table(report)
    where = "the given paths" if args.paths else f"{STDLIB} (Python {sys.version.split()[0]})"
    print(f"Structural actions over {len(files)} files of {where} ({seconds:.0f} s, {args.workers} workers)")
    print_table(rows)
    skipped = ", ".join(f"{k}: {v}" for k, v in report.skipped.items()) or "none"
    print(f"  files not taken: {skipped}")
    print(f"  containers not matched to an ast node: {dict(report.unmatched) or 'none'}")
    if report.engine_ms:
        ms = report.engine_ms
        print(f"  engine time per action: p50 {pct(ms, 50):.2f} ms, p99 {pct(ms, 99):.2f} ms (n={len(ms)})")
    print_failures(report)
    if args.json is not None:
        data = {
            "files": len(files),
            "seconds": round(seconds, 1),
            "rows": rows,
            "skipped": dict(report.skipped),
            "unmatched": dict(report.unmatched),
            "refusals": dict(report.refusals),
            "examples": report.examples,
        }
        args.json.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
