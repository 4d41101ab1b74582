"""Markers on real history against a plain ``git diff -U0`` line mapper. Prints, asserts nothing.

For commit pairs on the first-parent line (B = A + 1, A + 10, A + 100; fixed seed), every Python file that
the range modifies, renames or deletes gets a marker on each definition (function, method, class,
decorators included) whose qualified name is unique in the file at A. Driven over LSP as an editor does:
a fresh server on a working copy checked out at A, ``tether/markers/create`` on every definition,
``git checkout B``, the watched-files notification for ``.git/HEAD``, wait for ``tether/markers/didChange``,
``tether/markers/list`` on every file (``--no-watch --first-answer``: no notification, and the lists made right
after the checkout are scored: what an editor that does not watch HEAD shows before any ``didChange``); then
``git checkout A`` again, the same way, where every marker must be back where it was made (the line "checked
out A again"). Truth: the definition with the same qualified name at B (renamed files followed with ``-M``);
none when it is gone. In the same run, for the same markers:

* the baseline: lines mapped through the ``git diff -U0 -M`` hunks (a line in a hunk goes to the start or
  the end of the hunk's new side);
* Tether's engine in-process with lines only (``calculate``, no syntax), which shows what the diff does.

Subsets: ``untouched`` (same text, same order among the file's definitions), ``changed`` (text changed),
``moved`` (its place among the other definitions changed), ``deleted`` (gone at B: it should be missing).
``renamed file`` cuts across them: the definitions that exist at B in a file that the range renamed or moved
(``git diff -M``, so renamed with edits too). Random pairs seldom cross a rename, so besides them every
first-parent commit that renames a Python file gives pairs of its own (its parent to it, ten commits before to
it, its parent to ten commits after): the five that rename the most files, then a sample of the others, at
most ``--rename-pairs`` commits.
``exact`` = same first and last line as the truth; ``good`` = line IoU >= 0.8; ``wrong`` = IoU < 0.5.
``all`` counts the definitions that exist at B; ``deleted`` is reported apart (exact = reported missing).

Usage: ``python -m benchmarks.markers_history [--repo PATH] [--pairs 160] [--seed 16] [--rename-pairs 40]``
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.history import Blobs, clone, definitions, first_parent, git
from tether_lsp.handlers.markers.calculator import Location, calculate
from tether_lsp.server.lspclient import make_client, raw_request

DISTANCES = (1, 10, 100)
SUBSETS = ("untouched", "changed", "moved", "deleted")
WATCH_HEAD = True  # --no-watch: like an editor that sends no watched-files notification for .git/HEAD
FIRST_ANSWER = False  # --first-answer (with --no-watch): score the lists made right after each checkout
RENAMED = "renamed file"  # a row across the subsets: the file's path at B is not its path at A
Lines = tuple[int, int] | None  # first and last 0-based line, None when missing


@dataclass
class Case:
    subset: str
    name: str
    pair: tuple[str, str]
    path_a: str
    uri_b: str
    renamed: bool
    truth: Lines
    marker: Lines
    tether: Lines = None
    engine: Lines = None
    baseline: Lines = None
    back: Lines = None  # Tether after checking A out again
    deleted_at_b: bool = False  # listed missing, codeBlockDeleted, at B (in any file)
    deleted_back: bool = False  # the same after checking A out again


@dataclass
class Score:
    total: int = 0
    exact: int = 0
    good: int = 0
    wrong: int = 0

    def add(self, got: Lines, truth: Lines) -> None:
        self.total += 1
        if truth is None:
            self.exact += got is None
            self.good += got is None
            self.wrong += got is not None
            return
        iou = _iou(got, truth)
        self.exact += got == truth
        self.good += iou >= 0.8
        self.wrong += iou < 0.5

    def cell(self) -> str:
        if not self.total:
            return "—"
        return f"{100 * self.exact / self.total:.1f}% / {100 * self.good / self.total:.1f}%"


@dataclass
class Totals:
    scores: dict[tuple[str, str], Score] = field(default_factory=lambda: defaultdict(Score))
    head_ms: list[tuple[float, int]] = field(default_factory=list)
    #: (B or A again, subset) -> markers listed missing with codeBlockDeleted in some file while their code exists
    called_deleted: dict[tuple[str, str], int] = field(default_factory=dict)

    def add(self, case: Case) -> None:
        for system in ("tether", "engine", "baseline"):
            got = getattr(case, system)
            self.scores[(system, case.subset)].add(got, case.truth)
            if case.truth is not None:  # "all": the definitions that still exist (the table)
                self.scores[(system, "all")].add(got, case.truth)
                if case.renamed:
                    self.scores[(system, RENAMED)].add(got, case.truth)
        self.scores[("back", "all")].add(case.back, case.marker)
        if case.renamed:
            self.scores[("back", RENAMED)].add(case.back, case.marker)
        for subset in ("all", RENAMED) if case.renamed else ("all",):
            if case.truth is not None:  # the code exists at B: "deleted" there is wrong
                self.called_deleted[("B", subset)] = self.called_deleted.get(("B", subset), 0) + case.deleted_at_b
            self.called_deleted[("A", subset)] = self.called_deleted.get(("A", subset), 0) + case.deleted_back


def _iou(got: Lines, truth: Lines) -> float:
    if got is None or truth is None:
        return 0.0
    inter = min(got[1], truth[1]) - max(got[0], truth[0]) + 1
    union = max(got[1], truth[1]) - min(got[0], truth[0]) + 1
    return max(0, inter) / union


# --- the baseline: git diff -U0 hunks ---------------------------------------------------------------------

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


def git_hunks(repo: Path, a: str, b: str, path_a: str, path_b: str) -> list[tuple[int, int, int, int]]:
    """``(old start, old count, new start, new count)`` (1-based as git prints them) of one file's diff."""
    out = subprocess.run(
        ["git", "-C", str(repo), "diff", "-U0", "--no-color", "-M", a, b, "--", path_a, path_b],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [
        (int(m[1]), int(m[2]) if m[2] is not None else 1, int(m[3]), int(m[4]) if m[4] is not None else 1)
        for m in _HUNK.finditer(out)
    ]


def map_line(hunks: list[tuple[int, int, int, int]], line: int, *, end: bool) -> int:
    """A 0-based old line through the hunks: shifted outside them, the hunk's new first/last line inside."""
    shift = 0
    for old_start, old_count, new_start, new_count in hunks:
        first = old_start - 1 if old_count else old_start  # git names the line *before* an empty side
        if line < first:
            break
        if line < first + old_count:
            new_first = new_start - 1 if new_count else new_start
            if new_count == 0:
                return new_first - 1 if end else new_first
            return new_first + new_count - 1 if end else new_first
        shift = (new_start - 1 + new_count if new_count else new_start) - (first + old_count)
    return line + shift


def baseline(hunks: list[tuple[int, int, int, int]], marker: tuple[int, int], deleted_file: bool) -> Lines:
    if deleted_file:
        return None
    start, end = map_line(hunks, marker[0], end=False), map_line(hunks, marker[1], end=True)
    return None if end < start else (start, end)


# --- cases --------------------------------------------------------------------------------------------------


def _order_moved(names_a: list[str], names_b: list[str]) -> set[str]:
    """Names whose place among the common definitions changed (outside the longest common order)."""
    common = set(names_a) & set(names_b)
    a = [n for n in names_a if n in common]
    b = [n for n in names_b if n in common]
    kept: set[str] = set()
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        kept.update(a[block.a : block.a + block.size])
    return common - kept


def pair_cases(blobs: Blobs, repo: Path, work: Path, a: str, b: str) -> list[Case]:
    cases: list[Case] = []
    for line in git(repo, "diff", "--name-status", "-M", a, b, "--", "*.py").splitlines():
        status, *paths = line.split("\t")
        if status == "A":
            continue
        path_a, path_b = paths[0], paths[-1]
        data_a = blobs.read(a, path_a)
        defs_a = definitions(data_a) if data_a is not None else None
        if not defs_a:
            continue
        data_b = None if status == "D" else blobs.read(b, path_b)
        defs_b = {} if status == "D" else definitions(data_b) if data_b is not None else None
        if defs_b is None or data_a is None:
            continue
        moved = _order_moved(list(defs_a), list(defs_b))
        for name, d in defs_a.items():
            other = defs_b.get(name)
            if other is None:
                subset, truth = "deleted", None
            else:
                truth = (other.first_row if not other.decorated else _row(data_b, other.start), other.last_row)
                same = data_b is not None and other.text(data_b) == d.text(data_a)
                subset = "moved" if name in moved else "untouched" if same else "changed"
            first = _row(data_a, d.start)
            uri_b = (work / path_b).as_uri()
            renamed = path_b != path_a
            cases.append(Case(subset, name, (a, b), path_a, uri_b, renamed, truth, (first, d.last_row)))
    return cases


def _row(data: bytes | None, offset: int) -> int:
    return 0 if data is None else data.count(b"\n", 0, offset)


# --- Tether over LSP ----------------------------------------------------------------------------------------


async def tether_pair(work: Path, a: str, b: str, cases: list[Case], totals: Totals) -> None:
    """Create the markers at A, check out B, wait for the recalculation, list every file."""
    shutil.rmtree(work / ".git" / "tether", ignore_errors=True)
    git(work, "checkout", "-q", "--force", "--detach", a)
    client = make_client("bench")
    loop = asyncio.get_running_loop()
    waiting = [loop.create_future()]  # resolved by the next didChange

    @client.feature("tether/markers/didChange")
    def changed(_params: Any) -> None:
        if not waiting[0].done():
            waiting[0].set_result(None)

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create_token(_params: Any) -> None:
        return None

    await client.start_io(sys.executable, "-m", "tether_lsp")
    try:
        await raw_request(client, "initialize", {"processId": None, "rootUri": work.as_uri(), "capabilities": {}})
        client.initialized(types.InitializedParams())
        ids: dict[str, Case] = {}
        lines_of: dict[str, list[str]] = {}
        for case in cases:
            if case.path_a not in lines_of:
                lines_of[case.path_a] = (work / case.path_a).read_text(encoding="utf-8").split("\n")
        for start in range(0, len(cases), 50):  # requests in flight, as a client that does not wait for each
            batch = cases[start : start + 50]
            made = await asyncio.gather(
                *(answered(client, "tether/markers/create", _create(work, c, lines_of)) for c in batch)
            )
            for case, marker in zip(batch, made, strict=True):
                ids[marker["id"]] = case
        uris = {(work / c.path_a).as_uri() for c in cases} | {c.uri_b for c in cases}
        t = time.perf_counter()
        first = await _checkout(client, work, b, uris, waiting, ids)
        totals.head_ms.append(((time.perf_counter() - t) * 1000, len(cases)))
        for uri, marker, mine in first if FIRST_ANSWER else await _listed(client, uris, ids):
            if marker["range"] is None:
                mine.deleted_at_b |= marker.get("missingReason") == "codeBlockDeleted"
            elif marker["uri"] == mine.uri_b or uri == mine.uri_b:
                mine.tether = _lines(marker)
        first = await _checkout(client, work, a, uris, waiting, ids)  # and back to A: every marker where it was made
        for uri, marker, mine in first if FIRST_ANSWER else await _listed(client, uris, ids):
            if marker["range"] is None:
                mine.deleted_back |= marker.get("missingReason") == "codeBlockDeleted"
            elif uri == (work / mine.path_a).as_uri() and marker["uri"] == uri:
                mine.back = _lines(marker)
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()  # type: ignore[no-untyped-call]


async def _checkout(
    client: Any, work: Path, commit: str, uris: set[str], waiting: list[Any], ids: dict[str, Case]
) -> list[tuple[str, dict[str, Any], Case]]:
    """Check ``commit`` out and wait for the server's ``didChange`` once it has relocated the markers. Without
    the watched-files notification, the lists that tell the server (their answers are returned)."""
    waiting[0] = asyncio.get_running_loop().create_future()
    git(work, "checkout", "-q", "--force", "--detach", commit)
    first: list[tuple[str, dict[str, Any], Case]] = []
    if WATCH_HEAD:
        event = types.FileEvent(uri=(work / ".git" / "HEAD").as_uri(), type=types.FileChangeType.Changed)
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[event]))
    else:  # an editor that does not watch .git/HEAD: the next requests notice the new HEAD
        first = await _listed(client, uris, ids)
    await asyncio.wait_for(waiting[0], 300)
    return first


async def _listed(client: Any, uris: set[str], ids: dict[str, Case]) -> list[tuple[str, dict[str, Any], Case]]:
    """Every marker of the run as listed (located or missing), with the file it was listed for."""
    found = []
    for uri in sorted(uris):
        listed = await answered(client, "tether/markers/list", {"textDocument": {"uri": uri}})
        for marker in listed["markers"]:
            mine = ids.get(marker["id"])
            if mine is not None:
                found.append((uri, marker, mine))
    return found


def _lines(marker: dict[str, Any]) -> Lines:
    return (marker["range"]["start"]["line"], _last_line(marker["range"]))


async def answered(client: Any, method: str, params: Any) -> Any:
    """A request that must be answered within 300 s: a server that never answers is a bug to name, not a hang."""
    try:
        return await asyncio.wait_for(raw_request(client, method, params), 300)
    except TimeoutError:
        raise SystemExit(f"no answer to {method} {json.dumps(params)[:300]} within 300 s") from None


def _last_line(r: dict[str, Any]) -> int:
    end = r["end"]
    return end["line"] - 1 if end["character"] == 0 and end["line"] > r["start"]["line"] else end["line"]


def _create(work: Path, case: Case, lines_of: dict[str, list[str]]) -> dict[str, Any]:
    assert case.marker is not None
    first, last = case.marker
    lines = lines_of[case.path_a]
    end_char = len(lines[last].encode("utf-16-le")) // 2
    return {
        "textDocument": {"uri": (work / case.path_a).as_uri()},
        "range": {"start": {"line": first, "character": 0}, "end": {"line": last, "character": end_char}},
        "note": "bench",
    }


# --- the run ------------------------------------------------------------------------------------------------


def engine_lines(blobs: Blobs, a: str, b: str, repo: Path, cases: list[Case]) -> None:
    """Tether's calculator in-process, lines only: one diff per file, as a HEAD change computes it."""
    by_file: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for case in cases:
        by_file[(case.path_a, case.uri_b)].append(case)
    for (path_a, _), group in by_file.items():
        old = (blobs.read(a, path_a) or b"").decode("utf-8", "replace")
        new_bytes = blobs.read(b, _path_b(repo, a, b, path_a))
        if new_bytes is None:
            continue
        new = new_bytes.decode("utf-8", "replace")
        old_lines = old.split("\n")
        locs = {
            str(k): Location(c.marker[0] + 1, 1, c.marker[1] + 1, len(old_lines[c.marker[1]]) + 1)
            for k, c in enumerate(group)
            if c.marker is not None
        }
        results = calculate(old, new, locs)
        for k, c in enumerate(group):
            loc = results[str(k)].location
            c.engine = None if loc is None else (loc.line_start - 1, loc.line_end - 1)


_renames: dict[tuple[str, str], dict[str, str]] = {}


def _path_b(repo: Path, a: str, b: str, path_a: str) -> str:
    key = (a, b)
    if key not in _renames:
        found = {}
        for line in git(repo, "diff", "--name-status", "-M", a, b, "--", "*.py").splitlines():
            _status, *paths = line.split("\t")
            found[paths[0]] = paths[-1]
        _renames[key] = found
    return _renames[key].get(path_a, path_a)


def sample(commits: list[str], pairs: int, seed: int) -> list[tuple[int, str, str]]:
    rnd = random.Random(seed)
    out = []
    per = max(1, pairs // len(DISTANCES))
    for d in DISTANCES:
        starts = range(len(commits) - d)
        for k in sorted(rnd.sample(starts, min(per, len(starts)))):
            out.append((d, commits[k], commits[k + d]))
    return out


def rename_pairs(repo: Path, commits: list[str], limit: int, seed: int) -> list[tuple[int, str, str]]:
    """Pairs across the first-parent commits that rename a Python file (at most ``limit`` of them, sampled):
    parent -> commit, ten before -> commit, parent -> ten after. Distance 0 marks them in the report."""
    renamed_files: dict[int, int] = {}
    log = git(repo, "log", "--first-parent", "-M", "--diff-filter=R", "--name-status", "--format=@%H", "HEAD")
    at = {c: k for k, c in enumerate(commits)}
    current = -1
    for line in log.splitlines():
        if line.startswith("@"):
            current = at.get(line[1:], -1)
        elif line.startswith("R") and line.endswith(".py") and current > 0:
            renamed_files[current] = renamed_files.get(current, 0) + 1
    # the largest moves (a package under src/, a test suite moved) always, then a sample of the rest
    biggest = sorted(renamed_files, key=lambda k: -renamed_files[k])[: min(5, limit)]
    rest = sorted(set(renamed_files) - set(biggest))
    renaming = sorted(biggest + random.Random(seed).sample(rest, min(len(rest), limit - len(biggest))))
    found: list[tuple[int, str, str]] = []
    for k in renaming:
        for a, b in ((k - 1, k), (k - 10, k), (k - 1, k + 10)):
            if 0 <= a < b < len(commits) and (0, commits[a], commits[b]) not in found:
                found.append((0, commits[a], commits[b]))
    return found


async def run(repo: Path, name: str, pairs: int, seed: int, show: int, renames: int) -> None:
    commits = first_parent(repo)
    chosen = sample(commits, pairs, seed) + rename_pairs(repo, commits, renames, seed)
    totals = Totals()
    failures: list[Case] = []
    per_distance: dict[int, Totals] = defaultdict(Totals)
    blobs = Blobs(repo)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / name
        git(Path(tmp), "clone", "-q", str(repo), str(work))
        for n, (d, a, b) in enumerate(chosen):
            cases = pair_cases(blobs, repo, work, a, b)
            if not cases:
                continue
            for case in cases:  # the baseline, then the engine, then the server: interleaved per pair
                path_b = _path_b(repo, a, b, case.path_a)
                deleted = blobs.read(b, path_b) is None
                assert case.marker is not None
                case.baseline = baseline(git_hunks(repo, a, b, case.path_a, path_b), case.marker, deleted)
            engine_lines(blobs, a, b, repo, cases)
            await tether_pair(work, a, b, cases, totals)
            for case in cases:
                totals.add(case)
                per_distance[d].add(case)
                if case.tether != case.truth and case.truth is not None:
                    failures.append(case)
            if (n + 1) % 20 == 0:
                print(f"  … {n + 1}/{len(chosen)} pairs", file=sys.stderr)
    blobs.close()
    report(name, len(chosen), totals, per_distance)
    for case in failures[:show]:
        renamed = " (renamed file)" if case.renamed else ""
        print(
            f"  {case.subset}{renamed}: {case.pair[0][:8]}..{case.pair[1][:8]} {case.path_a} {case.name} "
            f"marker {case.marker} truth {case.truth} tether {case.tether} git {case.baseline}"
        )


def report(name: str, pairs: int, totals: Totals, per_distance: dict[int, Totals]) -> None:
    tether = [score for (system, subset), score in totals.scores.items() if system == "tether" and subset in SUBSETS]
    markers = sum(score.total for score in tether)  # the subsets, not the rows across them
    gone = totals.scores[("tether", "deleted")].total
    print(f"Markers on {name}: {pairs} commit pairs (B = A+1/+10/+100, first parent, and pairs across the")
    print(f"  commits that rename a Python file), {markers:,} markers")
    print(f"  ({gone:,} on definitions whose qualified name is gone at B: row 'deleted', not in 'all'; a marker")
    print("   located there is counted wrong although many of those definitions were renamed or moved)")
    print("| subset | markers | Tether over LSP exact / good | lines only (engine) | `git diff -U0` mapper |")
    print("| --- | --- | --- | --- | --- |")
    for subset in (*SUBSETS, RENAMED, "all"):
        t = totals.scores[("tether", subset)]
        print(
            f"| {subset} | {t.total:,} | {t.cell()} | {totals.scores[('engine', subset)].cell()} | "
            f"{totals.scores[('baseline', subset)].cell()} |"
        )
    for subset in ("all", RENAMED):
        for system in ("tether", "engine", "baseline"):
            s = totals.scores[(system, subset)]
            share = 100 * s.wrong / max(1, s.total)
            print(f"  wrong (IoU < 0.5) {system}, {subset}: {s.wrong} of {s.total} ({share:.2f}%)")
    for subset in ("all", RENAMED):
        back = totals.scores[("back", subset)]
        print(f"  checked out A again after B, {subset}: {back.cell()} where made ({back.total:,} markers)")
    for subset in ("all", RENAMED):
        at_b, again = totals.called_deleted.get(("B", subset), 0), totals.called_deleted.get(("A", subset), 0)
        print(
            f"  listed as deleted code (missing, codeBlockDeleted, in some file) although it exists, {subset}: "
            f"{at_b:,} of {totals.scores[('tether', subset)].total:,} at B, "
            f"{again:,} of {totals.scores[('back', subset)].total:,} at A again"
        )
    t, g = totals.scores[("tether", RENAMED)], totals.scores[("baseline", RENAMED)]
    print(
        f"  renamed file, Tether against the git diff -M mapper: exact {t.exact} / {g.exact} "
        f"({100 * t.exact / max(1, g.exact):.1f}%), good {t.good} / {g.good} ({100 * t.good / max(1, g.good):.1f}%)"
    )
    for d, sub in sorted(per_distance.items()):
        t, g = sub.scores[("tether", "all")], sub.scores[("baseline", "all")]
        label = "pairs across renames" if d == 0 else f"B = A+{d}"
        print(f"  {label}: Tether {t.cell()}   git diff {g.cell()}   ({t.total:,} markers)")
    spent = sum(ms for ms, _ in totals.head_ms)
    count = sum(n for _, n in totals.head_ms)
    print(f"  HEAD change -> didChange: {spent / max(1, count):.2f} ms per marker ({count:,} markers, {spent:.0f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, help="another git repository (default: the click bundle)")
    parser.add_argument("--pairs", type=int, default=160)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--show", type=int, default=0, help="print this many cases Tether got wrong")
    parser.add_argument("--rename-pairs", type=int, default=40, help="commits that rename a file, at most")
    parser.add_argument("--no-watch", action="store_true", help="no watched-files notification for .git/HEAD")
    parser.add_argument(
        "--first-answer", action="store_true", help="with --no-watch: score the first lists after each checkout"
    )
    args = parser.parse_args()
    global WATCH_HEAD, FIRST_ANSWER
    WATCH_HEAD = not args.no_watch
    FIRST_ANSWER = args.first_answer and args.no_watch
    repo = args.repo or clone()
    name = repo.name if repo.name != "repo" else repo.parent.name
    asyncio.run(run(repo, name, args.pairs, args.seed, args.show, args.rename_pairs))


if __name__ == "__main__":
    main()
