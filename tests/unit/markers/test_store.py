"""The marker table on both engines: a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.server.storage import Database


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MarkerStore]:
    db = (
        Database.sqlite(tmp_path / "m.db")
        if request.param == "sqlite"
        else Database(request.getfixturevalue("postgres_url"))
    )
    db.migrate({"markers": MIGRATIONS})
    yield MarkerStore(db)
    db.close()


def record(n: int, uri: str = "file:///repo/a%20b.py") -> MarkerRecord:
    return MarkerRecord(
        id=f"id-{n}",
        uri=uri,
        note=f"note {n} — café 東京 🚀",
        kind="comment",
        code="def f():\n    pass",
        commit_hash_when_created=None,
        created_at=datetime(2026, 11, 21, 12, 0, n, tzinfo=UTC),
        author="Ada",
        base_text="def f():\n    pass\n",
        base=Location(1, 1, 2, 9),
    )


def test_round_trip_update_delete(store: MarkerStore) -> None:
    store.insert(record(1))
    store.insert(record(2))
    store.insert(record(3, "file:///elsewhere/x.py"))
    assert [r.id for r in store.for_uri("file:///repo/a%20b.py")] == ["id-1", "id-2"]
    got = store.get("id-1")
    assert got == record(1)
    store.replace(replace(record(1), note="changed", uri="file:///repo/c.py", base=Location(2, 1, 2, 5)))
    moved = store.get("id-1")
    assert moved is not None
    assert (moved.note, moved.uri, moved.base) == ("changed", "file:///repo/c.py", Location(2, 1, 2, 5))
    assert {r.id for r in store.under("file:///repo/")} == {"id-1", "id-2"}
    assert store.under("file:///repo/a%") == [store.get("id-2")]  # % in a prefix is literal, not a wildcard
    assert store.delete("id-2") is True
    assert store.delete("id-2") is False
    assert store.get("id-2") is None


def test_stored_locations_per_commit(store: MarkerStore) -> None:
    from tether_lsp.handlers.markers.location_store import LocationStore, StoredLocation
    from tether_lsp.handlers.markers.store import ALGORITHM_VERSION

    store.insert(record(1), StoredLocation("id-1", "c0", "file:///repo/a%20b.py", Location(1, 1, 2, 9), None, "c0"))
    locations = LocationStore(store.db)
    assert locations.origin(["id-1"], {"id-1": "c0"})["id-1"].location == Location(1, 1, 2, 9)
    assert locations.at("c1", ["id-1"]) == {}
    gone = StoredLocation("id-1", "c1", "file:///repo/a%20b.py", None, "codeBlockDeleted", "c0")
    locations.put([gone])
    locations.put([gone])  # idempotent: two servers computing the same location agree
    assert locations.at("c1", ["id-1"]) == {"id-1": gone}
    old = StoredLocation("id-1", "c2", "file:///repo/a%20b.py", Location(3, 1, 3, 2), None, "c0", ALGORITHM_VERSION - 1)
    locations.put([old])
    assert locations.at("c2", ["id-1"]) == {}  # an older algorithm's result is recomputed, never reused
    store.delete("id-1")
    assert locations.origin(["id-1"], {"id-1": "c0"}) == {}


def test_uncommitted_locations(store: MarkerStore) -> None:
    from tether_lsp.handlers.markers.uncommitted_store import Uncommitted, UncommittedStore

    local = UncommittedStore(store.db)
    entry = Uncommitted("id-9", "file:///repo/new.py", "x = 1\n# café 🚀\n", Location(2, 1, 2, 9))
    local.put(entry)
    local.put(entry)
    assert local.get(["id-9", "nope"]) == {"id-9": entry}
    assert local.under("file:///repo/") == [entry]
    assert local.under("file:///other/") == []
    local.remove("id-9")
    assert local.get(["id-9"]) == {}
