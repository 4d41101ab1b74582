"""Markers benchmarks against their targets. Prints figures, asserts nothing.

1. Buffer recalculation: 1,000 markers in a 10,000-line file after a 500-line change, in-process
   (target p50 <= 30 ms), against the reference design's way in the same run (a fresh ``git diff -U3`` per
   request plus difflib line matching) — the ratio is printed.
2. Commit-to-commit: 10,000 markers across 200 files, a commit touching every file, over stdio: from the
   watched-files notification to ``tether/markers/didChange`` (target <= 2 s), counting ``$/progress``.
3. Creation over stdio on a committed 10,000-line file, backtracking included (target p50 <= 15 ms).
4. A 110 KB line (a prompt of 5,000 concatenations) edited in one place, two markers on it: locating them
   in-process (line mapping, columns, syntax units), and the first ``tether/markers/list`` after each edit over
   stdio (target <= 50 ms), once the playground has scanned the edit.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import markers_reference
from benchmarks.corpus import python_file
from benchmarks.syntax import pct, row
from tether_lsp.handlers.markers.calculator import Location, calculate, split_lines
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.location_store import StoredLocation
from tether_lsp.handlers.markers.places import Places
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.handlers.markers.structure import follow
from tether_lsp.server.lspclient import make_client, raw_request
from tether_lsp.server.storage import Database

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, env=GIT_ENV, capture_output=True, text=True, check=True).stdout


def random_blocks(lines: list[str], count: int, rnd: random.Random) -> dict[str, Location]:
    out = {}
    for n in range(count):
        a = rnd.randrange(1, len(lines) - 10)
        b = a + rnd.randrange(0, 8)
        out[f"m{n}"] = Location(a, 1, b, len(lines[b - 1]) + 1)
    return out


def edited(lines: list[str], run: int) -> str:
    out = list(lines)
    at = 500 + run * 1000
    out[at : at + 250] = [f"    changed_{run}_{k} = {k}  # édité" for k in range(250)]  # 250 replaced
    out[at + 3000 : at + 3000] = [f"added_{k} = 1" for k in range(250)]  # + 250 inserted
    return "\n".join(out)


def bench_buffer() -> None:
    text = python_file()
    lines = split_lines(text)
    markers = random_blocks(lines, 1000, random.Random(1))
    ours, theirs = [], []
    for run in range(7):
        new = edited(lines, run)
        t = time.perf_counter()
        result = calculate(text, new, markers)
        ours.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        markers_reference.recalculate(text, new, {k: (v.line_start, v.line_end) for k, v in markers.items()})
        theirs.append((time.perf_counter() - t) * 1000)
    missing = sum(1 for r in result.values() if r.location is None)
    print(f"Buffer: {len(markers)} markers, {len(lines):,}-line file, a 500-line change ({missing} missing)")
    row("Tether: in-process diff + match + columns", ours)
    row("reference way: git diff -U3 + difflib (lines only)", theirs)
    print(f"  ratio reference / Tether (p50): {pct(theirs, 50) / pct(ours, 50):.1f}x")


def make_repo(root: Path, files: int, lines_per_file: int) -> list[str]:
    git(root, "init", "-q", "-b", "main")
    names = []
    for k in range(files):
        name = f"pkg{k % 10}/module_{k}.py"
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(python_file(lines_per_file).replace("Widget", f"Widget{k}"), encoding="utf-8")
        names.append(name)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "c0")
    return names


def seed_markers(root: Path, names: list[str], per_file: int) -> int:
    """Markers created at the first commit, written straight into the clone's database, each file kept by its
    repository and path as a server stores it (rows kept by uri would be adopted by the next server at its start,
    the upgrade of an older database, holding the write lock for seconds)."""
    head = git(root, "rev-parse", "HEAD").strip()
    db = Database.sqlite(root / ".git" / "tether" / "tether.db")
    db.migrate({"markers": MIGRATIONS})
    rnd = random.Random(2)
    rows: list[tuple[MarkerRecord, StoredLocation | None]] = []
    for name in names:
        uri = (root / name).as_uri()
        lines = split_lines((root / name).read_text(encoding="utf-8"))
        for loc in random_blocks(lines, per_file, rnd).values():
            marker_id = str(uuid.uuid4())
            record = MarkerRecord(marker_id, uri, "note", "comment", "code", head, datetime.now(UTC), "Bench", "", loc)
            rows.append((record, StoredLocation(marker_id, head, uri, loc, None, head)))
    MarkerStore(db, places=Places(Git())).insert_many(rows)
    db.close()
    return len(rows)


def change_every_file(root: Path, names: list[str]) -> None:
    for k, name in enumerate(names):
        lines = split_lines((root / name).read_text(encoding="utf-8"))
        lines[0:0] = [f"# header {k} {n}" for n in range(20)]  # everything shifts
        lines[200:210] = [f"    rewritten_{n} = {n}" for n in range(12)]  # and a block is rewritten
        (root / name).write_text("\n".join(lines), encoding="utf-8")
    git(root, "commit", "-q", "-am", "c1")


async def start_server(root: Path) -> tuple[Any, list[Any]]:
    client = make_client("bench")
    progress: list[Any] = []

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create_token(_params: Any) -> None:
        return None

    @client.feature(types.PROGRESS)
    def on_progress(params: Any) -> None:
        progress.append(params)

    await client.start_io(sys.executable, "-m", "tether_lsp")
    params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {"window": {"workDoneProgress": True}}}
    await raw_request(client, "initialize", params)
    client.initialized(types.InitializedParams())
    return client, progress


async def bench_commit_to_commit(files: int = 200, per_file: int = 50, lines_per_file: int = 500) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names = make_repo(root, files, lines_per_file)
        count = seed_markers(root, names, per_file)
        client, progress = await start_server(root)
        try:
            await raw_request(client, "tether/markers/list", {"textDocument": {"uri": (root / names[0]).as_uri()}})
            old = {name: git(root, "show", f"HEAD:{name}") for name in names}
            change_every_file(root, names)
            done = asyncio.get_running_loop().create_future()

            @client.feature("tether/markers/didChange")
            def changed(params: Any) -> None:
                if not done.done():
                    done.set_result(params)

            t = time.perf_counter()
            client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    changes=[types.FileEvent(uri=(root / ".git" / "HEAD").as_uri(), type=types.FileChangeType.Changed)]
                )
            )
            params = await asyncio.wait_for(done, 120)
            ours = time.perf_counter() - t
            uris = params["uris"] if isinstance(params, dict) else params.uris
            t = time.perf_counter()
            probe = await raw_request(client, "tether/markers/list", {"textDocument": {"uri": uris[0]}})
            list_after = (time.perf_counter() - t) * 1000
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
        t = time.perf_counter()
        for name in names:
            new = (root / name).read_text(encoding="utf-8")
            lines = split_lines(old[name])
            markers_reference.recalculate(
                old[name], new, {str(k): (a, a + 3) for k, a in enumerate(range(30, len(lines) - 10, 9))}
            )
        theirs = time.perf_counter() - t
    located = sum(1 for m in probe["markers"] if m["status"] == "located")
    print(f"Commit to commit: {count:,} markers across {files} files of {lines_per_file} lines, every file changed")
    print(f"  HEAD-change notification -> didChange (all locations stored)  {ours * 1000:8.0f} ms")
    print(f"  $/progress messages: {len(progress)} (begin, reports, end)")
    print(f"  then a list of one file (stored locations reused)             {list_after:8.1f} ms ({located} located)")
    print(f"  reference way, one git diff + difflib per file (200 diffs)      {theirs * 1000:8.0f} ms")
    print(f"  ratio reference / Tether: {theirs / ours:.1f}x")


async def bench_create() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        git(root, "init", "-q", "-b", "main")
        text = python_file()
        (root / "big.py").write_text(text, encoding="utf-8")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "c0")
        client, _ = await start_server(root)
        uri = (root / "big.py").as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        lines = split_lines(text)
        rnd = random.Random(3)
        times = []
        try:
            for n in range(40):
                a = rnd.randrange(0, len(lines) - 10)
                b = a + rnd.randrange(0, 6)
                params = {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": a, "character": 0}, "end": {"line": b, "character": len(lines[b])}},
                    "note": f"n{n}",
                }
                t = time.perf_counter()
                result = await raw_request(client, "tether/markers/create", params)
                times.append((time.perf_counter() - t) * 1000)
                assert result["commitHashWhenCreated"], "backtracking found the committed block"
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
    print(f"Creation on a committed {len(lines):,}-line file, over stdio (backtracking included)")
    row("tether/markers/create round trip", times[5:])


LONG_LINE = "PROMPT = " + " + ".join(['"tell the user hello"'] * 5_000)


def long_line_versions(count: int) -> list[str]:
    """The file with the long line, then ``count`` versions each with one more word of it changed."""
    texts = [f"import os\n{LONG_LINE}\nprint(PROMPT)\n"]
    for n in range(count):
        at = texts[-1].index('"tell', 40 + 22 * n) + 1
        texts.append(texts[-1][:at] + "say" + texts[-1][at + 4 :])
    return texts


def bench_long_line() -> None:
    texts = long_line_versions(7)
    markers = {"line": Location(2, 1, 3, 1), "word": Location(2, 30, 2, 50)}
    times = []
    for new in texts[1:]:
        t = time.perf_counter()
        found = follow(texts[0], new, markers, "python")
        times.append((time.perf_counter() - t) * 1000)
        assert all(r.location is not None and r.location.line_start == 2 for r in found.values()), found
    print(f"A {len(LONG_LINE) // 1000} KB line edited in one place, {len(markers)} markers on it")
    row("in-process: line mapping, columns, syntax units", times)
    asyncio.run(_long_line_over_stdio(texts))


async def _long_line_over_stdio(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        git(root, "init", "-q", "-b", "main")
        client, _ = await start_server(root)
        uri = (root / "long_prompt.py").as_uri()  # open, never saved
        doc = {"uri": uri}
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=texts[0])
            )
        )
        whole = {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}
        word = {"start": {"line": 1, "character": 29}, "end": {"line": 1, "character": 49}}
        times = []
        try:
            for span in (whole, word):
                await raw_request(client, "tether/markers/create", {"textDocument": doc, "range": span, "note": "n"})
            for version, text in enumerate(texts[1:], start=2):
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                    )
                )
                await raw_request(client, "tether/playground/getState", {})  # the edit scanned for prompts
                t = time.perf_counter()
                listed = await raw_request(client, "tether/markers/list", {"textDocument": doc})
                times.append((time.perf_counter() - t) * 1000)
                assert [m["range"]["start"]["line"] for m in listed["markers"]] == [1, 1], listed
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
    row("over stdio: first tether/markers/list after an edit", times)


def main() -> None:
    bench_buffer()
    asyncio.run(bench_commit_to_commit())
    asyncio.run(bench_create())
    bench_long_line()


if __name__ == "__main__":
    main()
