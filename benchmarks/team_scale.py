"""Markers in team mode at team scale, on a real PostgreSQL. Prints every figure, asserts nothing.

Real processes: a PostgreSQL cluster the benchmark starts in a temp dir, and ``--servers`` Tether language
servers over stdio, each in its own clone (at its own path) of one repository, all on that database. The
repository is a real history — the click bundle (``TETHER_BENCH_BUNDLE``) or ``--repo`` — made into a team's
origin with two commits on top of an older commit A of its first-parent line:

* C1: A's Python files, plus copies of them under ``team-copies/NNN/`` until there are ``--files`` files
  (click has fewer). The markers are made at C1.
* C2: each of those files as its original (same path in the project) is at B, ``--storm-distance``
  first-parent commits later (deleted when B has no such file). So every copy changes the way the project's
  own file changed between A and B: the commit storm recomputes markers across real diffs.

Each teammate clones the origin (``git clone``), so every server sees the same repository identity. The
``--markers`` markers (spread evenly over the files, blocks of 1-6 lines) are bulk-loaded at C1 through
Tether's own store code (``MarkerStore.insert_many``: the marker rows and their locations at C1, keyed by
repository and path as a server writes them), in transactions of 5,000.

Phases, each printed as it ends, then every figure in one table and a summary line:

1. setup: clones, bulk load, servers started, table and index sizes.
2. fan-out: a create or an update on one server -> ``tether/markers/didChange`` on every other server
   (p50/p99 per receiver and until the last one), while every server answers ``tether/markers/list`` at
   ``--load-rate`` requests per second (the background load, whose latency is printed too).
3. commit storm: every clone checks out C2 within a second, each server is told (watched ``.git/HEAD``); the
   time until every server has stored its markers' locations at C2, and how many locations each computed
   itself or read from another server's work (the server's log line "N location(s) at C: X computed
   here, Y read from the database").
4. writes under contention: ``--writers`` loops per server create, update (note and kind together) and
   delete for ``--contention-seconds``, some on a hot set of markers every server updates; then checked in
   the database with psycopg: nothing lost, nothing resurrected, no duplicate, no half-written row.
5. faults: ``kill -9`` of one server while creates are in flight (what it acknowledged is stored, each
   stored marker has its location); PostgreSQL stopped for ``--pg-down-seconds`` and started again while a
   server writes (the errors and window messages users get meanwhile, time until requests and LISTEN work
   again, a didChange after the restart, acknowledged writes stored).
6. connections: per server (the server process's TCP connections to PostgreSQL) and in total
   (``pg_stat_activity``), sampled every second in every phase; then PgBouncer in transaction mode (when
   installed): two more servers through it, what works and what does not, measured.

Usage: ``python -m benchmarks.team_scale [--servers 20] [--markers 100000] [--files 2000]
[--contention-seconds 60] [--repo PATH]``; small: ``--servers 3 --markers 2000 --files 100
--contention-seconds 10``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from benchmarks.syntax import pct
from benchmarks.team_services import PgBouncer, Postgres, pgbouncer_binary
from tether_lsp.server.lspclient import make_client, raw_request

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT.parent / "shared" / "data" / "click.bundle"
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
}
KINDS = ("comment", "question", "issue", "bookmark")
SYNC_LINE = re.compile(
    r"markers: (\d+) location\(s\) at ([0-9a-f]+): (\d+) computed here, (\d+) read from the database"
)
LISTENING = "listening for other servers"
LOG_ARGS: list[str] = []
RESTART_HEARD = "didChange after the restart: servers that got it"

#: Every figure, in the order measured: (section, what, value).
FIGURES: list[tuple[str, str, str]] = []


def figure(section: str, what: str, value: Any) -> None:
    text = value if isinstance(value, str) else f"{value:,}" if isinstance(value, int) else f"{value:.1f}"
    FIGURES.append((section, what, text))
    print(f"  {what:<64} {text}")


def ms(samples: list[float]) -> str:
    if not samples:
        return "— (none)"
    return f"p50 {pct(samples, 50):.1f} ms, p99 {pct(samples, 99):.1f} ms, max {max(samples):.1f} ms (n={len(samples)})"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout


# --- the team's repository ---------------------------------------------------------------------------------


@dataclass
class Origin:
    bare: Path
    c1: str
    c2: str
    files: list[str]  # the files with markers (repo-relative), all at C1
    at_c2: list[str]  # those of them that still exist at C2
    texts: dict[str, str]  # their text at C1


def build_origin(source: Path, work: Path, files: int, distance: int) -> Origin:
    seed = work / "seed"
    git(work, "-c", "advice.detachedHead=false", "clone", "-q", str(source), str(seed))
    line = git(seed, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    b = line[-1]
    a = line[max(0, len(line) - 1 - distance)]
    git(seed, "checkout", "-q", "-b", "team", a)
    real = [p for p in git(seed, "ls-files", "-z").split("\0") if p.endswith(".py")]
    if not real:
        raise SystemExit(f"{source} has no Python file at {a[:12]}")
    chosen: list[tuple[str, str]] = []  # (path in the team repo, the project's path it copies)
    copy = 0
    while len(chosen) < files:
        for path in real:
            if len(chosen) == files:
                break
            chosen.append((path if copy == 0 else f"team-copies/{copy:03d}/{path}", path))
        copy += 1
    texts = {}
    for path, original in chosen:
        text = (seed / original).read_text(encoding="utf-8", errors="replace")
        target = seed / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        texts[path] = text
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "--allow-empty", "-m", f"team: {files} files (copies of the project's Python files)")
    c1 = git(seed, "rev-parse", "HEAD").strip()
    at_b = set(git(seed, "ls-tree", "-r", "--name-only", "-z", b).split("\0"))
    changed = deleted = 0
    for path, original in chosen:
        if original not in at_b:
            git(seed, "rm", "-q", path)
            deleted += 1
            continue
        new = git(seed, "show", f"{b}:{original}")
        changed += new != texts[path]
        (seed / path).write_text(new, encoding="utf-8")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "--allow-empty", "-m", f"team: the files as the project has them at {b[:12]}")
    c2 = git(seed, "rev-parse", "HEAD").strip()
    git(seed, "branch", "next")  # the clones start at C1 (branch team) and have C2 (branch next)
    git(seed, "reset", "-q", "--hard", c1)
    bare = work / "origin.git"
    git(work, "clone", "-q", "--bare", str(seed), str(bare))
    print(f"repository: {source}; A = {a[:12]}, B = {b[:12]} ({distance} first-parent commits later)")
    print(
        f"  C1 = A + {files:,} Python files: {min(files, len(real))} of the project's own at A and"
        f" {files - min(files, len(real)):,}"
        f" copies of them under team-copies/; C2 = C1 with each file as its original is at B:"
        f" {changed:,} changed, {deleted:,} deleted, {files - changed - deleted:,} unchanged"
    )
    gone = {p for p, o in chosen if o not in at_b}
    return Origin(bare, c1, c2, [p for p, _ in chosen], [p for p, _ in chosen if p not in gone], texts)


# --- bulk load ---------------------------------------------------------------------------------------------


def bulk_load(url: str, clone: Path, origin: Origin, count: int) -> dict[str, list[str]]:
    """``count`` markers at C1 through MarkerStore.insert_many (as the clone ``clone`` names the files);
    returns the marker ids per file."""
    from tether_lsp.handlers.markers.calculator import Location, block_of, split_lines
    from tether_lsp.handlers.markers.git import Git
    from tether_lsp.handlers.markers.location_store import StoredLocation
    from tether_lsp.handlers.markers.places import Places
    from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
    from tether_lsp.server.storage import Database

    db = Database(url)
    db.migrate({"markers": MIGRATIONS})
    store = MarkerStore(db, places=Places(Git()))
    by_file: dict[str, list[str]] = defaultdict(list)
    batch: list[tuple[MarkerRecord, StoredLocation | None]] = []
    now = datetime.now(UTC)
    files = origin.files
    per, extra = divmod(count, len(files))
    made = 0
    for n, path in enumerate(files):
        lines = split_lines(origin.texts[path])
        uri = (clone / path).as_uri()
        here = per + (n < extra)
        for j in range(here):
            start = 1 + (j * len(lines)) // max(here, 1)
            start = min(start, len(lines))
            end = min(len(lines), start + j % 6)
            loc = Location(start, 1, end, len(lines[end - 1]) + 1)
            marker_id = str(uuid.uuid4())
            record = MarkerRecord(
                id=marker_id,
                uri=uri,
                note=f"bulk {made}",
                kind=KINDS[made % 4],
                code=block_of(origin.texts[path], loc),
                commit_hash_when_created=origin.c1,
                created_at=now,
                author="bulk-load",
                base_text="",
                base=loc,
            )
            batch.append((record, StoredLocation(marker_id, origin.c1, uri, loc, None, origin.c1)))
            by_file[path].append(marker_id)
            made += 1
            if len(batch) == 5000:
                store.insert_many(batch)
                batch = []
    if batch:
        store.insert_many(batch)
    with db.transaction() as conn:
        conn.exec_driver_sql("ANALYZE tether_markers")
        conn.exec_driver_sql("ANALYZE tether_marker_locations")
    db.close()
    return by_file


def sql(dsn: str, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
        cur = conn.execute(statement, params)
        return list(cur.fetchall()) if cur.description else []


# --- the teammates -----------------------------------------------------------------------------------------


def _get(params: Any, name: str) -> Any:
    return params.get(name) if isinstance(params, dict) else getattr(params, name, None)


@dataclass
class Waiter:
    uri: str
    future: asyncio.Future[float]


@dataclass
class Mate:
    """One teammate: their clone, their server process and what their client received."""

    index: int
    root: Path
    url: str
    work: Path
    client: Any = None
    pid: int = 0
    changes: list[tuple[float, list[str]]] = field(default_factory=list)
    logs: list[tuple[float, int, str]] = field(default_factory=list)  # (time, type, message)
    shown: list[tuple[float, int, str]] = field(default_factory=list)  # window/showMessage
    waiters: list[Waiter] = field(default_factory=list)
    started: int = 0

    @property
    def name(self) -> str:
        return f"mate-{self.index:02d}"

    def uri(self, path: str) -> str:
        return (self.root / path).as_uri()

    def expect(self, uri: str) -> asyncio.Future[float]:
        """The time the next didChange naming ``uri`` arrives (ask before the change)."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiters.append(Waiter(uri, future))
        return future

    def _changed(self, params: Any) -> None:
        now = time.perf_counter()
        uris = list(_get(params, "uris") or [])
        self.changes.append((now, uris))
        keep = []
        for w in self.waiters:
            if w.future.done():
                continue
            if w.uri in uris:
                w.future.set_result(now)
            else:
                keep.append(w)
        self.waiters = keep

    def listening_count(self) -> int:
        return sum(LISTENING in m for _, _, m in self.logs)

    async def start(self) -> None:
        self.started += 1
        client = make_client(self.name)
        self.client = client

        @client.feature("tether/markers/didChange")
        def changed(params: Any) -> None:
            self._changed(params)

        @client.feature(types.WINDOW_LOG_MESSAGE)
        def logged(params: Any) -> None:
            self.logs.append((time.perf_counter(), int(_get(params, "type") or 0), str(_get(params, "message"))))

        @client.feature(types.WINDOW_SHOW_MESSAGE)
        def shown(params: Any) -> None:
            self.shown.append((time.perf_counter(), int(_get(params, "type") or 0), str(_get(params, "message"))))

        @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def progress(_params: Any) -> None:
            return None

        env = {
            **GIT_ENV,
            "TETHER_DATABASE_URL": self.url,
            "XDG_DATA_HOME": str(self.work / "xdg" / self.name),
            "PYTHONUNBUFFERED": "1",
        }
        for k in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
            env.pop(k)  # the author is the clone's user.name, as for a teammate
        log_file = self.work / "logs" / f"{self.name}.{self.started}.log"
        log_file.parent.mkdir(parents=True, exist_ok=True)
        await client.start_io(
            sys.executable, "-m", "tether_lsp", "--log-file", str(log_file), *LOG_ARGS, env=env, cwd=str(self.root)
        )
        assert client._server is not None
        self.pid = client._server.pid
        await call(self, "initialize", {"processId": None, "rootUri": self.root.as_uri(), "capabilities": {}})
        client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        if self.client is None:
            return
        try:
            if self.client._server is not None and self.client._server.returncode is None:
                await asyncio.wait_for(self.client.shutdown_async(None), 30)
                self.client.exit(None)
            await asyncio.wait_for(self.client.stop(), 30)
        except Exception:
            if self.client._server is not None and self.client._server.returncode is None:
                self.client._server.kill()
        self.client = None


async def call(mate: Mate, method: str, params: Any, seconds: float = 120) -> Any:
    # shielded: a request given up on stays pending in the client, which takes its late answer quietly
    return await asyncio.wait_for(asyncio.shield(raw_request(mate.client, method, params)), seconds)


def list_params(mate: Mate, path: str) -> dict[str, Any]:
    return {"textDocument": {"uri": mate.uri(path)}}


def create_params(mate: Mate, path: str, text_lines: list[str], rnd: random.Random, note: str) -> dict[str, Any]:
    a = rnd.randrange(0, max(1, len(text_lines) - 1))
    b = min(len(text_lines) - 1, a + rnd.randrange(0, 5))
    rng = {"start": {"line": a, "character": 0}, "end": {"line": b, "character": len(text_lines[b])}}
    return {"textDocument": {"uri": mate.uri(path)}, "range": rng, "note": note}


def error_text(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "no answer (timeout)"
    code = getattr(exc, "code", None)
    data = getattr(exc, "data", None)
    kind = _get(data, "kind") if data is not None else None
    message = getattr(exc, "message", None) or str(exc)
    return f"{code} {kind or ''}: {message}".strip()


# --- background load and connection sampling ---------------------------------------------------------------


class Load:
    """Every server answers ``tether/markers/list`` on random files at ``rate`` requests per second."""

    def __init__(self, mates: list[Mate], files: list[str], rate: float) -> None:
        self.mates, self.files, self.rate = mates, files, rate
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[tuple[float, str]]] = defaultdict(list)
        self.phase = "idle"
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        if self.rate > 0:
            self._tasks = [asyncio.ensure_future(self._run(i)) for i in range(len(self.mates))]

    async def _run(self, i: int) -> None:
        rnd = random.Random(1000 + i)
        while not self._stop.is_set():
            mate = self.mates[i]  # a restarted server replaces its mate
            if mate.client is not None:
                path = rnd.choice(self.files)
                t = time.perf_counter()
                try:
                    await call(mate, "tether/markers/list", list_params(mate, path), seconds=30)
                    self.latency[self.phase].append((time.perf_counter() - t) * 1000)
                except Exception as exc:
                    self.errors[self.phase].append((time.perf_counter(), error_text(exc)))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), min(5.0, rnd.expovariate(self.rate)))

    async def stop(self) -> None:
        self._stop.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class Connections:
    """Every second: each server's TCP connections to PostgreSQL (from its process) and pg_stat_activity."""

    def __init__(self, pg: Postgres, mates: list[Mate]) -> None:
        self.pg, self.mates = pg, mates
        self.phase = "idle"
        self.per_server: dict[str, list[int]] = defaultdict(list)
        self.total: dict[str, list[int]] = defaultdict(list)
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    def sample_now(self) -> tuple[list[int], int | None]:
        return [server_connections(m.pid, self.pg.port) for m in self.mates if m.client is not None], backends(self.pg)

    async def _run(self) -> None:
        while not self._stop.is_set():
            per, total = await asyncio.to_thread(self.sample_now)
            self.per_server[self.phase] += per
            if total is not None:
                self.total[self.phase].append(total)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), 1.0)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task


def cpu_seconds(pids: list[int]) -> dict[tuple[str, int], float]:
    """CPU time (user + system) used so far by each server of ``pids`` and each PostgreSQL process."""
    import psutil

    out = {}
    for proc in psutil.process_iter(["pid", "name"]):
        try:
            what = "server" if proc.pid in pids else "postgres" if proc.info["name"] == "postgres" else None
            if what is not None:
                t = proc.cpu_times()
                out[(what, proc.pid)] = t.user + t.system
        except (psutil.Error, OSError):
            continue
    return out


def cpu_used(before: dict[tuple[str, int], float], after: dict[tuple[str, int], float], what: str) -> float:
    """CPU used between two samples by the processes alive at the second (a process that exited meanwhile,
    a killed server or PostgreSQL's backends before a restart, is not counted)."""
    return sum(t - before.get(key, 0.0) for key, t in after.items() if key[0] == what)


def server_connections(pid: int, port: int) -> int:
    import psutil

    try:
        conns = psutil.Process(pid).net_connections(kind="tcp")
    except (psutil.Error, OSError):
        return 0
    return sum(1 for c in conns if c.raddr and c.raddr.port == port and c.status == "ESTABLISHED")


def backends(pg: Postgres) -> int | None:
    """Client backends connected to PostgreSQL, this sampler's own connection not counted."""
    try:
        rows = sql(
            pg.dsn,
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
        )
        return int(rows[0][0])
    except Exception:
        return None


# --- phases ------------------------------------------------------------------------------------------------


async def phase_fanout(mates: list[Mate], origin: Origin, ids: dict[str, list[str]], rounds: int) -> None:
    print(f"\nFan-out: {rounds} writes, one server at a time, each heard by the {len(mates) - 1} others")
    rnd = random.Random(7)
    per_receiver: list[float] = []
    until_all: list[float] = []
    acks: list[float] = []
    before_ack = 0
    missed = 0
    for n in range(rounds):
        writer = mates[n % len(mates)]
        path = rnd.choice(origin.files)
        others = [m for m in mates if m is not writer]
        waits = [m.expect(m.uri(path)) for m in others]
        t0 = time.perf_counter()
        if n % 2 == 0:
            lines = origin.texts[path].split("\n")
            await call(writer, "tether/markers/create", create_params(writer, path, lines, rnd, f"fan-out {n}"))
        else:
            marker = rnd.choice(ids[path])
            await call(writer, "tether/markers/update", {"id": marker, "note": f"fan-out {n}"})
        t_ack = time.perf_counter()
        acks.append((t_ack - t0) * 1000)
        done, pending = await asyncio.wait(waits, timeout=15)
        for w in pending:
            w.cancel()
        missed += len(pending)
        arrivals = [(w.result() - t0) * 1000 for w in done]
        per_receiver += arrivals
        before_ack += sum(1 for w in done if w.result() < t_ack)
        if not pending:
            until_all.append(max(arrivals))
    S = "fan-out"
    figure(S, "write acknowledged (create/update round trip)", ms(acks))
    figure(S, "write -> didChange, per receiving server", ms(per_receiver))
    figure(S, "didChange arrived before the writer's own answer", f"{before_ack} of {len(per_receiver)}")
    figure(S, "write -> didChange on every other server (the last one)", ms(until_all))
    figure(S, "didChange not received within 15 s", f"{missed} of {rounds * (len(mates) - 1)}")


async def phase_storm(mates: list[Mate], origin: Origin, seconds: float) -> None:
    print(f"\nCommit storm: every clone checks out C2 ({origin.c2[:12]}) at once")
    head = origin.c2[:12]
    marks = {m.index: len(m.logs) for m in mates}
    told: dict[int, float] = {}

    async def checkout(mate: Mate) -> None:
        proc = await asyncio.create_subprocess_exec(
            "git", "-C", str(mate.root), "checkout", "-q", origin.c2, env=GIT_ENV, stdout=asyncio.subprocess.DEVNULL
        )
        await proc.wait()
        event = types.FileEvent(uri=(mate.root / ".git" / "HEAD").as_uri(), type=types.FileChangeType.Changed)
        mate.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[event]))
        told[mate.index] = time.perf_counter()

    t0 = time.perf_counter()
    await asyncio.gather(*(checkout(m) for m in mates))
    spread = (max(told.values()) - t0) * 1000

    def synced(mate: Mate) -> tuple[float, int, int, int] | None:
        for t, _, message in mate.logs[marks[mate.index] :]:
            found = SYNC_LINE.search(message)
            if found and found.group(2) == head:
                return t, int(found.group(1)), int(found.group(3)), int(found.group(4))
        return None

    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline and not all(synced(m) for m in mates):  # noqa: ASYNC110 (log lines)
        await asyncio.sleep(0.1)
    results = {m.index: synced(m) for m in mates}
    done = {i: r for i, r in results.items() if r is not None}
    S = "commit storm"
    figure(S, "checkouts + HEAD notifications sent to every server, within", f"{spread:.0f} ms")
    per = [(r[0] - told[i]) * 1000 for i, r in done.items()]
    figure(S, "HEAD notification -> this server's locations at C2 stored", ms(per))
    if len(done) == len(mates):
        figure(S, "first checkout -> every server done", f"{(max(r[0] for r in done.values()) - t0):.1f} s")
    else:
        figure(S, "servers not done within the timeout", f"{len(mates) - len(done)} of {len(mates)}")
    computed = sum(r[2] for r in done.values())
    read = sum(r[3] for r in done.values())
    stored = int(
        sql_dsn(mates)("SELECT count(*) FROM tether_marker_locations WHERE commit_hash = %s", (origin.c2,))[0][0]
    )
    figure(S, "locations at C2 in the database (distinct, one per marker)", stored)
    figure(S, "locations computed, all servers together", computed)
    figure(S, "  of which repeated (computed by more than one server)", max(0, computed - stored))
    figure(S, "locations read from another server's work (shared)", read)
    spread_by = sorted(r[2] for r in done.values())
    figure(
        S,
        "per server: computed itself min / median / max",
        f"{spread_by[0]} / {spread_by[len(spread_by) // 2]} / {spread_by[-1]}" if spread_by else "—",
    )


def sql_dsn(mates: list[Mate]) -> Callable[..., list[tuple[Any, ...]]]:
    dsn = mates[0].url.replace("postgresql+psycopg://", "postgresql://")
    return lambda statement, params=None: sql(dsn, statement, params)


@dataclass
class Acked:
    created: dict[str, str] = field(default_factory=dict)  # id -> creation token
    deleted: set[str] = field(default_factory=set)
    last_note: dict[str, str] = field(default_factory=dict)  # own markers: the last acknowledged note
    unanswered: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # notes sent, no answer
    hot_notes: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)


async def writer_loop(
    mate: Mate, loop_no: int, files: list[str], texts: dict[str, str], hot: list[str], until: float, acked: Acked
) -> None:
    rnd = random.Random(mate.index * 100 + loop_no)
    mine: list[str] = []
    seq = 0
    while time.perf_counter() < until:
        seq += 1
        roll = rnd.random()
        t = time.perf_counter()
        try:
            if len(mine) < 3 or roll < 0.4:
                path = rnd.choice(files)
                token = f"c:{mate.index}:{loop_no}:{seq}"
                result = await call(
                    mate, "tether/markers/create", create_params(mate, path, texts[path].split("\n"), rnd, token), 60
                )
                mine.append(result["id"])
                acked.created[result["id"]] = token
                acked.last_note[result["id"]] = token
                op = "create"
            elif roll < 0.7:
                marker = rnd.choice(mine)
                kind = KINDS[seq % 4]
                note = f"{acked.created[marker]} u{seq} {kind}"
                acked.unanswered[marker].add(note)
                await call(mate, "tether/markers/update", {"id": marker, "note": note, "kind": kind}, 60)
                acked.unanswered[marker] = set()  # answered: what was sent before is overwritten
                acked.last_note[marker] = note
                op = "update"
            elif roll < 0.85:
                marker = mine.pop(rnd.randrange(len(mine)))
                await call(mate, "tether/markers/delete", {"id": marker}, 60)
                acked.deleted.add(marker)
                op = "delete"
            else:
                marker = rnd.choice(hot)
                kind = KINDS[seq % 4]
                note = f"hot:{mate.index}:{loop_no}:{seq} {kind}"
                acked.hot_notes[marker].add(note)  # sent: stored or not, when no answer comes
                await call(mate, "tether/markers/update", {"id": marker, "note": note, "kind": kind}, 60)
                op = "update (hot set)"
            acked.latency[op].append((time.perf_counter() - t) * 1000)
        except Exception as exc:
            acked.errors.append(error_text(exc))


async def phase_contention(
    mates: list[Mate], origin: Origin, ids: dict[str, list[str]], seconds: float, writers: int
) -> None:
    print(f"\nWrites under contention: {len(mates)} servers x {writers} writers for {seconds:.0f} s")
    query = sql_dsn(mates)
    started = datetime.now(UTC)
    texts = {p: (mates[0].root / p).read_text(encoding="utf-8") for p in origin.at_c2}
    rnd = random.Random(11)
    hot = rnd.sample([i for p in origin.at_c2 for i in ids[p]], 50)
    hot_before = dict(query("SELECT id, note FROM tether_markers WHERE id = ANY(%s)", (hot,)))
    acked = Acked()
    until = time.perf_counter() + seconds
    t0 = time.perf_counter()
    await asyncio.gather(
        *(writer_loop(m, k, origin.at_c2, texts, hot, until, acked) for m in mates for k in range(writers))
    )
    elapsed = time.perf_counter() - t0
    S = "contention"
    ops = sum(len(v) for v in acked.latency.values())
    figure(S, "operations acknowledged", f"{ops:,} ({ops / elapsed:.1f}/s over {elapsed:.1f} s)")
    for op in ("create", "update", "delete", "update (hot set)"):
        figure(S, f"{op} round trip", ms(acked.latency[op]))
    figure(
        S,
        "operations that failed (answered an error)",
        f"{len(acked.errors)}" + (f": {acked.errors[0]}" if acked.errors else ""),
    )
    # the independent count: what the database holds, by psycopg
    rows = query(
        "SELECT id, note, kind, commit_hash_when_created FROM tether_markers"
        " WHERE created_at >= %s AND author LIKE 'mate-%%'",
        (started,),
    )
    in_db = {r[0]: r for r in rows}
    expected = set(acked.created) - acked.deleted
    lost = expected - set(in_db)
    resurrected = acked.deleted & set(in_db)
    unexpected = set(in_db) - set(acked.created)
    tokens: dict[str, int] = defaultdict(int)
    for r in rows:
        tokens[r[1].split(" ")[0]] += 1
    duplicates = sum(n - 1 for n in tokens.values() if n > 1)
    wrong_note = sum(
        1 for i in expected & set(in_db) if in_db[i][1] != acked.last_note[i] and in_db[i][1] not in acked.unanswered[i]
    )
    unknown = sum(1 for i in expected & set(in_db) if in_db[i][1] in acked.unanswered[i])
    kind_mismatch = sum(1 for r in rows if " u" in r[1] and r[1].rsplit(" ", 1)[1] != r[2])
    committed_ids = [r[0] for r in rows if r[3]]
    with_origin = query(
        "SELECT count(*) FROM tether_markers m JOIN tether_marker_locations l"
        " ON l.marker_id = m.id AND l.commit_hash = m.commit_hash_when_created WHERE m.id = ANY(%s)",
        (committed_ids,),
    )[0][0]
    orphans = query(
        "SELECT count(*) FROM tether_marker_locations l"
        " LEFT JOIN tether_markers m ON m.id = l.marker_id WHERE m.id IS NULL"
    )[0][0]
    hot_now = dict(query("SELECT id, note FROM tether_markers WHERE id = ANY(%s)", (hot,)))
    hot_bad = sum(1 for i in hot if hot_now.get(i) not in (acked.hot_notes[i] or {str(hot_before.get(i))}))
    hot_kind = query("SELECT note, kind FROM tether_markers WHERE id = ANY(%s) AND note LIKE 'hot:%%'", (hot,))
    hot_kind_bad = sum(1 for note, kind in hot_kind if note.rsplit(" ", 1)[1] != kind)
    figure(S, "markers created and not deleted (acknowledged)", len(expected))
    figure(S, "  in the database (psycopg count)", len(set(in_db)))
    figure(S, "lost (acknowledged, not in the database)", len(lost))
    figure(S, "resurrected (deletion acknowledged, still there)", len(resurrected))
    figure(S, "stored without an acknowledgement", len(unexpected))
    figure(S, "duplicated (one create stored twice)", duplicates)
    figure(S, "own markers whose note is not the last acknowledged one", wrong_note)
    figure(S, "  (an update with no answer, stored: not counted as wrong)", unknown)
    figure(S, "half-written: note and kind from different updates", kind_mismatch + hot_kind_bad)
    figure(S, "half-written: committed marker without its creation location", len(committed_ids) - int(with_origin))
    figure(S, "stored locations of markers that do not exist (whole table)", int(orphans))
    figure(S, "hot set (50 markers, all servers): note not one that was sent", hot_bad)


async def phase_kill(mates: list[Mate], origin: Origin, seconds: float) -> None:
    victim = mates[-1]
    print(f"\nkill -9 of {victim.name} while it writes")
    query = sql_dsn(mates)
    started = datetime.now(UTC)
    texts = {p: (victim.root / p).read_text(encoding="utf-8") for p in origin.at_c2}
    acked: dict[str, str] = {}
    sent = 0
    stop = asyncio.Event()

    async def loop(k: int) -> None:
        nonlocal sent
        rnd = random.Random(500 + k)
        n = 0
        while not stop.is_set():
            n += 1
            path = rnd.choice(origin.at_c2)
            token = f"k:{k}:{n}"
            sent += 1
            try:
                result = await call(
                    victim,
                    "tether/markers/create",
                    create_params(victim, path, texts[path].split("\n"), rnd, token),
                    10,
                )
                acked[result["id"]] = token
            except Exception:
                return

    tasks = [asyncio.ensure_future(loop(k)) for k in range(8)]
    await asyncio.sleep(seconds)
    os.kill(victim.pid, signal.SIGKILL)
    killed_at = len(acked)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    in_flight = sent - killed_at
    rows = query(
        "SELECT m.id, m.note, l.marker_id IS NOT NULL FROM tether_markers m LEFT JOIN tether_marker_locations l"
        " ON l.marker_id = m.id AND l.commit_hash = m.commit_hash_when_created"
        " WHERE m.created_at >= %s AND m.author = %s",
        (started, victim.name),
    )
    in_db = {r[0] for r in rows}
    S = "kill -9"
    figure(S, "creates acknowledged before the kill", len(acked))
    figure(S, "creates in flight at the kill (sent, no answer)", in_flight)
    figure(S, "acknowledged and not stored (lost)", len(set(acked) - in_db))
    figure(S, "stored though not acknowledged (committed as it died)", len(in_db - set(acked)))
    figure(S, "half-written (stored marker without its location)", sum(1 for r in rows if not r[2]))
    with contextlib.suppress(Exception):
        await victim.client.stop()
    victim.client = None
    t = time.perf_counter()
    await victim.start()
    try:
        await call(victim, "tether/markers/list", list_params(victim, origin.at_c2[0]))
        figure(S, "server started again -> first list answered", f"{(time.perf_counter() - t) * 1000:.0f} ms")
    except Exception as exc:
        figure(S, "server started again -> first list answered", f"no: {error_text(exc)}")


async def phase_pg_restart(mates: list[Mate], origin: Origin, pg: Postgres, down: float) -> None:
    print(f"\nPostgreSQL stopped for {down:.0f} s and started again, while a server writes and all answer lists")
    query = sql_dsn(mates)
    writer = mates[0]
    texts = {p: (writer.root / p).read_text(encoding="utf-8") for p in origin.at_c2}
    acked: dict[str, str] = {}
    errors: list[tuple[float, str]] = []
    stop = asyncio.Event()
    listening_before = {m.index: m.listening_count() for m in mates}
    log_marks = {m.index: len(m.logs) for m in mates}
    show_marks = {m.index: len(m.shown) for m in mates}

    async def write() -> None:
        rnd = random.Random(99)
        n = 0
        while not stop.is_set():
            n += 1
            path = rnd.choice(origin.at_c2)
            try:
                result = await call(
                    writer,
                    "tether/markers/create",
                    create_params(writer, path, texts[path].split("\n"), rnd, f"r:{n}"),
                    30,
                )
                acked[result["id"]] = f"r:{n}"
            except Exception as exc:
                errors.append((time.perf_counter(), error_text(exc)))
            await asyncio.sleep(0.1)

    task = asyncio.ensure_future(write())
    await asyncio.sleep(1.5)
    t_stop = time.perf_counter()
    await asyncio.to_thread(pg.stop, "fast")
    stopped = time.perf_counter()
    S = "PostgreSQL restart"
    # what a user sees meanwhile: the answer to a create and to a list of a file not open
    path = origin.at_c2[1 % len(origin.at_c2)]
    probe = mates[1 % len(mates)]
    for method, params in (
        ("tether/markers/create", create_params(probe, path, texts[path].split("\n"), random.Random(1), "while down")),
        ("tether/markers/list", list_params(probe, path)),
    ):
        t = time.perf_counter()
        try:
            await call(probe, method, params, 30)
            answer = "answered normally"
        except Exception as exc:
            answer = error_text(exc)
        figure(
            S, f"{method.split('/')[-1]} while the database is down ({(time.perf_counter() - t) * 1000:.0f} ms)", answer
        )
    await asyncio.sleep(max(0.0, down - (time.perf_counter() - stopped)))
    t_start = time.perf_counter()
    await asyncio.to_thread(pg.start)
    up = time.perf_counter()
    figure(S, "database down (stop issued -> started again)", f"{up - t_stop:.1f} s")

    # per server: the first list answered after the restart, and LISTEN connected again
    async def back(mate: Mate) -> tuple[float | None, float | None]:
        answered = relisten = None
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline and (answered is None or relisten is None):
            if answered is None:
                try:
                    await call(mate, "tether/markers/list", list_params(mate, origin.at_c2[-1]), 10)
                    answered = time.perf_counter() - up
                except Exception:
                    pass
            if relisten is None and mate.listening_count() > listening_before[mate.index]:
                found = [t for t, _, m in mate.logs[log_marks[mate.index] :] if LISTENING in m]
                relisten = (found[-1] - up) if found else time.perf_counter() - up
            await asyncio.sleep(0.2)
        return answered, relisten

    results = await asyncio.gather(*(back(m) for m in mates))
    answered = [r[0] * 1000 for r in results if r[0] is not None]
    relisten = [r[1] * 1000 for r in results if r[1] is not None]
    figure(S, "started -> first list answered, per server", ms(answered))
    figure(S, "servers whose requests work again", f"{len(answered)} of {len(mates)}")
    figure(S, "started -> LISTEN connected again, per server", ms(relisten))
    figure(S, "servers listening again", f"{len(relisten)} of {len(mates)}")
    # prove it: a write after the restart reaches every other server
    waits = [m.expect(m.uri(origin.at_c2[0])) for m in mates[1:]]
    t0 = time.perf_counter()
    lines = texts[origin.at_c2[0]].split("\n")
    await call(
        mates[0],
        "tether/markers/create",
        create_params(mates[0], origin.at_c2[0], lines, random.Random(5), "after the restart"),
    )
    done, pending = await asyncio.wait(waits, timeout=15) if waits else (set(), set())
    for w in pending:
        w.cancel()
    figure(S, RESTART_HEARD, f"{len(done)} of {len(waits)}")
    if done:
        figure(S, "  write -> didChange after the restart", ms([(w.result() - t0) * 1000 for w in done]))
    stop.set()
    await task
    in_db = {r[0] for r in query("SELECT id FROM tether_markers WHERE id = ANY(%s)", (list(acked),))}
    figure(S, "creates acknowledged across the restart (one server, 10/s)", len(acked))
    figure(S, "  of which not stored (lost)", len(set(acked) - in_db))
    down_errors = [e for t, e in errors if t >= t_stop]
    figure(S, "creates refused while down or reconnecting", len(down_errors))
    kinds = sorted({re.sub(r"\d+", "N", e)[:200] for e in down_errors})
    for k in kinds[:3]:
        figure(S, "  the error a create answered", k)
    shown = [(m.name, msg) for m in mates for _, _, msg in m.shown[show_marks[m.index] :]]
    figure(S, "window/showMessage sent by the servers while down", len(shown))
    for text in sorted({re.sub(r"\d+", "N", msg)[:200] for _, msg in shown})[:3]:
        figure(S, "  shown", text)
    warned = [msg for m in mates for _, typ, msg in m.logs[log_marks[m.index] :] if typ in (1, 2)]
    figure(S, "window/logMessage warnings/errors while down and after", len(warned))
    for text in sorted({re.sub(r"\d+", "N", msg)[:160] for msg in warned})[:4]:
        figure(S, "  logged", text)
    del t_start


async def phase_pgbouncer(
    mates: list[Mate], origin: Origin, pg: Postgres, work: Path, pool_size: int, ids: dict[str, list[str]]
) -> None:
    S = "PgBouncer"
    if pgbouncer_binary() is None:
        print("\nPgBouncer: not installed (apt-get install pgbouncer); skipped")
        figure(S, "PgBouncer", "not installed: skipped")
        return
    bouncer = PgBouncer(pg, pool_size)
    print(
        f"\nPgBouncer ({bouncer.version}) in transaction mode, pool of {pool_size} server connections:"
        " two servers through it"
    )
    bouncer.start()
    extra: list[Mate] = []
    try:
        for k in range(2):
            root = work / "clones" / f"pgbouncer-{k}"
            git(work, "clone", "-q", "-b", "team", str(origin.bare), str(root))
            git(root, "checkout", "-q", origin.c2)
            git(root, "config", "user.name", f"pgbouncer-{k}")
            mate = Mate(100 + k, root, bouncer.url, work)
            await mate.start()
            extra.append(mate)
        one, two = extra
        path = origin.at_c2[0]
        texts = (one.root / path).read_text(encoding="utf-8").split("\n")
        rnd = random.Random(3)
        outcome: dict[str, list[str]] = defaultdict(list)
        t = time.perf_counter()
        for n in range(40):
            for label, method, params in (
                ("list", "tether/markers/list", list_params(one, origin.at_c2[n % len(origin.at_c2)])),
                ("create", "tether/markers/create", create_params(one, path, texts, rnd, f"pgbouncer {n}")),
                (
                    "update",
                    "tether/markers/update",
                    {"id": ids[path][n % len(ids[path])], "note": f"via pgbouncer {n}"},
                ),
            ):
                try:
                    await call(one, method, params, 30)
                    outcome[label].append("ok")
                except Exception as exc:
                    outcome[label].append(error_text(exc))
        elapsed = time.perf_counter() - t
        for label in ("list", "create", "update"):
            ok = outcome[label].count("ok")
            bad = [o for o in outcome[label] if o != "ok"]
            figure(
                S,
                f"{label} through PgBouncer: answered / failed",
                f"{ok} / {len(bad)}" + (f" ({bad[0][:150]})" if bad else ""),
            )
        figure(S, "120 requests through PgBouncer took", f"{elapsed:.1f} s")
        listening = [m.listening_count() for m in extra]
        figure(
            S, "servers through PgBouncer that say their LISTEN is connected", f"{sum(1 for n in listening if n)} of 2"
        )

        async def heard(writer: Mate, hearer: Mate) -> str:
            wait = hearer.expect(hearer.uri(path))
            t0 = time.perf_counter()
            try:
                await call(writer, "tether/markers/create", create_params(writer, path, texts, rnd, "heard?"), 30)
            except Exception as exc:
                wait.cancel()
                return f"the write failed: {error_text(exc)}"
            try:
                at = await asyncio.wait_for(wait, 10)
                return f"yes, {(at - t0) * 1000:.0f} ms"
            except TimeoutError:
                return "no (nothing within 10 s)"

        figure(S, "NOTIFY through PgBouncer: direct server hears its write", await heard(one, mates[0]))
        figure(S, "LISTEN through PgBouncer: it hears a direct server's write", await heard(mates[0], two))
        figure(S, "  and a write of the other PgBouncer server", await heard(one, two))
        per = [server_connections(m.pid, bouncer.port) for m in extra]
        figure(S, "client connections each server holds to PgBouncer", " / ".join(map(str, per)))
        bouncer_pid = bouncer.pid()
        figure(
            S, "PgBouncer's connections to PostgreSQL", server_connections(bouncer_pid, pg.port) if bouncer_pid else "?"
        )
    finally:
        for m in extra:
            await m.stop()
        bouncer.close()


# --- the run -----------------------------------------------------------------------------------------------


def table_sizes(query: Callable[..., list[tuple[Any, ...]]]) -> None:
    S = "tables"
    for table in ("tether_markers", "tether_marker_locations"):
        rows, total, heap, idx = query(
            f"SELECT (SELECT count(*) FROM {table}), pg_total_relation_size(%s), pg_relation_size(%s),"
            " pg_indexes_size(%s)",
            (table, table, table),
        )[0]
        figure(S, f"{table}: rows", int(rows))
        figure(
            S,
            f"{table}: heap / indexes / total (TOAST incl.)",
            f"{heap / 2**20:.1f} / {idx / 2**20:.1f} / {total / 2**20:.1f} MiB",
        )
        if rows:
            figure(S, f"{table}: bytes per row, all included", f"{total / rows:.0f}")
    for name, size in query(
        "SELECT indexrelname, pg_relation_size(indexrelid) FROM pg_stat_user_indexes"
        " WHERE relname LIKE 'tether_marker%%' ORDER BY 1"
    ):
        figure(S, f"  index {name}", f"{size / 2**20:.1f} MiB")


def connection_figures(conns: Connections, phases: list[str]) -> None:
    S = "connections"
    for phase in phases:
        per, total = conns.per_server.get(phase, []), conns.total.get(phase, [])
        if not per:
            continue
        figure(
            S,
            f"{phase}: per server mean / max; all servers max",
            f"{sum(per) / len(per):.1f} / {max(per)}; {max(total) if total else '?'}",
        )


async def run(args: argparse.Namespace) -> None:
    source = Path(args.repo) if args.repo else Path(os.environ.get("TETHER_BENCH_BUNDLE") or BUNDLE)
    work = Path(tempfile.mkdtemp(prefix="tether-team-"))
    pg = Postgres(args.max_connections, args.fsync == "on")
    mates: list[Mate] = []
    load: Load | None = None
    conns: Connections | None = None
    t_all = time.perf_counter()
    try:
        print(f"Team scale: {args.servers} servers, {args.markers:,} markers over {args.files:,} files; {pg.version}")
        print(f"  machine: {os.cpu_count()} cores; work dir {work}")
        S = "setup"
        t = time.perf_counter()
        origin = build_origin(source, work, args.files, args.storm_distance)
        figure(S, "team origin built (C1, C2)", f"{time.perf_counter() - t:.1f} s")
        pg.init()
        pg.start()
        figure(S, "PostgreSQL settings", f"max_connections={args.max_connections}, fsync={args.fsync}")
        t = time.perf_counter()
        for i in range(args.servers):
            root = work / "clones" / f"home-{i:02d}" / "src" / "project"
            root.parent.mkdir(parents=True)
            git(work, "clone", "-q", "-b", "team", str(origin.bare), str(root))
            git(root, "config", "user.name", f"mate-{i:02d}")
            mates.append(Mate(i, root, pg.url, work))
        figure(S, f"{args.servers} clones made (git clone of the origin)", f"{time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        ids = await asyncio.to_thread(bulk_load, pg.url, mates[0].root, origin, args.markers)
        elapsed = time.perf_counter() - t
        figure(
            S,
            f"bulk load of {args.markers:,} markers + their C1 locations (MarkerStore.insert_many)",
            f"{elapsed:.1f} s ({args.markers / elapsed:,.0f} markers/s)",
        )
        query = sql_dsn(mates)
        figure(S, "files with markers", len(ids))
        t = time.perf_counter()
        sem = asyncio.Semaphore(4)

        async def start(m: Mate) -> float:
            async with sem:
                t1 = time.perf_counter()
                await m.start()
                await call(m, "tether/markers/list", list_params(m, origin.files[0]))
                return (time.perf_counter() - t1) * 1000

        starts = await asyncio.gather(*(start(m) for m in mates))
        figure(S, f"{args.servers} servers started (4 at a time)", f"{time.perf_counter() - t:.1f} s")
        figure(S, "one server: start -> initialize -> first list answered", ms(starts))
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline and not all(m.listening_count() for m in mates):  # noqa: ASYNC110
            await asyncio.sleep(0.1)
        figure(
            S, "servers whose LISTEN is connected", f"{sum(1 for m in mates if m.listening_count())} of {len(mates)}"
        )
        table_sizes(query)

        conns = Connections(pg, mates)
        conns.start()
        await asyncio.sleep(2)  # idle samples
        load = Load(mates, origin.files, args.load_rate)
        load.start()
        phases: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("fan-out", lambda: phase_fanout(mates, origin, ids, args.fanout_rounds)),
            ("commit storm", lambda: phase_storm(mates, origin, args.storm_timeout)),
            ("contention", lambda: phase_contention(mates, origin, ids, args.contention_seconds, args.writers)),
            ("kill -9", lambda: phase_kill(mates, origin, args.kill_after)),
            ("PostgreSQL restart", lambda: phase_pg_restart(mates, origin, pg, args.pg_down_seconds)),
        ]
        cpu: dict[str, tuple[float, float, float]] = {}
        for phase, work_of in phases:
            conns.phase = load.phase = phase
            before = cpu_seconds([m.pid for m in mates])
            t = time.perf_counter()
            await work_of()
            after = cpu_seconds([m.pid for m in mates])
            cpu[phase] = (
                time.perf_counter() - t,
                cpu_used(before, after, "server"),
                cpu_used(before, after, "postgres"),
            )
        conns.phase = load.phase = "after"
        await asyncio.sleep(2)
        await load.stop()
        print("\nBackground load: tether/markers/list on random files")
        for phase in ("fan-out", "commit storm", "contention", "kill -9", "PostgreSQL restart"):
            figure("background load", f"list during {phase}", ms(load.latency[phase]))
            if load.errors[phase]:
                first = load.errors[phase][0][1]
                figure("background load", f"  failed during {phase}", f"{len(load.errors[phase])} ({first[:120]})")
        print("\nCPU time per phase (2 cores = 2 CPU-seconds per second at most)")
        for phase, (wall, servers, database) in cpu.items():
            figure(
                "CPU",
                f"{phase}: wall / servers' CPU / PostgreSQL's CPU",
                f"{wall:.1f} s / {servers:.1f} s / {database:.1f} s",
            )
        await conns.stop()
        print("\nConnections to PostgreSQL (each server's process, sampled every second)")
        connection_figures(
            conns, ["idle", "fan-out", "commit storm", "contention", "kill -9", "PostgreSQL restart", "after"]
        )
        figure("connections", "most a server can open (pool 2 + overflow 4 + LISTEN 1)", 7)
        if not args.skip_pgbouncer:
            await phase_pgbouncer(mates, origin, pg, work, args.pgbouncer_pool, ids)
        print("\nTables at the end")
        table_sizes(query)
    finally:
        if load is not None:
            await load.stop()
        if conns is not None:
            await conns.stop()
        for m in mates:
            await m.stop()
        pg.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("\nEvery figure")
    width = max(len(w) for _, w, _ in FIGURES)
    section = None
    for sec, what, value in FIGURES:
        if sec != section:
            print(f"[{sec}]")
            section = sec
        print(f"  {what:<{width}}  {value}")
    got = {(s, w): v for s, w, v in FIGURES}
    print(
        f"\nSummary: {args.servers} servers, {args.markers:,} markers, {args.files:,} files:"
        f" fan-out to all {got.get(('fan-out', 'write -> didChange on every other server (the last one)'), '?')};"
        f" storm {got.get(('commit storm', 'first checkout -> every server done'), '?')},"
        f" repeated {got.get(('commit storm', '  of which repeated (computed by more than one server)'), '?')};"
        f" contention lost {got.get(('contention', 'lost (acknowledged, not in the database)'), '?')},"
        f" duplicated {got.get(('contention', 'duplicated (one create stored twice)'), '?')};"
        f" kill -9 lost {got.get(('kill -9', 'acknowledged and not stored (lost)'), '?')};"
        f" after a PostgreSQL restart didChange {got.get(('PostgreSQL restart', RESTART_HEARD), '?')};"
        f" total {time.perf_counter() - t_all:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--markers", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--repo", help="a git repository (or bundle) instead of the click bundle")
    parser.add_argument("--storm-distance", type=int, default=20, help="first-parent commits between A and B")
    parser.add_argument("--storm-timeout", type=float, default=900)
    parser.add_argument("--fanout-rounds", type=int, default=60)
    parser.add_argument("--load-rate", type=float, default=1.0, help="lists per second per server (background)")
    parser.add_argument("--contention-seconds", type=float, default=60)
    parser.add_argument("--writers", type=int, default=2, help="concurrent writers per server under contention")
    parser.add_argument("--kill-after", type=float, default=2.0, help="seconds of creates before kill -9")
    parser.add_argument("--pg-down-seconds", type=float, default=5.0)
    parser.add_argument("--max-connections", type=int, default=300)
    parser.add_argument("--fsync", choices=("on", "off"), default="on")
    parser.add_argument("--pgbouncer-pool", type=int, default=5)
    parser.add_argument("--skip-pgbouncer", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the work dir (clones, server logs)")
    args = parser.parse_args()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
