"""Marker persistence on the foundation's storage layer (SQLite by default, PostgreSQL for teams).

Three tables (:mod:`.tables`; docs/markers.md, "Storage" and "Teams"):
* ``tether_markers``: the marker itself. Its ``base_text``/``base`` are the reference of a marker outside
  git (the file's contents and the block's location when it was created or placed by hand); for a marker in
  git they hold only the location (the text comes from git).
* ``tether_marker_locations``: per (marker, commit) the committed location, computed once and shared by
  everyone on the same database, with the commit it was derived from and the algorithm version.
* ``tether_marker_uncommitted``: markers on code not yet committed, ``{fileContents, location}``. Kept in
  the *local* database even in team mode, and flushed to a stored location once the code is committed.

A file in git is stored as (``repo``, ``path``) — its repository's identity and its repo-relative path
(:mod:`.places`) — so that every clone of the repository finds it, wherever the clone is; ``uri`` keeps the
uri of the clone that last wrote the row. A file outside git (or a row this machine could not place, see
:mod:`.rekey`) has no ``repo`` and is found by its ``uri``. Records read from the stores carry the uri of
the file in *this* server's clone.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy import text as sql_text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.engine import Connection

from tether_lsp.server.files import file_exists
from tether_lsp.server.storage import Database, StorageError

from .calculator import Location
from .keys import Announce, Keys, Touched, key_columns, key_of
from .places import FileKey, Places
from .settings import MarkersSettings
from .tables import ALGORITHM_VERSION as ALGORITHM_VERSION
from .tables import MIGRATIONS as MIGRATIONS
from .tables import locations_table, markers_table, uncommitted_table

log = logging.getLogger(__name__)


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
    #: The file as every clone names it (None: outside git, or kept by uri).
    key: FileKey | None = None
    #: The uri this record was read with: while ``uri`` is still that, the stored key stands on a write (no
    #: git asked; a git failure then cannot unshare a marker); a changed ``uri`` gets its key anew.
    read_as: str | None = field(default=None, compare=False, repr=False)


def _record(row: object, uri: str | None = None) -> MarkerRecord:
    r = row._mapping  # type: ignore[attr-defined]
    uri = uri or r["uri"]
    return MarkerRecord(
        id=r["id"],
        uri=uri,
        note=r["note"],
        kind=r["kind"],
        code=r["code"],
        commit_hash_when_created=r["commit_hash_when_created"],
        # SQLite hands timestamps back without their zone: they were stored in UTC
        created_at=r["created_at"] if r["created_at"].tzinfo else r["created_at"].replace(tzinfo=UTC),
        author=r["author"],
        base_text=r["base_text"],
        base=Location(r["line_start"], r["col_start"], r["line_end"], r["col_end"]),
        key=key_of(r),
        read_as=uri,
    )


IMMUTABLE = ("id", "code", "commit_hash_when_created", "created_at", "author")


def _row(record: MarkerRecord, key: FileKey | None) -> dict[str, object]:
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
        **key_columns(key),
    }


def _key_for(keys: Keys, record: MarkerRecord) -> FileKey | None:
    """The key a record is written with: its stored one while its uri is the one it was read with."""
    if record.read_as is not None and record.uri == record.read_as:
        return record.key
    return keys.of(record.uri)


class MarkerStore:
    """One transaction per call; nothing is acknowledged before it is committed.

    With ``places``, files in git are written and found by (repository, path) and read back as uris of this
    server's clones; without it (tests, benchmarks), by uri alone.
    """

    def __init__(self, db: Database, announce: Announce | None = None, places: Places | None = None) -> None:
        self.db = db
        self.announce = announce
        self.keys = Keys(places)

    def _announce(self, conn: Connection, *touched: Touched) -> None:
        if self.announce is not None:
            self.announce(conn, sorted(set(touched), key=lambda t: (t[0], t[1] is None)))

    def _old(self, conn: Connection, marker_id: str) -> Touched | None:
        t = markers_table
        row = conn.execute(select(t.c.uri, t.c.repo, t.c.path).where(t.c.id == marker_id)).first()
        return None if row is None else (row.uri, key_of(row._mapping))

    def insert(self, record: MarkerRecord, origin: StoredLocation | None = None) -> None:
        """Store a new marker, with its location at its creation commit, in one transaction."""
        key = _key_for(self.keys, record)  # git is asked before the transaction, not while it holds a lock
        origin_key = key if origin is None or origin.uri == record.uri else self.keys.of(origin.uri)
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(markers_table.insert().values(**_row(record, key)))
            if origin is not None:
                conn.execute(locations_table.insert().values(**_location_row(origin, origin_key)))
            self._announce(conn, (record.uri, key))

    def insert_many(self, records: list[tuple[MarkerRecord, StoredLocation | None]]) -> None:
        keys = self.keys.of_many([r.uri for r, _ in records] + [o.uri for _, o in records if o is not None])
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(markers_table.insert(), [_row(r, keys[r.uri]) for r, _ in records])
            origins = [_location_row(o, keys[o.uri]) for _, o in records if o is not None]
            if origins:
                conn.execute(locations_table.insert(), origins)

    def get(self, marker_id: str) -> MarkerRecord | None:
        with self.db.transaction() as conn:
            row = conn.execute(select(markers_table).where(markers_table.c.id == marker_id)).first()
        return None if row is None else _record(row, self.keys.uri(row._mapping))

    def get_many(self, marker_ids: list[str]) -> list[MarkerRecord]:
        rows: list[Any] = []
        with self.db.transaction() as conn:
            for k in range(0, len(marker_ids), 500):
                rows += conn.execute(select(markers_table).where(markers_table.c.id.in_(marker_ids[k : k + 500])))
        return [_record(row, self.keys.uri(row._mapping)) for row in rows]

    def for_uri(self, uri: str) -> list[MarkerRecord]:
        """The markers of one file, found by its (repository, path) in git, else by its uri."""
        t = markers_table
        where = self.keys.file(t, [uri])
        with self.db.transaction() as conn:
            rows = conn.execute(select(t).where(where).order_by(t.c.created_at)).all()
        return [_record(row, uri) for row in rows]

    def under(self, uri_prefix: str) -> list[MarkerRecord]:
        """Markers of the files under a folder (a repository's root), as uris of the clone found there."""
        t = markers_table
        where, covered = self.keys.folder(t, uri_prefix)
        with self.db.transaction() as conn:
            rows = conn.execute(select(t).where(where)).all()
        return [_record(row, self.keys.in_folder(row._mapping, covered)) for row in rows]

    def uris_under(self, uri_prefix: str) -> list[str]:
        """The distinct files with markers under a folder: in the clones found there, and — for a folder
        holding repositories this server has not worked in yet — the files there that rows name and that
        exist (each file's own ``list`` then finds its markers by its repository)."""
        t = markers_table
        where, covered = self.keys.folder(t, uri_prefix, by_stored_uri=True)
        with self.db.transaction() as conn:
            rows = conn.execute(select(t.c.uri, t.c.repo, t.c.path).distinct().where(where)).all()
        found = [(row.uri, self.keys.in_folder(row._mapping, covered)) for row in rows]
        return sorted({uri for _, uri in found if uri is not None} | _existing(found))

    def replace(self, record: MarkerRecord, origin: StoredLocation | None = None) -> None:
        """Store a marker's mutable fields (what it says, where it is); its identity and origin stay.

        ``origin`` (a placement by hand in a committed file) replaces every stored location: they derived
        from the old place.
        """
        key = _key_for(self.keys, record)
        origin_key = key if origin is None or origin.uri == record.uri else self.keys.of(origin.uri)
        mutable = {k: v for k, v in _row(record, key).items() if k not in IMMUTABLE}
        with self.db.transaction(write_lock=True) as conn:
            old = self._old(conn, record.id)
            conn.execute(update(markers_table).where(markers_table.c.id == record.id).values(**mutable))
            if origin is not None:
                conn.execute(delete(locations_table).where(locations_table.c.marker_id == record.id))
                conn.execute(
                    update(markers_table)
                    .where(markers_table.c.id == record.id)
                    .values(commit_hash_when_created=origin.commit)
                )
                conn.execute(locations_table.insert().values(**_location_row(origin, origin_key)))
            self._announce(conn, (record.uri, key), *([old] if old else []))

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
            old = self._old(conn, marker_id)
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


def _stored(row: object, uri: str) -> StoredLocation:
    r = row._mapping  # type: ignore[attr-defined]
    loc = None if r["line_start"] is None else Location(r["line_start"], r["col_start"], r["line_end"], r["col_end"])
    return StoredLocation(
        r["marker_id"], r["commit_hash"], uri, loc, r["missing_reason"], r["derived_from"], r["algorithm_version"]
    )


def _location_row(s: StoredLocation, key: FileKey | None) -> dict[str, object]:
    return {
        "marker_id": s.marker_id,
        "commit_hash": s.commit,
        "uri": s.uri,
        **_loc_columns(s.location),
        "missing_reason": s.missing_reason,
        "derived_from": s.derived_from,
        "algorithm_version": s.algorithm_version,
        **key_columns(key),
    }


def _loc_columns(loc: Location | None) -> dict[str, int | None]:
    if loc is None:
        return {"line_start": None, "col_start": None, "line_end": None, "col_end": None}
    return {"line_start": loc.line_start, "col_start": loc.col_start, "line_end": loc.line_end, "col_end": loc.col_end}


class LocationStore:
    """Stored committed locations. Writes are idempotent: two servers computing the same location agree.

    A location is stored by (marker, commit) with its file as (repository, path), so a location one clone
    computed is used by every other clone at that commit. ``near`` (a uri in one of this server's clones)
    says which clone to name the files in when this server works in several clones of one repository.
    """

    def __init__(self, db: Database, places: Places | None = None, compute_wait_s: float | None = None) -> None:
        self.db = db
        self.keys = Keys(places)
        #: How long :meth:`wait_for` waits (``tether.markers.computeWaitSeconds``).
        self.compute_wait_s = COMPUTE_WAIT_S if compute_wait_s is None else compute_wait_s

    def at(self, commit: str, marker_ids: list[str], near: str | None = None) -> dict[str, StoredLocation]:
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
                found.update((s.marker_id, s) for s in (_stored(r, self.keys.uri(r._mapping, near)) for r in rows))
        return found

    def ids_in_files(self, commit: str, uris: list[str]) -> list[str]:
        """Markers whose current-algorithm location at ``commit`` is in one file (``uris``: its spellings)."""
        t = locations_table
        with self.db.transaction() as conn:
            rows = conn.execute(
                select(t.c.marker_id).where(
                    t.c.commit_hash == commit, self.keys.file(t, uris), t.c.algorithm_version == ALGORITHM_VERSION
                )
            )
            return [row[0] for row in rows]

    def files_under(self, commit: str, uri_prefix: str) -> list[str]:
        """The distinct files under a folder that hold a location stored at ``commit``."""
        t = locations_table
        where, covered = self.keys.folder(t, uri_prefix)
        with self.db.transaction() as conn:
            rows = conn.execute(select(t.c.uri, t.c.repo, t.c.path).distinct().where(t.c.commit_hash == commit, where))
            return sorted({u for row in rows if (u := self.keys.in_folder(row._mapping, covered)) is not None})

    def origin(
        self, marker_ids: list[str], commits: dict[str, str], near: str | None = None
    ) -> dict[str, StoredLocation]:
        """Each marker's location at the commit given for it (its creation commit), whatever the algorithm."""
        found: dict[str, StoredLocation] = {}
        t = locations_table
        with self.db.transaction() as conn:
            for k in range(0, len(marker_ids), 500):
                rows = conn.execute(select(t).where(t.c.marker_id.in_(marker_ids[k : k + 500]))).all()
                for row in rows:
                    if commits.get(row.marker_id) == row.commit_hash:
                        found[row.marker_id] = _stored(row, self.keys.uri(row._mapping, near))
        return found

    def put(self, items: list[StoredLocation]) -> None:
        """Store (or replace) locations, all in one transaction.

        On PostgreSQL an upsert: another server storing the same location at the same moment (teammates who
        reach a commit together) makes this write wait for its transaction and replace its row, instead of
        failing on the duplicate with the whole batch. Rows go in a fixed order, so two such writers take
        their row locks in the same order and never deadlock. A location of a marker deleted meanwhile is
        not stored (it would outlive its marker).
        """
        if not items:
            return
        keys = self.keys.of_many(s.uri for s in items)  # before the transaction: git may be asked
        t = locations_table
        unique = sorted({(s.commit, s.marker_id): s for s in items}.values(), key=lambda s: (s.commit, s.marker_id))
        with self.db.transaction(write_lock=True) as conn:
            for k in range(0, len(unique), 500):
                chunk = unique[k : k + 500]
                rows = [_location_row(s, keys[s.uri]) for s in chunk]
                if conn.dialect.name == "postgresql":
                    # only for markers that exist, and they stay until this commits: a teammate deleting one
                    # meanwhile waits for this write and deletes its locations after it (or it went first,
                    # and its marker is skipped here)
                    ids = sorted({s.marker_id for s in chunk})
                    m = markers_table
                    alive = set(
                        conn.execute(select(m.c.id).where(m.c.id.in_(ids)).with_for_update(key_share=True)).scalars()
                    )
                    rows = [r for r in rows if r["marker_id"] in alive]
                    if not rows:
                        continue
                    upsert = pg_insert(t)
                    replaced = {c.name: upsert.excluded[c.name] for c in t.columns if not c.primary_key}
                    conn.execute(upsert.on_conflict_do_update(index_elements=list(t.primary_key), set_=replaced), rows)
                    continue
                for commit in {s.commit for s in chunk}:
                    ids = [s.marker_id for s in chunk if s.commit == commit]
                    conn.execute(delete(t).where(t.c.commit_hash == commit, t.c.marker_id.in_(ids)))
                conn.execute(t.insert(), rows)

    @property
    def shared(self) -> bool:
        """Whether other servers may compute locations in this database at the same moment (PostgreSQL)."""
        return self.db.dialect == "postgresql"

    @contextmanager
    def claim(self, commit: str, files: list[str]) -> Iterator[set[str]]:
        """Of ``files`` (named alike in every clone), those this server computes at ``commit`` now.

        On PostgreSQL, the ones no other server is computing: each gets a transaction-scoped advisory lock,
        held until the block ends (after the block has stored them) or the server's connection dies. Elsewhere,
        or when the database fails, all of them.
        """
        if not self.shared:
            yield set(files)
            return
        held = done = False
        try:
            with self.db.transaction() as conn:
                take = sql_text("SELECT pg_try_advisory_xact_lock(:space, :key)")
                mine = {f for f in files if conn.execute(take, _file_lock(commit, f)).scalar()}
                held = True
                yield mine
                done = True
        except StorageError as exc:
            if done:  # the work is stored; only letting go of the locks failed (they go with the connection)
                return
            if held:
                raise
            log.info("markers: computing at %s without telling other servers (%s)", commit[:12], exc)
            yield set(files)

    def wait_for(self, commit: str, file: str) -> bool:
        """Until no other server computes ``file`` at ``commit``; False when that did not end within
        ``compute_wait_s`` (at once for 0) or the database failed (then this server computes it itself)."""
        if not self.shared:
            return True
        wait_ms = round(self.compute_wait_s * 1000)
        if wait_ms <= 0:  # lock_timeout 0 would wait for ever
            return False
        try:
            with self.db.transaction() as conn:
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{wait_ms}ms'")
                conn.execute(sql_text("SELECT pg_advisory_xact_lock_shared(:space, :key)"), _file_lock(commit, file))
            return True
        except StorageError as exc:
            log.info("markers: stopped waiting for another server computing %s at %s (%s)", file, commit[:12], exc)
            return False


#: How long a server waits for another one computing the same file at a commit before computing it itself:
#: ``tether.markers.computeWaitSeconds``, its default where no settings are given.
COMPUTE_WAIT_S = MarkersSettings().computeWaitSeconds


def _file_lock(commit: str, file: str) -> dict[str, int]:
    """The advisory lock of computing ``file`` at ``commit``: the commit's first 32 bits and the file name's
    CRC-32 (a two-key lock: never the schema's one-key lock)."""
    return {"space": int(commit[:8], 16) - 2**31, "key": zlib.crc32(file.encode()) - 2**31}


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


def _existing(found: list[tuple[str, str | None]]) -> set[str]:
    """Stored uris of rows no clone here covers, whose file exists on this machine."""
    return {stored for stored, uri in found if uri is None and file_exists(stored)}
