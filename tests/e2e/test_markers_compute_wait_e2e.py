"""``tether.markers.computeWaitSeconds`` on a real PostgreSQL, over stdio: a server whose teammate is computing the
same files at the same commit waits that long, then computes them itself.

The teammate is played by the test: it holds the advisory locks a computing server holds (one per file at the
commit, ``LocationStore.claim``) and never lets go while the server syncs.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from sqlalchemy import create_engine, text

from tests.e2e.test_markers_clones_e2e import head_changed
from tests.e2e.test_markers_team_storm_e2e import module, synced_at
from tests.helpers import capabilities, commit_all, git, server_config
from tether_lsp.handlers.markers.calculator import Location, block_of
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.location_store import StoredLocation, _file_lock
from tether_lsp.handlers.markers.places import Places
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.handlers.markers.tracking import SHARE_FROM
from tether_lsp.server.storage import Database

FILES = 8
PER_FILE = 8  # 64 markers: more than SHARE_FROM, so the server splits the work with its teammates


def seed(url: str, root: Path, commit: str) -> int:
    """Markers at ``commit``, written with the markers store as a server writes them."""
    db = Database(url)
    db.migrate({"markers": MIGRATIONS})
    rows: list[tuple[MarkerRecord, StoredLocation | None]] = []
    for n in range(FILES):
        source, uri = module(n, 0), (root / f"mod{n}.py").as_uri()
        for k in range(PER_FILE):
            start = 1 + k * 7
            loc = Location(start, 1, start + 1, len(source.split("\n")[start]) + 1)
            record = MarkerRecord(
                str(uuid.uuid4()),
                uri,
                "note",
                "comment",
                block_of(source, loc),
                commit,
                datetime.now(UTC),
                "ada",
                "",
                loc,
            )
            rows.append((record, StoredLocation(record.id, commit, uri, loc, None, commit)))
    MarkerStore(db, places=Places(Git())).insert_many(rows)
    db.close()
    return len(rows)


async def logged(lsp: Any, text: str) -> None:
    """Until the server has logged a message containing ``text`` (within 60 s)."""
    async with asyncio.timeout(60):
        while True:
            coming = lsp.protocol.wait_for_notification("window/logMessage")  # before looking: no race
            if any(text in m.message for m in lsp.log_messages):
                return
            await asyncio.wrap_future(coming)


@pytest.mark.postgres
@pytest.mark.parametrize("wait", [0, 2])
async def test_a_server_computes_the_files_a_teammate_holds_after_compute_wait_seconds(
    tmp_path: Path, postgres_url: str, wait: float
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for n in range(FILES):
        (root / f"mod{n}.py").write_text(module(n, 0), encoding="utf-8")
    first = commit_all(root, "modules")
    total = seed(postgres_url, root, first)
    assert total >= SHARE_FROM
    lsp: Any = await server_config(TETHER_DATABASE_URL=postgres_url).start()
    options = {"tether": {"markers": {"computeWaitSeconds": wait}}}
    teammate = create_engine(postgres_url)
    try:
        await lsp.initialize_session(
            types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri(), initialization_options=options)
        )
        # the server takes the HEAD it starts at as synced (in a worker after `initialized`, then it listens): a
        # commit made before that would be taken as the starting HEAD, and no sync would follow
        await logged(lsp, "listening for other servers' changes")
        for n in range(FILES):
            (root / f"mod{n}.py").write_text(module(n, 3), encoding="utf-8")
        second = commit_all(root, "three lines above everything")
        with teammate.connect() as conn, conn.begin():  # the teammate computing every file at `second`
            for n in range(FILES):
                conn.execute(text("SELECT pg_advisory_xact_lock(:space, :key)"), _file_lock(second, f"mod{n}.py"))
            started = asyncio.get_running_loop().time()
            head_changed(lsp, root)
            computed, read = await synced_at(lsp, second)  # within 60 s, while the teammate still holds them all
            took = asyncio.get_running_loop().time() - started
        assert (computed, read) == (total, 0)
        assert took >= wait
        stopped = [m.message for m in lsp.log_messages if "stopped waiting for another server" in m.message]
        assert len(stopped) == (1 if wait else 0), stopped
    finally:
        teammate.dispose()
        await lsp.shutdown_session()
        await lsp.stop()
