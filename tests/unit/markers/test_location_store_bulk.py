"""LocationStore.put on both engines (a real SQLite file and a real PostgreSQL server): a HEAD sync's thousands of
locations go to the driver as one statement of plain values (SQLite: an executemany of tuples; PostgreSQL: arrays
of columns), replacing the rows of the same marker and commit.

The statements are counted with SQLAlchemy's cursor event; nothing is timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from tether_lsp.handlers.markers import location_store
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.location_store import LocationStore, StoredLocation
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.handlers.markers.tables import locations_table
from tether_lsp.server.storage import Database

MARKERS = 1_200  # more than the 500 rows the store once sent per statement
URI = "file:///repo/a.py"


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    db = (
        Database.sqlite(tmp_path / "m.db")
        if request.param == "sqlite"
        else Database(request.getfixturevalue("postgres_url"))
    )
    db.migrate({"markers": MIGRATIONS})
    rows: list[tuple[MarkerRecord, StoredLocation | None]] = []
    for n in range(MARKERS):
        loc = Location(n + 1, 1, n + 2, 5)
        record = MarkerRecord(f"m{n:05}", URI, "note", "comment", "", "c0", datetime.now(UTC), "Ada", "", loc)
        rows.append((record, StoredLocation(record.id, "c0", URI, loc, None, "c0")))
    MarkerStore(db).insert_many(rows)
    yield db
    db.close()


@pytest.fixture
def statements(db: Database) -> Iterator[list[tuple[str, bool]]]:
    """Every statement sent to the driver: (its SQL, whether as an executemany)."""
    seen: list[tuple[str, bool]] = []

    def note(_conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, executemany: bool) -> None:
        seen.append((" ".join(statement.split()), executemany))

    event.listen(db.engine, "before_cursor_execute", note)
    yield seen
    event.remove(db.engine, "before_cursor_execute", note)


def at_c1(n: int, line: int | None) -> StoredLocation:
    if line is None:
        return StoredLocation(f"m{n:05}", "c1", URI, None, "codeBlockDeleted", "c0")
    return StoredLocation(f"m{n:05}", "c1", URI, Location(line, 1, line + 1, 5), None, "c0")


def test_a_sync_s_locations_are_one_statement_replacing_rows_of_the_same_marker_and_commit(
    db: Database, statements: list[tuple[str, bool]]
) -> None:
    locations = LocationStore(db)
    locations.put([at_c1(n, 1) for n in range(0, MARKERS, 3)])  # some are at c1 already
    statements.clear()
    now = [at_c1(n, n + 7 if n % 5 else None) for n in range(MARKERS)]
    locations.put(now[::-1] + now[:10])  # in any order, some twice
    writes = [(sql, many) for sql, many in statements if sql.startswith(("INSERT", "UPDATE", "DELETE"))]
    assert len(writes) == 1
    sql, many = writes[0]
    assert many == (db.dialect == "sqlite")  # PostgreSQL: one row of arrays
    assert sql.startswith(f"INSERT INTO {locations_table.name} ")
    assert locations.at("c1", [f"m{n:05}" for n in range(MARKERS)]) == {s.marker_id: s for s in now}
    assert locations.at("c0", ["m00003"])["m00003"].location == Location(4, 1, 5, 5)  # another commit's row stays


def test_a_location_of_a_marker_deleted_meanwhile_is_not_stored_on_postgresql(db: Database) -> None:
    locations = LocationStore(db)
    MarkerStore(db).delete("m00001")
    locations.put([at_c1(0, 3), at_c1(1, 3)])
    stored = locations.at("c1", ["m00000", "m00001"])
    assert set(stored) == ({"m00000"} if db.dialect == "postgresql" else {"m00000", "m00001"})


def test_the_tuples_follow_the_table_s_columns() -> None:
    """The statement names the columns; the tuples must give them in the table's order, every one of them."""
    assert tuple(c.name for c in locations_table.columns) == location_store._COLUMNS
    row = location_store.location_values(at_c1(4, 9), None)
    assert dict(zip(location_store._COLUMNS, row, strict=True)) == location_store.location_row(at_c1(4, 9), None)


def test_reads_of_many_markers_hand_their_values_to_the_driver(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """A HEAD sync reads 10,000 markers' locations 500 at a time: SQLAlchemy rendering each chunk's 500 values
    into its ``IN`` was half the read's CPU. The rows read are the ones stored, by marker and commit."""
    from sqlalchemy.sql.compiler import SQLCompiler

    rendered: list[int] = []
    real = SQLCompiler._process_parameters_for_postcompile

    def spy(self: SQLCompiler, *args: Any, **kwargs: Any) -> Any:
        rendered.append(1)
        return real(self, *args, **kwargs)

    locations = LocationStore(db)
    now = [at_c1(n, n + 7 if n % 5 else None) for n in range(MARKERS)]
    locations.put(now)
    ids = [f"m{n:05}" for n in range(MARKERS)]
    monkeypatch.setattr(SQLCompiler, "_process_parameters_for_postcompile", spy)
    assert locations.at("c1", [*ids, "nobody"]) == {s.marker_id: s for s in now}
    origins = locations.origin(ids, {i: "c0" if n % 2 else "c1" for n, i in enumerate(ids)})
    assert origins == {i: now[n] if n % 2 == 0 else origins[i] for n, i in enumerate(ids)}
    assert all(
        origins[i].commit == "c0" and origins[i].location == Location(n + 1, 1, n + 2, 5)
        for n, i in enumerate(ids)
        if n % 2
    )
    assert rendered == []
