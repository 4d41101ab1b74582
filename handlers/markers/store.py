"""Marker persistence on the foundation's storage layer (SQLite by default, PostgreSQL for teams): the markers.

Three tables (:mod:`.tables`; docs/markers.md, "Storage" and "Teams"), each with its store:
* ``tether_markers`` (:class:`MarkerStore`, here): the marker itself. Its ``base_text``/``base`` are the
  reference of a marker outside git (the file's contents and the block's location when it was created or placed
  by hand); for a marker in git they hold only the location (the text comes from git).
* ``tether_marker_locations`` (:mod:`.location_store`): per (marker, commit) the committed location, computed
  once and shared by everyone on the same database, with the commit it was derived from and the algorithm version.
* ``tether_marker_uncommitted`` (:mod:`.uncommitted_store`): markers on code not yet committed,
  ``{fileContents, location}``. Kept in the *local* database even in team mode, and flushed to a stored location
  once the code is committed.

A file in git is stored as (``repo``, ``path``) — its repository's identity and its repo-relative path
(:mod:`.places`) — so that every clone of the repository finds it, wherever the clone is; ``uri`` keeps the
uri of the clone that last wrote the row. A file outside git (or a row this machine could not place, see
:mod:`.rekey`) has no ``repo`` and is found by its ``uri``. Records read from the stores carry the uri of
the file in *this* server's clone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.engine import Connection

from tether_lsp.server.files import file_exists
from tether_lsp.server.storage import Database

from .calculator import Location
from .keys import Announce, Keys, Touched, key_columns, key_of
from .location_store import StoredLocation, location_row
from .places import FileKey, Places
from .tables import ALGORITHM_VERSION as ALGORITHM_VERSION
from .tables import MIGRATIONS as MIGRATIONS
from .tables import locations_table, markers_table
from .writes import markers_written


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
                conn.execute(locations_table.insert().values(**location_row(origin, origin_key)))
            self._announce(conn, (record.uri, key))
        markers_written()

    def insert_many(self, records: list[tuple[MarkerRecord, StoredLocation | None]]) -> None:
        keys = self.keys.of_many([r.uri for r, _ in records] + [o.uri for _, o in records if o is not None])
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(markers_table.insert(), [_row(r, keys[r.uri]) for r, _ in records])
            origins = [location_row(o, keys[o.uri]) for _, o in records if o is not None]
            if origins:
                conn.execute(locations_table.insert(), origins)
        markers_written()

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
        # a HEAD sync reads every marker of the repository: rows unpacked by position, each file's uri and key
        # made once (``row._mapping`` and keyword arguments per row were most of the read's CPU)
        named: dict[tuple[Any, Any, Any], tuple[str, FileKey | None]] = {}
        out = []
        for row in rows:
            marker_id, stored_uri, note, kind, code, commit, created, author, base_text, *at, repo, path = row
            file = (stored_uri, repo, path)
            place = named.get(file)
            if place is None:
                here = self.keys.in_folder({"uri": stored_uri, "repo": repo, "path": path}, covered)
                key = FileKey(repo, path) if repo is not None and path is not None else None
                place = named[file] = (here or stored_uri, key)
            uri, key = place
            when = created if created.tzinfo else created.replace(tzinfo=UTC)  # SQLite: stored in UTC, zone-less
            out.append(
                MarkerRecord(marker_id, uri, note, kind, code, commit, when, author, base_text, Location(*at), key, uri)
            )
        return out

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
                conn.execute(locations_table.insert().values(**location_row(origin, origin_key)))
            self._announce(conn, (record.uri, key), *([old] if old else []))
        markers_written()

    def set_commit(self, marker_id: str, commit: str | None) -> None:
        """A marker on uncommitted code whose code got committed (flush), or placed on uncommitted code."""
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(
                update(markers_table).where(markers_table.c.id == marker_id).values(commit_hash_when_created=commit)
            )
            if commit is None:
                conn.execute(delete(locations_table).where(locations_table.c.marker_id == marker_id))
        markers_written()

    def delete(self, marker_id: str) -> bool:
        with self.db.transaction(write_lock=True) as conn:
            old = self._old(conn, marker_id)
            result = conn.execute(delete(markers_table).where(markers_table.c.id == marker_id))
            conn.execute(delete(locations_table).where(locations_table.c.marker_id == marker_id))
            if old:
                self._announce(conn, old)
        markers_written()
        return bool(result.rowcount)


def _existing(found: list[tuple[str, str | None]]) -> set[str]:
    """Stored uris of rows no clone here covers, whose file exists on this machine."""
    return {stored for stored, uri in found if uri is None and file_exists(stored)}
