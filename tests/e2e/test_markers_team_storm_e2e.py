"""Team mode on PostgreSQL, over stdio: teammates whose clones reach the same commit at the same moment (a
pull after a merge, a checkout everyone makes) compute its markers' locations once between them; the
others read what the first one stored."""

from __future__ import annotations

import asyncio
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_markers_clones_e2e import Servers, clone, head_changed
from tests.e2e.test_markers_e2e import listed
from tests.helpers import commit_all, git
from tether_lsp.handlers.markers.calculator import Location, block_of
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.location_store import StoredLocation
from tether_lsp.handlers.markers.places import Places
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.server.storage import Database

FILES = 60
PER_FILE = 8  # 480 markers in 60 files: computing them takes long enough that both servers start before either stores
SYNCED = re.compile(r"markers: (\d+) location\(s\) at ([0-9a-f]+): (\d+) computed here, (\d+) read from the database")


def module(n: int, shift: int) -> str:
    header = "".join(f"# line added above {k}\n" for k in range(shift))
    body = "".join(
        f"def function_{n}_{k}(items):\n    total = 0\n    for item in items:\n        total += item * {k}\n"
        f"    return total\n\n\n"
        for k in range(40)
    )
    return header + body


def seed_markers(url: str, root: Path, commit: str) -> int:
    """Markers at ``commit`` written with the markers store, as a server writes them (repository and path)."""
    db = Database(url)
    db.migrate({"markers": MIGRATIONS})
    rows: list[tuple[MarkerRecord, StoredLocation | None]] = []
    for n in range(FILES):
        text = module(n, 0)
        uri = (root / f"mod{n}.py").as_uri()
        for k in range(PER_FILE):
            start = 1 + (k * 7) % 270
            loc = Location(start, 1, start + 1, len(text.split("\n")[start]) + 1)
            marker_id = str(uuid.uuid4())
            record = MarkerRecord(
                marker_id, uri, f"note {k}", "comment", block_of(text, loc), commit, datetime.now(UTC), "ada", "", loc
            )
            rows.append((record, StoredLocation(marker_id, commit, uri, loc, None, commit)))
    MarkerStore(db, places=Places(Git())).insert_many(rows)
    db.close()
    return len(rows)


async def synced_at(lsp: Any, head: str) -> tuple[int, int]:
    """(computed, read) from the server's log line once its markers are stored at ``head``."""
    async with asyncio.timeout(60):
        while True:
            logged = lsp.protocol.wait_for_notification("window/logMessage")  # before looking: no race
            for message in lsp.log_messages:
                found = SYNCED.search(message.message)
                if found and head.startswith(found.group(2)):
                    return int(found.group(3)), int(found.group(4))
            await asyncio.wrap_future(logged)


@pytest.mark.postgres
async def test_teammates_reaching_a_commit_together_compute_its_locations_once(
    tmp_path: Path, postgres_url: str
) -> None:
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    for n in range(FILES):
        (seed / f"mod{n}.py").write_text(module(n, 0), encoding="utf-8")
    first = commit_all(seed, "modules")
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(tmp_path / "origin.git"))
    alice = clone(tmp_path / "origin.git", tmp_path / "home" / "alice" / "proj")
    bob = clone(tmp_path / "origin.git", tmp_path / "home" / "bob" / "proj")
    for n in range(FILES):
        (seed / f"mod{n}.py").write_text(module(n, 3), encoding="utf-8")
    second = commit_all(seed, "three lines above everything")
    git(seed, "push", "-q", str(tmp_path / "origin.git"), "main")
    total = seed_markers(postgres_url, alice, first)

    team = Servers(postgres_url)
    try:
        mine, theirs = await team.start(alice), await team.start(bob)
        for lsp, root in ((mine, alice), (theirs, bob)):  # both warm: their markers listed at the first commit
            assert len(await listed(lsp, (root / "mod0.py").as_uri())) == PER_FILE
        for root in (alice, bob):
            git(root, "pull", "-q", "--ff-only")
        for lsp, root in ((mine, alice), (theirs, bob)):
            head_changed(lsp, root)
        results = await asyncio.gather(synced_at(mine, second), synced_at(theirs, second))
    finally:
        await team.stop()
    computed = sum(c for c, _ in results)
    read = sum(r for _, r in results)
    assert (computed, read) == (total, total), results  # one server computed them all, the other read them


@pytest.mark.postgres
def test_a_location_another_server_is_storing_at_the_same_moment_is_stored_not_refused(
    tmp_path: Path, postgres_url: str
) -> None:
    """Two servers storing the same computed location at once agree: the second one's write waits for the first
    one's transaction and replaces its row; it is not refused as a duplicate (with the rest of its batch)."""
    import threading

    from sqlalchemy import create_engine, text

    from tether_lsp.handlers.markers.location_store import LocationStore

    db = Database(postgres_url)
    db.migrate({"markers": MIGRATIONS})
    commit = "c" * 40
    theirs = StoredLocation("m1", commit, "file:///elsewhere/calc.py", Location(3, 1, 7, 13), None, "a" * 40)
    mine = [
        StoredLocation("m1", commit, (tmp_path / "calc.py").as_uri(), Location(3, 1, 7, 13), None, "a" * 40),
        StoredLocation("m2", commit, (tmp_path / "calc.py").as_uri(), Location(9, 1, 9, 5), None, "a" * 40),
    ]
    made = datetime.now(UTC)
    MarkerStore(db).insert_many(
        [
            (MarkerRecord(s.marker_id, s.uri, "note", "comment", "code", commit, made, "ada", "", s.location), None)  # type: ignore[arg-type]
            for s in mine
        ]
    )
    other = create_engine(postgres_url)
    failed: list[BaseException] = []
    try:
        with other.connect() as conn:
            conn.execute(
                text(
                    "INSERT INTO tether_marker_locations (marker_id, commit_hash, uri, line_start, col_start,"
                    " line_end, col_end, derived_from, algorithm_version) VALUES (:m, :c, :u, 3, 1, 7, 13, :d, 2)"
                ),
                {"m": theirs.marker_id, "c": commit, "u": theirs.uri, "d": theirs.derived_from},
            )  # the other server's transaction, not committed yet

            def put() -> None:
                try:
                    LocationStore(db).put(mine)
                except BaseException as exc:
                    failed.append(exc)

            writer = threading.Thread(target=put)
            writer.start()
            waiting = text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
            with other.connect() as watch:  # until this server's write waits for the other's transaction
                for _ in range(200):
                    if watch.execute(waiting).scalar():
                        break
                    threading.Event().wait(0.05)
            conn.commit()
            writer.join(30)
        with other.connect() as conn:
            rows = conn.execute(text("SELECT marker_id FROM tether_marker_locations ORDER BY 1")).all()
    finally:
        other.dispose()
        db.close()
    assert failed == []
    assert [r[0] for r in rows] == ["m1", "m2"]


@pytest.mark.postgres
def test_a_location_stored_while_its_marker_is_deleted_does_not_outlive_it(tmp_path: Path, postgres_url: str) -> None:
    """A server storing a computed location while another deletes the marker (a sync after a checkout, a delete
    from a teammate) leaves no location behind for the deleted marker."""
    import threading

    from sqlalchemy import create_engine, text

    from tether_lsp.handlers.markers.location_store import LocationStore

    db = Database(postgres_url)
    db.migrate({"markers": MIGRATIONS})
    commit = "c" * 40
    uri = (tmp_path / "calc.py").as_uri()
    loc = Location(1, 1, 1, 5)
    record = MarkerRecord("m1", uri, "note", "comment", "code", commit, datetime.now(UTC), "ada", "", loc)
    MarkerStore(db).insert_many([(record, StoredLocation("m1", commit, uri, loc, None, commit))])
    other = create_engine(postgres_url)
    failed: list[BaseException] = []
    try:
        with other.connect() as conn:
            # the teammate's delete, as the store does it, not committed yet
            conn.execute(text("DELETE FROM tether_markers WHERE id = 'm1'"))
            conn.execute(text("DELETE FROM tether_marker_locations WHERE marker_id = 'm1'"))

            def put() -> None:
                try:
                    LocationStore(db).put([StoredLocation("m1", "d" * 40, uri, loc, None, commit)])
                except BaseException as exc:
                    failed.append(exc)

            writer = threading.Thread(target=put)
            writer.start()
            waiting = text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
            with other.connect() as watch:  # until the write waits for the delete, or is over
                for _ in range(100):
                    if not writer.is_alive() or watch.execute(waiting).scalar():
                        break
                    threading.Event().wait(0.05)
            conn.commit()
            writer.join(30)
        with other.connect() as conn:
            orphans = conn.execute(text("SELECT marker_id, commit_hash FROM tether_marker_locations")).all()
    finally:
        other.dispose()
        db.close()
    assert failed == []
    assert orphans == []
