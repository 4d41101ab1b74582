"""A database made by the previous markers schema (files stored by uri only), over stdio, on SQLite and on
PostgreSQL: the new schema step keys what this machine can place, the rest keeps working by uri with the
reason in the log, and each teammate's server adopts its own clone's markers when it starts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    DateTime,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    create_engine,
    text,
)

from tests.e2e.test_markers_clones_e2e import (
    Servers,
    alice,
    bob,
    database_url,
    origin,
    servers,
    sql,
    workspace,
)
from tests.e2e.test_markers_e2e import listed, listed_until, rng
from tests.helpers import git

__all__ = ["alice", "bob", "database_url", "origin", "servers"]  # the fixtures, shared with the clones tests

# The markers tables as schema steps 1 to 3 made them.
OLD = MetaData()
Table(
    "tether_markers",
    OLD,
    Column("id", String(64), primary_key=True),
    Column("uri", Text, nullable=False, index=True),
    Column("note", Text, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("code", Text, nullable=False),
    Column("commit_hash_when_created", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("author", Text, nullable=False),
    Column("base_text", Text, nullable=False),
    Column("line_start", Integer, nullable=False),
    Column("col_start", Integer, nullable=False),
    Column("line_end", Integer, nullable=False),
    Column("col_end", Integer, nullable=False),
)
Table(
    "tether_marker_locations",
    OLD,
    Column("marker_id", String(64), nullable=False),
    Column("commit_hash", String(64), nullable=False),
    Column("uri", Text, nullable=False),
    Column("line_start", Integer),
    Column("col_start", Integer),
    Column("line_end", Integer),
    Column("col_end", Integer),
    Column("missing_reason", String(40)),
    Column("derived_from", String(64)),
    Column("algorithm_version", Integer, nullable=False),
    PrimaryKeyConstraint("marker_id", "commit_hash"),
)
Table(
    "tether_marker_uncommitted",
    OLD,
    Column("marker_id", String(64), primary_key=True),
    Column("uri", Text, nullable=False, index=True),
    Column("file_contents", Text, nullable=False),
    Column("line_start", Integer, nullable=False),
    Column("col_start", Integer, nullable=False),
    Column("line_end", Integer, nullable=False),
    Column("col_end", Integer, nullable=False),
)
Table("tether_schema", OLD, Column("component", String(100), primary_key=True), Column("version", Integer))

CODE = "def total(items):  # café 🚀\n    s = 0\n    for i in items:\n        s += i\n    return s"
NOTE_TEXT = "buy milk\ncall Ada\n"


def old_database(url: str, markers: list[dict[str, Any]], locations: list[dict[str, Any]]) -> None:
    """The previous schema, with its rows, as an earlier Tether left it."""
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    try:
        OLD.create_all(engine)
        with engine.begin() as conn:
            conn.exec_driver_sql(
                "CREATE INDEX ix_tether_marker_locations_commit_uri ON tether_marker_locations (commit_hash, uri)"
            )
            conn.execute(text("INSERT INTO tether_schema (component, version) VALUES ('markers', 3)"))
            conn.execute(OLD.tables["tether_markers"].insert(), markers)
            conn.execute(OLD.tables["tether_marker_locations"].insert(), locations)
    finally:
        engine.dispose()


def marker(marker_id: str, uri: str, commit: str | None, note: str, base_text: str = "") -> dict[str, Any]:
    committed = commit is not None
    return {
        "id": marker_id,
        "uri": uri,
        "note": note,
        "kind": "comment",
        "code": CODE if committed else "call Ada",
        "commit_hash_when_created": commit,
        "created_at": datetime(2026, 1, 2, 3, 4, int(marker_id[-1]), tzinfo=UTC),
        "author": "Ada",
        "base_text": base_text,
        **({"line_start": 3, "col_start": 1, "line_end": 7, "col_end": 13} if committed else {}),
        **({} if committed else {"line_start": 2, "col_start": 1, "line_end": 2, "col_end": 9}),
    }


def location(marker_id: str, uri: str, commit: str) -> dict[str, Any]:
    return {
        "marker_id": marker_id,
        "commit_hash": commit,
        "uri": uri,
        "line_start": 3,
        "col_start": 1,
        "line_end": 7,
        "col_end": 13,
        "missing_reason": None,
        "derived_from": commit,
        "algorithm_version": 2,
    }


async def test_an_older_database_is_keyed_and_keeps_every_marker(
    tmp_path: Path, alice: Path, bob: Path, database_url: str, servers: Servers
) -> None:
    head = git(alice, "rev-parse", "HEAD").strip()
    root = git(alice, "rev-list", "--max-parents=0", "HEAD").strip()
    mine, theirs = (alice / "calc.py").as_uri(), (bob / "calc.py").as_uri()
    carols = (tmp_path / "home" / "carol" / "proj" / "calc.py").as_uri()  # another machine's clone
    notes = tmp_path / "notes" / "todo.txt"  # outside git
    notes.parent.mkdir()
    notes.write_text(NOTE_TEXT, encoding="utf-8")
    old_database(
        database_url,
        [
            marker("m1", mine, head, "alice's"),
            marker("m2", theirs, head, "bob's"),
            marker("m3", carols, head, "carol's"),
            marker("m4", notes.as_uri(), None, "outside git", base_text=NOTE_TEXT),
        ],
        [location("m1", mine, head), location("m2", theirs, head), location("m3", carols, head)],
    )
    # bob's clone is on another machine while alice's server upgrades the database
    away = tmp_path / "bob-elsewhere"
    bob.rename(away)
    first = await servers.start(alice)
    assert [m["id"] for m in await listed(first, mine)] == ["m1"]
    (kept,) = await listed(first, notes.as_uri())
    assert (kept["id"], kept["status"], kept["range"]) == ("m4", "located", rng(1, 0, 1, 8))
    reasons = [m.message for m in first.log_messages if "keep their file's uri" in m.message]
    gone = "2 marker(s) keep their file's uri (no such folder on this machine): "
    assert any(r.endswith(f"{gone}{theirs}, {carols}") for r in reasons), reasons
    assert any(f"(not inside a git repository): {notes.as_uri()}" in r for r in reasons), reasons
    rows = dict(sql(database_url, "SELECT id, repo FROM tether_markers"))
    assert rows == {"m1": root, "m2": None, "m3": None, "m4": None}
    assert sql(database_url, "SELECT version FROM tether_schema WHERE component = 'markers'") == [(4,)]

    # bob's server, back on his machine, adopts his markers: alice sees them in her own file
    away.rename(bob)
    second = await servers.start(bob)
    assert [m["id"] for m in await listed(second, theirs)] == ["m1", "m2"]
    # alice's server hears of bob's write through the SQLite watch (or NOTIFY), maybe after its first answer
    both = await listed_until(first, mine, lambda found: len(found) == 2)
    assert [m["id"] for m in both] == ["m1", "m2"]
    assert await workspace(first, alice) == {"calc.py": ["m1", "m2"]}
    located = sql(database_url, "SELECT marker_id, repo, path FROM tether_marker_locations ORDER BY marker_id")
    assert located == [("m1", root, "calc.py"), ("m2", root, "calc.py"), ("m3", None, None)]
    assert [m["id"] for m in await listed(second, carols)] == ["m3"]  # by its uri, as before
