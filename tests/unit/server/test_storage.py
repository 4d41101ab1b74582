"""storage/: the same tests on a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, Text, inspect, select
from sqlalchemy.engine import Connection

from tether_lsp.server.storage import (
    Database,
    Migration,
    StorageError,
    default_sqlite_path,
    metadata,
)

# A component of the tests' own, made the way a feature makes its tables.
notes = Table(
    "test_notes",
    MetaData(),
    Column("key", String(100), primary_key=True),
    Column("body", Text, nullable=False),
)
NOTES = {"notes": [Migration(1, "notes", lambda conn: notes.create(conn))]}


def put(db: Database, key: str, body: str) -> None:
    """Insert or replace one note: a read, then a write, under the write lock."""
    with db.transaction(write_lock=True) as conn:
        if conn.execute(select(notes.c.key).where(notes.c.key == key)).first() is None:
            conn.execute(notes.insert().values(key=key, body=body))
        else:
            conn.execute(notes.update().where(notes.c.key == key).values(body=body))


def everything(db: Database) -> dict[str, str]:
    with db.transaction() as conn:
        return {row.key: row.body for row in conn.execute(select(notes).order_by(notes.c.key))}


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        database = Database.sqlite(tmp_path / "nested" / "tether.db")
    else:
        database = Database(request.getfixturevalue("postgres_url"))
    yield database
    database.close()


def test_migrate_creates_schema_and_is_idempotent(db: Database) -> None:
    assert db.migrate(NOTES) == {"notes": 1}
    assert db.migrate(NOTES) == {"notes": 1}  # second run applies nothing
    other = Database(db.url)  # a second server on the same database
    try:
        assert other.migrate(NOTES) == {"notes": 1}
    finally:
        other.close()


def test_a_database_holds_only_the_schema_table_and_the_components_tables(db: Database) -> None:
    db.migrate(NOTES)
    assert set(inspect(db.engine).get_table_names()) == {"tether_schema", "test_notes"}


# What earlier versions made in every database: a key-value table, the schema component "core", version 1.
OLD_CORE_TABLE = (
    "CREATE TABLE tether_kv (namespace VARCHAR(200) NOT NULL, key VARCHAR(500) NOT NULL, value TEXT NOT NULL, "
    "updated_at {timestamp} NOT NULL, PRIMARY KEY (namespace, key))"
)


def test_a_database_made_by_an_earlier_version_opens_and_keeps_its_leftovers(db: Database) -> None:
    timestamp = "DATETIME" if db.dialect == "sqlite" else "TIMESTAMP WITH TIME ZONE"
    with db.transaction() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE tether_schema (component VARCHAR(100) PRIMARY KEY, version INTEGER NOT NULL)"
        )
        conn.exec_driver_sql(OLD_CORE_TABLE.format(timestamp=timestamp))
        conn.exec_driver_sql("INSERT INTO tether_schema (component, version) VALUES ('core', 1)")
        conn.exec_driver_sql("INSERT INTO tether_kv VALUES ('ns', 'k', '\"café 東京 🚀\"', '2024-01-01 00:00:00')")
    assert db.migrate(NOTES) == {"core": 1, "notes": 1}
    put(db, "a", "written")
    assert everything(db) == {"a": "written"}
    assert db.migrate(NOTES) == {"core": 1, "notes": 1}  # opened again: still nothing to do
    with db.transaction() as conn:
        assert conn.exec_driver_sql("SELECT namespace, key, value FROM tether_kv").all() == [
            ("ns", "k", '"café 東京 🚀"')
        ]


def test_non_ascii_text_round_trips(db: Database) -> None:
    db.migrate(NOTES)
    put(db, "k", "café 東京 🚀")
    put(db, "j", "plain")
    assert everything(db) == {"j": "plain", "k": "café 東京 🚀"}
    put(db, "k", "ünïcode again ✓")
    assert everything(db) == {"j": "plain", "k": "ünïcode again ✓"}


def test_a_failed_transaction_changes_nothing(db: Database) -> None:
    db.migrate(NOTES)
    put(db, "a", "kept")
    with pytest.raises(StorageError), db.transaction() as conn:
        conn.execute(notes.update().values(body="changed"))
        conn.execute(notes.insert().values(key="a", body="clash"))  # primary key clash
    assert everything(db) == {"a": "kept"}


def test_forward_migrations_of_a_component(db: Database) -> None:
    table = Table("demo_items", metadata, Column("id", Integer, primary_key=True), Column("body", Text))
    try:
        steps = [Migration(1, "items", lambda conn: table.create(conn))]
        assert db.migrate({"demo": steps})["demo"] == 1
        with db.transaction() as conn:
            conn.execute(table.insert().values(id=1, body="kept"))

        def add_column(conn: Connection) -> None:
            conn.exec_driver_sql("ALTER TABLE demo_items ADD COLUMN extra INTEGER DEFAULT 7")

        assert db.migrate({"demo": [*steps, Migration(2, "extra column", add_column)]})["demo"] == 2
        with db.transaction() as conn:
            rows = conn.exec_driver_sql("SELECT id, body, extra FROM demo_items").all()
        assert [tuple(r) for r in rows] == [(1, "kept", 7)]
    finally:
        metadata.remove(table)


def test_a_newer_schema_is_refused(db: Database) -> None:
    db.migrate(NOTES)
    with db.transaction() as conn:
        conn.exec_driver_sql("UPDATE tether_schema SET version = 99 WHERE component = 'notes'")
    with pytest.raises(StorageError, match="the database's notes schema is version 99, newer than this server's 1"):
        db.migrate(NOTES)


def test_misnumbered_migrations_are_rejected(tmp_path: Path) -> None:
    db = Database.sqlite(tmp_path / "t.db")
    try:
        with pytest.raises(ValueError, match="bad: migrations must be numbered 1..n"):
            db.migrate({"bad": [Migration(2, "x", lambda c: None)]})
    finally:
        db.close()


def test_concurrent_writers_do_not_lose_updates(db: Database) -> None:
    db.migrate(NOTES)
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(10):
                put(db, f"{n}-{i}", str(i))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(everything(db)) == 40


def test_sqlite_locked_database_is_a_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    db = Database(f"sqlite:///{path}", busy_timeout_ms=100)
    db.migrate(NOTES)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StorageError, match="locked") as info:
            put(db, "k", "v")
        assert info.value.code == -32803 and info.value.data["kind"] == "storage"
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    put(db, "k", "v")  # works again once the lock is gone
    assert everything(db) == {"k": "v"}
    db.close()


def test_unreachable_postgres_is_a_storage_error() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    db = Database(f"postgresql+psycopg://tether:secret@127.0.0.1:{port}/x", busy_timeout_ms=1000)
    with pytest.raises(StorageError) as info:
        db.migrate()
    assert "secret" not in info.value.message
    assert "secret" not in db.redacted_url
    db.close()


def test_unsupported_url() -> None:
    with pytest.raises(StorageError, match="unsupported database URL scheme"):
        Database("mysql://x")


def test_wal_mode(tmp_path: Path) -> None:
    db = Database.sqlite(tmp_path / "w.db")
    with db.transaction() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    db.close()


def test_default_location(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    assert default_sqlite_path(repo / "src") == repo / ".git" / "tether" / "tether.db"
    # a worktree shares the main clone's database
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "init"],
        check=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@x",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@x",
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
        },
    )
    wt = tmp_path / "wt"
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", str(wt)], check=True)
    assert default_sqlite_path(wt) == (repo / ".git" / "tether" / "tether.db").resolve()
    outside = tmp_path / "plain"
    outside.mkdir()
    path = default_sqlite_path(outside)
    assert path.name == "tether.db" and ".git" not in path.parts


def test_the_schema_table_records_each_component_version(db: Database) -> None:
    db.migrate(NOTES)
    with db.transaction() as conn:
        assert conn.exec_driver_sql("SELECT component, version FROM tether_schema").all() == [("notes", 1)]


def test_sqlite_keeps_one_connection_per_thread(tmp_path: Path) -> None:
    """The PRAGMAs run once per thread, not once per transaction."""
    from sqlalchemy import event

    db = Database.sqlite(tmp_path / "per-thread.db")
    connects: list[int] = []
    event.listen(db.engine, "connect", lambda *_a: connects.append(threading.get_ident()))
    seen: list[object] = []
    for _ in range(5):
        with db.transaction() as conn:
            seen.append(conn.connection.dbapi_connection)
    assert len(connects) == 1 and len({id(c) for c in seen}) == 1
    other: list[object] = []

    def in_a_worker() -> None:
        with db.transaction() as conn:
            other.append(conn.connection.dbapi_connection)

    worker = threading.Thread(target=in_a_worker)
    worker.start()
    worker.join()
    assert len(connects) == 2 and other[0] is not seen[0]  # a thread of its own, a connection of its own
    db.close()


def test_postgresql_without_its_driver_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if tether-lsp[postgres] were not installed
    with pytest.raises(StorageError) as info:
        Database("postgresql+psycopg://me@127.0.0.1:1/nothing")
    assert "pip install 'tether-lsp[postgres]'" in info.value.message
    assert info.value.code == -32803


def test_a_lazy_module_is_whole_for_every_thread_that_reads_it_first() -> None:
    """Many threads reading a lazily loaded module at once all see it complete (no half-loaded module)."""
    import sys

    from tether_lsp.server.lazy import lazy_module

    sys.modules.pop("tether_lsp.handlers.markers.tracking", None)
    tracking = lazy_module("tether_lsp.handlers.markers.tracking")
    start, seen, failures = threading.Barrier(8), [], []

    def read() -> None:
        start.wait()
        try:
            seen.append(tracking.at_head)
        except AttributeError as exc:
            failures.append(exc)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == [] and len(seen) == 8
