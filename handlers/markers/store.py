"""Marker persistence on the foundation's storage layer (SQLite by default, PostgreSQL for teams).

This slice stores each marker with its *base*: the file's text and the block's location when the marker
was created or last placed by hand (MARKERS.md: how files outside git work). Per-commit stored locations
and uncommitted-location flushing come with the git part of issue 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Integer, String, Table, Text, delete, select, update
from sqlalchemy.engine import Connection

from server.storage import Database, Migration, metadata, register_migrations

from .calculator import Location

markers_table = Table(
    "tether_markers",
    metadata,
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


def _create(conn: Connection) -> None:
    markers_table.create(conn)


register_migrations("markers", [Migration(1, "markers with their base text and location", _create)])


@dataclass(frozen=True)
class MarkerRecord:
    id: str
    uri: str
    note: str
    kind: str
    code: str
    commit_hash_when_created: str | None
    created_at: datetime
    author: str
    base_text: str
    base: Location


def _record(row: object) -> MarkerRecord:
    r = row._mapping  # type: ignore[attr-defined]
    return MarkerRecord(
        id=r["id"],
        uri=r["uri"],
        note=r["note"],
        kind=r["kind"],
        code=r["code"],
        commit_hash_when_created=r["commit_hash_when_created"],
        # SQLite hands timestamps back without their zone: they were stored in UTC
        created_at=r["created_at"] if r["created_at"].tzinfo else r["created_at"].replace(tzinfo=UTC),
        author=r["author"],
        base_text=r["base_text"],
        base=Location(r["line_start"], r["col_start"], r["line_end"], r["col_end"]),
    )


IMMUTABLE = ("id", "code", "commit_hash_when_created", "created_at", "author")


def _row(record: MarkerRecord) -> dict[str, object]:
    return {
        "id": record.id,
        "uri": record.uri,
        "note": record.note,
        "kind": record.kind,
        "code": record.code,
        "commit_hash_when_created": record.commit_hash_when_created,
        "created_at": record.created_at,
        "author": record.author,
        "base_text": record.base_text,
        "line_start": record.base.line_start,
        "col_start": record.base.col_start,
        "line_end": record.base.line_end,
        "col_end": record.base.col_end,
    }


class MarkerStore:
    """One transaction per call; nothing is acknowledged before it is committed."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def insert(self, record: MarkerRecord) -> None:
        with self.db.transaction() as conn:
            conn.execute(markers_table.insert().values(**_row(record)))

    def get(self, marker_id: str) -> MarkerRecord | None:
        with self.db.transaction() as conn:
            row = conn.execute(select(markers_table).where(markers_table.c.id == marker_id)).first()
        return None if row is None else _record(row)

    def for_uri(self, uri: str) -> list[MarkerRecord]:
        with self.db.transaction() as conn:
            rows = conn.execute(
                select(markers_table).where(markers_table.c.uri == uri).order_by(markers_table.c.created_at)
            ).all()
        return [_record(row) for row in rows]

    def under(self, uri_prefix: str) -> list[MarkerRecord]:
        """Markers whose uri starts with ``uri_prefix`` (a repository's root)."""
        with self.db.transaction() as conn:
            rows = conn.execute(
                select(markers_table).where(markers_table.c.uri.startswith(uri_prefix, autoescape=True))
            ).all()
        return [_record(row) for row in rows]

    def replace(self, record: MarkerRecord) -> None:
        """Store a marker's mutable fields (what it says, where it is); its identity and origin stay."""
        mutable = {k: v for k, v in _row(record).items() if k not in IMMUTABLE}
        with self.db.transaction() as conn:
            conn.execute(update(markers_table).where(markers_table.c.id == record.id).values(**mutable))

    def delete(self, marker_id: str) -> bool:
        with self.db.transaction() as conn:
            result = conn.execute(delete(markers_table).where(markers_table.c.id == marker_id))
        return bool(result.rowcount)
