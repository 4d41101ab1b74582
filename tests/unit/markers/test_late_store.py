"""Locations a request computed at a new HEAD are answered first and stored after (:mod:`.late_store`): the
request does not wait for the database's write lock, which a HEAD sync holds for each of its batch writes.
What is stored late never replaces a row stored meanwhile, nor outlives a marker deleted or placed again.

Real SQLite files (and a real PostgreSQL for the store's part), a real clone; nothing is timed: the write lock
is held by another connection until the answer is in.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.helpers import git
from tether_lsp.handlers.markers import late_store
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.location_store import LocationStore, StoredLocation
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.server.storage import Database
from tether_lsp.server.thread_host import ThreadHost

from .test_state_service import SOURCE, TOTAL, placing


def test_a_location_computed_for_a_request_is_answered_while_another_connection_holds_the_write_lock(
    served: tuple[Path, MarkersState, ThreadHost], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state, host = served
    uri = (root / "calc.py").as_uri()
    created, _ = state.create(placing(uri, TOTAL), "why not len?", "question")
    marker = created.record.id
    (root / "calc.py").write_text("# one\n# two\n" + SOURCE)
    git(root, "commit", "-qam", "two lines on top")
    head = git(root, "rev-parse", "HEAD").strip()
    monkeypatch.setattr(state.sync, "request", lambda root: None)  # no sync: this request computes the location
    stored = threading.Event()
    real_store = late_store.LatePuts.store

    def store(self: late_store.LatePuts) -> int:
        try:
            return real_store(self)
        finally:
            stored.set()

    monkeypatch.setattr(late_store.LatePuts, "store", store)
    path = host.database().engine.url.database
    assert path is not None
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, as a sync's batch write holds it
    try:
        (located,) = state.locate_now(uri, None).located  # answered with the lock still held
        assert located.location == Location(TOTAL.line_start + 2, 1, TOTAL.line_end + 2, 19)
        rows = holder.execute(
            "SELECT count(*) FROM tether_marker_locations WHERE marker_id = ? AND commit_hash = ?", (marker, head)
        ).fetchone()
        assert rows == (0,)  # not stored yet: the write waits for the lock
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert stored.wait(30)
    at_head = state.locations().at(head, [marker])[marker]
    assert at_head.location == located.location
    assert at_head.derived_from == created.record.commit_hash_when_created


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    db = (
        Database.sqlite(tmp_path / "m.db")
        if request.param == "sqlite"
        else Database(request.getfixturevalue("postgres_url"))
    )
    db.migrate({"markers": MIGRATIONS})
    rows: list[tuple[MarkerRecord, StoredLocation | None]] = []
    for n in range(4):
        loc = Location(n + 1, 1, n + 2, 5)
        record = MarkerRecord(
            f"m{n}", "file:///repo/a.py", "note", "comment", "", "c0", datetime.now(UTC), "Ada", "", loc
        )
        rows.append((record, StoredLocation(record.id, "c0", record.uri, loc, None, "c0")))
    MarkerStore(db).insert_many(rows)
    yield db
    db.close()


def at_c1(n: int, line: int, derived: str = "c0") -> StoredLocation:
    return StoredLocation(f"m{n}", "c1", "file:///repo/a.py", Location(line, 1, line + 1, 5), None, derived)


def test_a_late_store_keeps_what_is_there_and_skips_markers_gone_or_placed_again(db: Database) -> None:
    locations, markers = LocationStore(db), MarkerStore(db)
    locations.put([at_c1(0, 10)])  # the sync stored m0 first (its own value stays)
    markers.delete("m1")
    markers.set_commit("m2", "c9")  # placed again since: the late location derives from its old place
    assert locations.put_new([at_c1(0, 99), at_c1(1, 20), at_c1(2, 30), at_c1(3, 40), at_c1(3, 40)]) == 1
    found = locations.at("c1", ["m0", "m1", "m2", "m3"])
    assert {k: s.location.line_start for k, s in found.items() if s.location} == {"m0": 10, "m3": 40}
    assert locations.put_new([at_c1(3, 41)]) == 0  # a second late store of the same row changes nothing
    locations.put([at_c1(3, 42)])  # and the sync's put, coming after, replaces it
    assert locations.at("c1", ["m3"])["m3"].location == Location(42, 1, 43, 5)


def test_late_puts_are_kept_until_stored_but_those_made_under_a_claim_are_made_at_once(db: Database) -> None:
    late = late_store.LatePuts(LocationStore(db))
    late.put([at_c1(0, 10)])
    assert late.at("c1", ["m0"]) == {}
    with late.claim("c1", ["a.py"]) as mine:  # a teammate waits for this claim and reads what it stored
        assert mine == {"a.py"}
        late.put([at_c1(1, 20)])
    assert set(late.at("c1", ["m0", "m1"])) == {"m1"}
    assert late.store() == 1
    assert set(late.at("c1", ["m0", "m1"])) == {"m0", "m1"}
