"""Stored committed locations: each marker's location per commit, shared by every clone and every server.

Kept apart from the markers' rows (:mod:`.store`) because this is the part servers share work through: a
location one server computed at a commit is read by all the others, and on PostgreSQL a server claims the files
it computes (:meth:`LocationStore.claim`) so that teammates reaching the same commit wait for it
(:meth:`LocationStore.wait_for`) instead of computing them too.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy import text as sql_text
from sqlalchemy.engine import Connection

from tether_lsp.server.storage import Database, StorageError

from .calculator import Location
from .keys import Keys, key_columns
from .places import FileKey, Places
from .settings import MarkersSettings
from .tables import ALGORITHM_VERSION, locations_table, markers_table

log = logging.getLogger(__name__)

#: How long a server waits for another one computing the same file at a commit before computing it itself:
#: ``tether.markers.computeWaitSeconds``, its default where no settings are given.
COMPUTE_WAIT_S = MarkersSettings().computeWaitSeconds


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


def _stored(rows: Iterable[Any], uri: Callable[[Any], str]) -> Iterator[StoredLocation]:
    """Rows of ``_SELECT`` unpacked by position (not by column name), each file named by ``uri`` (a
    :meth:`.Keys.namer`) once per call."""
    named: dict[tuple[str, str | None, str | None], str] = {}
    for (
        marker_id,
        commit,
        stored_uri,
        line_start,
        col_start,
        line_end,
        col_end,
        reason,
        derived,
        version,
        repo,
        path,
    ) in rows:
        file = (stored_uri, repo, path)
        place = named.get(file)
        if place is None:
            place = named[file] = uri({"uri": stored_uri, "repo": repo, "path": path})
        loc = None if line_start is None else Location(line_start, col_start, line_end, col_end)
        yield StoredLocation(marker_id, commit, place, loc, reason, derived, version)


def location_row(s: StoredLocation, key: FileKey | None) -> dict[str, object]:
    """A row of the locations table (the markers' store writes one too: a marker's place at its creation)."""
    return {
        "marker_id": s.marker_id,
        "commit_hash": s.commit,
        "uri": s.uri,
        **location_columns(s.location),
        "missing_reason": s.missing_reason,
        "derived_from": s.derived_from,
        "algorithm_version": s.algorithm_version,
        **key_columns(key),
    }


#: The locations table's columns, in the order of :func:`location_values`.
_COLUMNS = (
    "marker_id",
    "commit_hash",
    "uri",
    "line_start",
    "col_start",
    "line_end",
    "col_end",
    "missing_reason",
    "derived_from",
    "algorithm_version",
    "repo",
    "path",
)
_PRIMARY = ("marker_id", "commit_hash")


def location_values(s: StoredLocation, key: FileKey | None) -> tuple[object, ...]:
    """A row of the locations table as a plain tuple, its columns in the order of ``_COLUMNS``."""
    loc = s.location
    at = (None, None, None, None) if loc is None else (loc.line_start, loc.col_start, loc.line_end, loc.col_end)
    repo, path = (key.repo, key.path) if key is not None else (None, None)
    return (s.marker_id, s.commit, s.uri, *at, s.missing_reason, s.derived_from, s.algorithm_version, repo, path)


_REPLACED = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in _PRIMARY)
_CONFLICT = f"ON CONFLICT ({', '.join(_PRIMARY)}) DO UPDATE SET {_REPLACED}"
#: The columns' SQL types, for PostgreSQL's arrays of them.
_ARRAY_TYPES = ("text", "text", "text", "int", "int", "int", "int", "text", "text", "int", "text", "text")


#: SQLite: the statement storing a row of :func:`location_values`, replacing the row of the same marker and commit
#: (the driver's executemany sends it once per row, in C).
_UPSERT_ROWS = (
    f"INSERT INTO {locations_table.name} ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) {_CONFLICT}"
)
#: A read of whole rows, their columns in the order of ``_COLUMNS`` (the conditions' values go to the driver as
#: they are: SQLAlchemy's rendering of 500 values of an ``IN`` was half of a 10,000-marker read's CPU).
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM {locations_table.name}"


def _mark(conn: Connection) -> str:
    """The driver's placeholder for a value."""
    return "?" if conn.dialect.paramstyle == "qmark" else "%s"


def _marks(mark: str, values: Sequence[object]) -> str:
    return ", ".join([mark] * len(values))


#: PostgreSQL: every row at once, a column of them per parameter (``unnest`` keeps the rows' order, which is
#: the order their row locks are taken in).
_UPSERT_ARRAYS = (
    f"INSERT INTO {locations_table.name} ({', '.join(_COLUMNS)}) "
    f"SELECT * FROM unnest({', '.join(f'%s::{t}[]' for t in _ARRAY_TYPES)}) {_CONFLICT}"
)


def location_columns(loc: Location | None) -> dict[str, int | None]:
    """A location's four columns, as both location tables have them (all None: missing)."""
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
        name = self.keys.namer(near)  # each file named once per read
        with self.db.transaction() as conn:
            mark = _mark(conn)
            for k in range(0, len(marker_ids), 500):
                chunk = marker_ids[k : k + 500]
                where = f"commit_hash = {mark} AND algorithm_version = {mark} AND marker_id IN ({_marks(mark, chunk)})"
                rows = conn.exec_driver_sql(f"{_SELECT} WHERE {where}", (commit, ALGORITHM_VERSION, *chunk))
                found.update((s.marker_id, s) for s in _stored(rows, name))
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
        name = self.keys.namer(near)  # each file named once per read
        with self.db.transaction() as conn:
            mark = _mark(conn)
            for k in range(0, len(marker_ids), 500):
                chunk = marker_ids[k : k + 500]
                at = sorted({c for i in chunk if (c := commits.get(i)) is not None})  # not the later commits' rows
                if not at:
                    continue
                where = f"marker_id IN ({_marks(mark, chunk)}) AND commit_hash IN ({_marks(mark, at)})"
                rows = conn.exec_driver_sql(f"{_SELECT} WHERE {where}", (*chunk, *at))
                mine = [row for row in rows if commits.get(row[0]) == row[1]]  # (marker_id, commit_hash, ...)
                found.update((s.marker_id, s) for s in _stored(mine, name))
        return found

    def put(self, items: list[StoredLocation], keys: Mapping[str, FileKey | None] | None = None) -> None:
        """Store (or replace) locations, all in one transaction and one statement of plain values given to the
        driver (SQLite: an executemany of tuples; PostgreSQL: arrays of columns). A HEAD sync stores 10,000 rows:
        through SQLAlchemy's insert, its per-row dictionaries and parameter processing cost the serving
        interpreter about twice the driver's own work.

        On PostgreSQL another server storing the same location at the same moment (teammates who reach a commit
        together) makes this write wait for its transaction and replace its row, instead of failing on the
        duplicate with the whole batch. Rows go in a fixed order, so two such writers take their row locks in
        the same order and never deadlock. A location of a marker deleted meanwhile is not stored (it would
        outlive its marker). ``keys``: every file's key, when the caller knows them (a sync storing its locations
        a batch at a time places each file once).
        """
        if not items:
            return
        if keys is None:
            keys = self.keys.of_many(s.uri for s in items)  # before the transaction: git may be asked
        unique = sorted({(s.commit, s.marker_id): s for s in items}.values(), key=lambda s: (s.commit, s.marker_id))
        with self.db.transaction(write_lock=True) as conn:
            if conn.dialect.name == "postgresql":
                # only for markers that exist, and they stay until this commits: a teammate deleting one
                # meanwhile waits for this write and deletes its locations after it (or it went first, and
                # its marker is skipped here)
                m, alive = markers_table, set[str]()
                ids = sorted({s.marker_id for s in unique})
                for k in range(0, len(ids), 500):
                    chosen = select(m.c.id).where(m.c.id.in_(ids[k : k + 500])).with_for_update(key_share=True)
                    alive.update(conn.execute(chosen).scalars())
                unique = [s for s in unique if s.marker_id in alive]
                if not unique:
                    return
                # one statement for all the rows, as arrays of columns: an executemany would parse and plan the
                # upsert once per row on the server (three times the wall time for 10,000 rows)
                columns = [list(c) for c in zip(*(location_values(s, keys[s.uri]) for s in unique), strict=True)]
                conn.exec_driver_sql(_UPSERT_ARRAYS, tuple(columns))
                return
            conn.exec_driver_sql(_UPSERT_ROWS, [location_values(s, keys[s.uri]) for s in unique])

    def put_new(self, items: list[StoredLocation], keys: Mapping[str, FileKey | None] | None = None) -> int:
        """Store the locations not stored yet, of markers that still exist and still derive from the commit each
        location was computed from (its ``derived_from``); how many were stored. For what a request computed and
        answered before storing it (:class:`.late_store.LatePuts`): a sync may have stored the same rows since
        (they stay; the values are the same), and a marker deleted or placed again by hand since is left alone
        (a location derived from its old place would outlive it)."""
        if not items:
            return 0
        if keys is None:
            keys = self.keys.of_many(s.uri for s in items)
        ids = sorted({s.marker_id for s in items})
        with self.db.transaction(write_lock=True) as conn:
            mark, origins, there = _mark(conn), dict[str, str | None](), set[tuple[str, str]]()
            lock = " FOR KEY SHARE" if conn.dialect.name == "postgresql" else ""
            for k in range(0, len(ids), 500):
                chunk = ids[k : k + 500]
                marks = _marks(mark, chunk)
                rows = conn.exec_driver_sql(
                    f"SELECT id, commit_hash_when_created FROM {markers_table.name} WHERE id IN ({marks}){lock}",
                    tuple(chunk),
                )
                origins.update((marker_id, commit) for marker_id, commit in rows)
                rows = conn.exec_driver_sql(
                    f"SELECT marker_id, commit_hash FROM {locations_table.name} WHERE marker_id IN ({marks})",
                    tuple(chunk),
                )
                there.update((marker_id, commit) for marker_id, commit in rows)
            new = {
                (s.commit, s.marker_id): s
                for s in items
                if s.marker_id in origins
                and (s.marker_id, s.commit) not in there
                and (s.derived_from is None or origins[s.marker_id] == s.derived_from)
            }
            unique = [new[k] for k in sorted(new)]
            if not unique:
                return 0
            if conn.dialect.name == "postgresql":
                columns = [list(c) for c in zip(*(location_values(s, keys[s.uri]) for s in unique), strict=True)]
                conn.exec_driver_sql(_UPSERT_ARRAYS, tuple(columns))
            else:
                conn.exec_driver_sql(_UPSERT_ROWS, [location_values(s, keys[s.uri]) for s in unique])
            return len(unique)

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


def _file_lock(commit: str, file: str) -> dict[str, int]:
    """The advisory lock of computing ``file`` at ``commit``: the commit's first 32 bits and the file name's
    CRC-32 (a two-key lock: never the schema's one-key lock)."""
    return {"space": int(commit[:8], 16) - 2**31, "key": zlib.crc32(file.encode()) - 2**31}
