"""Loop stalls while markers follow a HEAD change: on this machine's SQLite database, and in team mode on a real
PostgreSQL with a teammate's server doing the same checkout.

The repository: 200 files x 50 markers made at a first commit; a second commit changes every file (20 header lines
shift everything, a block is rewritten). The clone is put back on the first commit (detached) before the server
starts; the server lists one file (so its HEAD is synced there), the typist starts typing into an open 10,000-line
file asking for ``textDocument/codeLens``, then ``git checkout main`` runs and the client reports the HEAD change
(watched files), as an editor's file watcher does. Measured until ``tether/markers/didChange``: the worst loop
stall, the typing latency (the slowest ``codeLens`` among it), and the time from the checkout's start to the
``didChange``.

Team mode: an origin with the two commits, two clones (this user's and a teammate's), both servers on one
PostgreSQL database holding the markers (by repository and path, as servers write them); both clones check out the
second commit at once and both servers are told. The figures are this user's server's: the locations are
computed by either server and read from the database by the other.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from benchmarks.markers import GIT_ENV, change_every_file, git, make_repo, random_blocks
from benchmarks.stall_common import (
    Typist,
    ask,
    open_file,
    reset_stall,
    stall_env,
    start_watched,
    stop_server,
    worst_stall_ms,
)
from benchmarks.syntax import pct
from tether_lsp.server.lspclient import make_client

FILES, PER_FILE, LINES_PER_FILE = 200, 50, 500
WAIT_S = 300
#: git's identity for the servers (the benchmark's own PATH kept: the server runs this interpreter).
SERVER_GIT = {k: v for k, v in GIT_ENV.items() if k != "PATH"}


def seed(root: Path, names: list[str], per_file: int, url: str | None = None) -> int:
    """Markers made at HEAD, written straight into the database (the clone's SQLite file, or ``url``), keyed by
    repository and path as a server writes them (so no server re-keys them on its first look)."""
    from tether_lsp.handlers.markers.calculator import split_lines
    from tether_lsp.handlers.markers.git import Git
    from tether_lsp.handlers.markers.location_store import StoredLocation
    from tether_lsp.handlers.markers.places import Places
    from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
    from tether_lsp.server.storage import Database

    head = git(root, "rev-parse", "HEAD").strip()
    db = Database(url) if url else Database.sqlite(root / ".git" / "tether" / "tether.db")
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


def head_change_repo(root: Path) -> tuple[list[str], int]:
    """The repository of the module's docstring, its clone back on the first commit; (files, markers)."""
    names = make_repo(root, FILES, LINES_PER_FILE)
    count = seed(root, names, PER_FILE)
    change_every_file(root, names)
    git(root, "checkout", "-q", "--detach", "HEAD~1")
    return names, count


async def checkout(root: Path, what: str) -> None:
    proc = await asyncio.create_subprocess_exec("git", "checkout", "-q", what, cwd=root, env=GIT_ENV)
    if await proc.wait() != 0:
        raise RuntimeError(f"git checkout {what} failed in {root}")


def head_moved(client: LanguageClient, root: Path) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(uri=(root / ".git" / "HEAD").as_uri(), type=types.FileChangeType.Changed)]
        )
    )


def on_did_change(client: LanguageClient, files: int) -> asyncio.Future[float]:
    """A future set to the time a ``tether/markers/didChange`` names ``files`` files or more (the HEAD sync's; in
    team mode a teammate's change may name a few files before)."""
    done: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    @client.feature("tether/markers/didChange")
    def changed(params: Any) -> None:
        uris = params["uris"] if isinstance(params, dict) else params.uris
        if len(uris) >= files and not done.done():
            done.set_result(time.perf_counter())

    return done


async def while_typing(
    client: LanguageClient, root: Path, done: asyncio.Future[float], move: Callable[[], Awaitable[None]]
) -> dict[str, Any]:
    """Types (asking for code lenses) from just before ``move`` until ``done``; the figures of the module."""
    typist = Typist.on_new_file(client, root, method="textDocument/codeLens")
    await ask(client, "textDocument/codeLens", {"textDocument": {"uri": typist.uri}})
    await reset_stall(client)
    typist.start()
    started = time.perf_counter()
    await move()
    arrived = await asyncio.wait_for(done, WAIT_S)
    await typist.stop()
    figures = typist.figures()
    return {
        **figures,
        "worst_stall_ms": await worst_stall_ms(client),
        "slowest_codelens_ms": figures["typing_max_ms"],
        "checkout_to_didchange_ms": (arrived - started) * 1000,
    }


async def head_change() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names, count = await asyncio.to_thread(head_change_repo, root)
        client = make_client("stall-head-change")
        done = on_did_change(client, FILES)
        await start_watched(root, client, env=stall_env(**SERVER_GIT))
        try:
            await ask(client, "tether/markers/list", {"textDocument": {"uri": (root / names[0]).as_uri()}})

            async def move() -> None:
                await checkout(root, "main")
                head_moved(client, root)

            figures = await while_typing(client, root, done, move)
        finally:
            await stop_server(client)
    return {"markers": count, **figures}


def team_repos(work: Path, url: str) -> tuple[list[Path], list[str], int]:
    """The origin with both commits, two clones back on the first one, the markers seeded through the first."""
    origin = work / "origin"
    origin.mkdir()
    names = make_repo(origin, FILES, LINES_PER_FILE)
    change_every_file(origin, names)
    clones = [work / "mine", work / "teammate"]
    for clone in clones:
        subprocess.run(["git", "clone", "-q", str(origin), str(clone)], env=GIT_ENV, check=True)
        git(clone, "checkout", "-q", "--detach", "HEAD~1")
    count = seed(clones[0], names, PER_FILE, url)
    return clones, names, count


async def team_sync(url: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        clones, names, count = await asyncio.to_thread(team_repos, work, url)
        mine = make_client("stall-team-mine")
        done = on_did_change(mine, FILES)
        env = stall_env(**SERVER_GIT, TETHER_DATABASE_URL=url)
        await start_watched(clones[0], mine, env={**env, "XDG_DATA_HOME": str(work / "x1")})
        mate = await start_watched(clones[1], env={**env, "XDG_DATA_HOME": str(work / "x2")})
        try:
            for client, clone in ((mine, clones[0]), (mate, clones[1])):
                await ask(client, "tether/markers/list", {"textDocument": {"uri": (clone / names[0]).as_uri()}})

            async def move() -> None:
                await asyncio.gather(checkout(clones[0], "main"), checkout(clones[1], "main"))
                head_moved(mate, clones[1])
                head_moved(mine, clones[0])

            figures = await while_typing(mine, clones[0], done, move)
        finally:
            await asyncio.gather(stop_server(mine), stop_server(mate))
    return {"markers": count, **figures}


LONG_LINE = "PROMPT = " + " + ".join(['"tell the user hello"'] * 5_000)  # 110 KB


async def long_line(edits: int = 5) -> dict[str, Any]:
    """A never-saved file whose second line is 110 KB, two markers on that line (the whole line, and a word in
    it); each round changes one more word of it, waits for the playground to scan the edit, then times
    ``tether/markers/list``, while the typist types into another file."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        git(root, "init", "-q", "-b", "main")
        client = await start_watched(root, env=stall_env(**SERVER_GIT))
        try:
            uri = (root / "long_prompt.py").as_uri()
            text = f"import os\n{LONG_LINE}\nprint(PROMPT)\n"
            open_file(client, uri, "python", text)
            doc = {"uri": uri}
            whole = {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}
            word = {"start": {"line": 1, "character": 29}, "end": {"line": 1, "character": 49}}
            for span in (whole, word):
                await ask(client, "tether/markers/create", {"textDocument": doc, "range": span, "note": "n"})
            typist = Typist.on_new_file(client, root)
            await ask(client, "tether/documentInfo", {"textDocument": {"uri": typist.uri}})
            await reset_stall(client)
            typist.start()
            times = []
            for n in range(edits):
                at = text.index('"tell', 40 + 22 * n) + 1
                text = text[:at] + "say" + text[at + 4 :]
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        types.VersionedTextDocumentIdentifier(version=n + 2, uri=uri),
                        [types.TextDocumentContentChangeWholeDocument(text=text)],
                    )
                )
                await ask(client, "tether/playground/getState", {})  # the edit scanned for prompts
                started = time.perf_counter()
                await ask(client, "tether/markers/list", {"textDocument": doc})
                times.append((time.perf_counter() - started) * 1000)
            await typist.stop()
            stall = await worst_stall_ms(client)
        finally:
            await stop_server(client)
    return {
        **typist.figures(),
        "worst_stall_ms": stall,
        "list_first_ms": times[0],
        "list_p50_ms": pct(times, 50),
        "list_max_ms": max(times),
    }


def said(figures: dict[str, Any]) -> str:
    return (
        f"worst loop stall {figures['worst_stall_ms']:6.1f} ms (target <= 20)   "
        f"slowest codeLens {figures['slowest_codelens_ms']:6.1f} ms (target <= 50)   "
        f"checkout -> didChange {figures['checkout_to_didchange_ms'] / 1000:5.1f} s (target <= 1.5)"
    )
