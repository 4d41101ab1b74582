"""Marker persistence on the foundation's storage layer (SQLite by default, PostgreSQL for teams).

Three tables (docs/markers.md, "Storage and teams"):
* ``tether_markers``: the marker itself. Its ``base_text``/``base`` are the reference of a marker outside
  git (the file's contents and the block's location when it was created or placed by hand); for a marker in
  git they hold only the location (the text comes from git).
* ``tether_marker_locations``: per (marker, commit) the committed location, computed once and shared by
  everyone on the same database, with the commit it was derived from and the algorithm version.
* ``tether_marker_uncommitted``: markers on code not yet committed, ``{fileContents, location}``. Kept in
  the *local* database even in team mode, and flushed to a stored location once the code is committed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Integer, PrimaryKeyConstraint, String, Table, Text, delete, select, update
from sqlalchemy.engine import Connection

from tether_lsp.server.storage import Database, Migration, metadata

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


#: Bump when the calculator changes its results: stored locations of older versions are recomputed.
ALGORITHM_VERSION = 2  # 2: anchored line diff, markers on syntax units snapped to them

locations_table = Table(
    "tether_marker_locations",
    metadata,
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

uncommitted_table = Table(
    "tether_marker_uncommitted",
    metadata,
    Column("marker_id", String(64), primary_key=True),
    Column("uri", Text, nullable=False, index=True),
    Column("file_contents", Text, nullable=False),
    Column("line_start", Integer, nullable=False),
    Column("col_start", Integer, nullable=False),
    Column("line_end", Integer, nullable=False),
    Column("col_end", Integer, nullable=False),
)


def _create_locations(conn: Connection) -> None:
    locations_table.create(conn)
    uncommitted_table.create(conn)


def _index_locations_by_file(conn: Connection) -> None:
    """Which markers are in a file at a commit (a file that a commit renamed gets its markers this way)."""
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_tether_marker_locations_commit_uri ON tether_marker_locations (commit_hash, uri)"
    )


#: The markers component's schema steps (the server runs them; see ``register_storage``).
MIGRATIONS = [
    Migration(1, "markers with their base text and location", _create),
    Migration(2, "stored locations per commit; local uncommitted locations", _create_locations),
    Migration(3, "stored locations found by commit and file", _index_locations_by_file),
]


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


#: Called inside a writing transaction with the uris it touched (PostgreSQL NOTIFY for the other servers).
Announce = Callable[[Connection, list[str]], None]


class MarkerStore:
    """One transaction per call; nothing is acknowledged before it is committed."""

    def __init__(self, db: Database, announce: Announce | None = None) -> None:
        self.db = db
        self.announce = announce

    def _announce(self, conn: Connection, *uris: str) -> None:
        if self.announce is not None:
            self.announce(conn, sorted(set(uris)))

    def insert(self, record: MarkerRecord, origin: StoredLocation | None = None) -> None:
        """Store a new marker, with its location at its creation commit, in one transaction."""
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(markers_table.insert().values(**_row(record)))
            if origin is not None:
                conn.execute(locations_table.insert().values(**_location_row(origin)))
            self._announce(conn, record.uri)

    def insert_many(self, records: list[tuple[MarkerRecord, StoredLocation | None]]) -> None:
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(markers_table.insert(), [_row(r) for r, _ in records])
            origins = [_location_row(o) for _, o in records if o is not None]
            if origins:
                conn.execute(locations_table.insert(), origins)

    def get(self, marker_id: str) -> MarkerRecord | None:
        with self.db.transaction() as conn:
            row = conn.execute(select(markers_table).where(markers_table.c.id == marker_id)).first()
        return None if row is None else _record(row)

    def get_many(self, marker_ids: list[str]) -> list[MarkerRecord]:
        found: list[MarkerRecord] = []
        with self.db.transaction() as conn:
            for k in range(0, len(marker_ids), 500):
                rows = conn.execute(select(markers_table).where(markers_table.c.id.in_(marker_ids[k : k + 500])))
                found += map(_record, rows)
        return found

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

    def uris_under(self, uri_prefix: str) -> list[str]:
        """The distinct files with markers under a repository's root."""
        t = markers_table
        with self.db.transaction() as conn:
            rows = conn.execute(select(t.c.uri).distinct().where(t.c.uri.startswith(uri_prefix, autoescape=True)))
            return [row[0] for row in rows]

    def replace(self, record: MarkerRecord, origin: StoredLocation | None = None) -> None:
        """Store a marker's mutable fields (what it says, where it is); its identity and origin stay.

        ``origin`` (a placement by hand in a committed file) replaces every stored location: they derived
        from the old place.
        """
        mutable = {k: v for k, v in _row(record).items() if k not in IMMUTABLE}
        with self.db.transaction(write_lock=True) as conn:
            old = conn.execute(select(markers_table.c.uri).where(markers_table.c.id == record.id)).scalar()
            conn.execute(update(markers_table).where(markers_table.c.id == record.id).values(**mutable))
            if origin is not None:
                conn.execute(delete(locations_table).where(locations_table.c.marker_id == record.id))
                conn.execute(
                    update(markers_table)
                    .where(markers_table.c.id == record.id)
                    .values(commit_hash_when_created=origin.commit)
                )
                conn.execute(locations_table.insert().values(**_location_row(origin)))
            self._announce(conn, record.uri, *([old] if old else []))

    def set_commit(self, marker_id: str, commit: str | None) -> None:
        """A marker on uncommitted code whose code got committed (flush), or placed on uncommitted code."""
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(
                update(markers_table).where(markers_table.c.id == marker_id).values(commit_hash_when_created=commit)
            )
            if commit is None:
                conn.execute(delete(locations_table).where(locations_table.c.marker_id == marker_id))

    def delete(self, marker_id: str) -> bool:
        with self.db.transaction(write_lock=True) as conn:
            old = conn.execute(select(markers_table.c.uri).where(markers_table.c.id == marker_id)).scalar()
            result = conn.execute(delete(markers_table).where(markers_table.c.id == marker_id))
            conn.execute(delete(locations_table).where(locations_table.c.marker_id == marker_id))
            if old:
                self._announce(conn, old)
        return bool(result.rowcount)


@dataclass(frozen=True)
class StoredLocation:
    """A marker's committed location at ``commit`` (``location`` None: missing there, ``missing_reason`` why)."""

    marker_id: str
    commit: str
    uri: str
    location: Location | None
    missing_reason: str | None = None
    derived_from: str | None = None
    algorithm_version: int = ALGORITHM_VERSION


def _stored(row: object) -> StoredLocation:
    r = row._mapping  # type: ignore[attr-defined]
    loc = None if r["line_start"] is None else Location(r["line_start"], r["col_start"], r["line_end"], r["col_end"])
    return StoredLocation(
        r["marker_id"], r["commit_hash"], r["uri"], loc, r["missing_reason"], r["derived_from"], r["algorithm_version"]
    )


def _location_row(s: StoredLocation) -> dict[str, object]:
    return {
        "marker_id": s.marker_id,
        "commit_hash": s.commit,
        "uri": s.uri,
        **_loc_columns(s.location),
        "missing_reason": s.missing_reason,
        "derived_from": s.derived_from,
        "algorithm_version": s.algorithm_version,
    }


def _loc_columns(loc: Location | None) -> dict[str, int | None]:
    if loc is None:
        return {"line_start": None, "col_start": None, "line_end": None, "col_end": None}
    return {"line_start": loc.line_start, "col_start": loc.col_start, "line_end": loc.line_end, "col_end": loc.col_end}


class LocationStore:
    """Stored committed locations. Writes are idempotent: two servers computing the same location agree."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def at(self, commit: str, marker_ids: list[str]) -> dict[str, StoredLocation]:
        """The current-algorithm locations stored at ``commit`` for these markers."""
        found: dict[str, StoredLocation] = {}
        t = locations_table
        with self.db.transaction() as conn:
            for k in range(0, len(marker_ids), 500):
                rows = conn.execute(
                    select(t).where(
                        t.c.commit_hash == commit,
                        t.c.marker_id.in_(marker_ids[k : k + 500]),
                        t.c.algorithm_version == ALGORITHM_VERSION,
                    )
                ).all()
                found.update((s.marker_id, s) for s in map(_stored, rows))
        return found

    def ids_in_files(self, commit: str, uris: list[str]) -> list[str]:
        """Markers whose current-algorithm location at ``commit`` is in one of these files."""
        t = locations_table
        with self.db.transaction() as conn:
            rows = conn.execute(
                select(t.c.marker_id).where(
                    t.c.commit_hash == commit, t.c.uri.in_(uris), t.c.algorithm_version == ALGORITHM_VERSION
                )
            )
            return [row[0] for row in rows]

    def files_under(self, commit: str, uri_prefix: str) -> list[str]:
        """The distinct files under a folder that hold a location stored at ``commit``."""
        t = locations_table
        with self.db.transaction() as conn:
            rows = conn.execute(
                select(t.c.uri)
                .distinct()
                .where(t.c.commit_hash == commit, t.c.uri.startswith(uri_prefix, autoescape=True))
            )
            return [row[0] for row in rows]

    def origin(self, marker_ids: list[str], commits: dict[str, str]) -> dict[str, StoredLocation]:
        """Each marker's location at the commit given for it (its creation commit), whatever the algorithm."""
        found: dict[str, StoredLocation] = {}
        t = locations_table
        with self.db.transaction() as conn:
            for k in range(0, len(marker_ids), 500):
                rows = conn.execute(select(t).where(t.c.marker_id.in_(marker_ids[k : k + 500]))).all()
                for stored in map(_stored, rows):
                    if commits.get(stored.marker_id) == stored.commit:
                        found[stored.marker_id] = stored
        return found

    def put(self, items: list[StoredLocation]) -> None:
        """Store (or replace) locations, all in one transaction."""
        if not items:
            return
        t = locations_table
        with self.db.transaction(write_lock=True) as conn:
            for k in range(0, len(items), 500):
                chunk = items[k : k + 500]
                for commit in {s.commit for s in chunk}:
                    ids = [s.marker_id for s in chunk if s.commit == commit]
                    conn.execute(delete(t).where(t.c.commit_hash == commit, t.c.marker_id.in_(ids)))
                conn.execute(t.insert(), [_location_row(s) for s in chunk])


@dataclass(frozen=True)
class Uncommitted:
    marker_id: str
    uri: str
    file_contents: str
    location: Location


class UncommittedStore:
    """Local-only locations of markers on code that is not committed yet."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def put(self, item: Uncommitted) -> None:
        t = uncommitted_table
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(delete(t).where(t.c.marker_id == item.marker_id))
            conn.execute(
                t.insert().values(
                    marker_id=item.marker_id,
                    uri=item.uri,
                    file_contents=item.file_contents,
                    **_loc_columns(item.location),
                )
            )

    def get(self, marker_ids: list[str]) -> dict[str, Uncommitted]:
        t = uncommitted_table
        found: dict[str, Uncommitted] = {}
        with self.db.transaction() as conn:
            for k in range(0, len(marker_ids), 500):
                rows = conn.execute(select(t).where(t.c.marker_id.in_(marker_ids[k : k + 500]))).all()
                for row in rows:
                    r = row._mapping
                    loc = Location(r["line_start"], r["col_start"], r["line_end"], r["col_end"])
                    found[r["marker_id"]] = Uncommitted(r["marker_id"], r["uri"], r["file_contents"], loc)
        return found

    def under(self, uri_prefix: str) -> list[Uncommitted]:
        t = uncommitted_table
        with self.db.transaction() as conn:
            rows = conn.execute(select(t.c.marker_id).where(t.c.uri.startswith(uri_prefix, autoescape=True))).all()
        return list(self.get([row[0] for row in rows]).values())

    def remove(self, marker_id: str) -> None:
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(delete(uncommitted_table).where(uncommitted_table.c.marker_id == marker_id))
