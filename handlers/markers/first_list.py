"""The first ``tether/markers/list`` of a session, answered from what is cheap: the stored locations.

A session's first list used to wait for the database layer (SQLAlchemy and the stores' modules, the schema
check): a second or more after the editor started the server, while the worker processes and the other
features' start-up work compete for the same cores. Yet the usual first file needs none of it: a file whose
text is its text at HEAD, whose markers all have a location stored at that HEAD, is answered by those locations.

So while the database is not open yet, a list is first tried here (else :func:`~.lsp.located_now`): the SQLite
file is read with the standard library's ``sqlite3`` (reads only: nothing created or migrated), and anything out
of the ordinary — a database URL, a schema or algorithm version other than the one this reads, an uncommitted
marker, a marker with no location at HEAD or with one in another file, a location at HEAD of another marker in
this file, a text that is not HEAD's — answers None: the full path answers instead. After a quick answer the full
path runs in the background; when what it finds differs (another process changed a note meanwhile, say), the
editor gets ``tether/markers/didChange`` and lists again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tether_lsp.server.database_choice import database_url
from tether_lsp.server.datadir import data_folder
from tether_lsp.server.files import file_uri_spellings
from tether_lsp.server.settings import DatabaseSettings

if TYPE_CHECKING:
    from . import service
    from .calculator import Location
    from .state import MarkersState

log = logging.getLogger(__name__)

#: The markers schema version and the calculator version this reader knows (tests check them against
#: ``tables.MIGRATIONS`` and ``tables.ALGORITHM_VERSION``): any other declines.
SCHEMA_VERSION = 4
ALGORITHM_VERSION = 2
#: How long the read waits for a writer's lock on the SQLite file before declining.
BUSY_S = 0.2


@dataclass(frozen=True)
class QuickRecord:
    """What a list shows of a marker's row."""

    id: str
    uri: str
    note: str
    kind: str
    code: str
    commit_hash_when_created: str
    author: str


@dataclass(frozen=True)
class QuickLocated:
    """A marker at its location stored at HEAD (shaped as :class:`service.Located` for ``to_marker``)."""

    record: QuickRecord
    location: Location
    created_at: str
    content_changed: bool
    missing_reason: None = None


Listed = tuple[str | None, Sequence["service.Located | QuickLocated"]]


def shown(located: Sequence[service.Located | QuickLocated]) -> list[tuple[Any, ...]]:
    """What the editor draws of a list, to compare the quick answer with the full one."""
    return [
        (i.record.id, i.location, i.content_changed, i.missing_reason, i.record.note, i.record.kind, i.record.author)
        for i in located
    ]


def blob_id(text: str) -> str:
    """git's object id of ``text`` as a blob (UTF-8)."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def read_stored(state: MarkersState, uri: str, open_text: str | None) -> tuple[str, list[QuickLocated]] | None:
    """Worker: ``uri``'s markers at their locations stored at HEAD, when that is the answer; else None."""
    if database_url(state.server.settings.section(DatabaseSettings).url) is not None:
        return None
    db_file = data_folder(state.server.workspace_root) / "tether.db"
    repo = state.repo_of(uri)
    if repo is None or not db_file.is_file():
        return None
    head = state.git.head(repo.root)
    key = state.clones.places.key(uri) if head is not None else None
    if head is None or key is None:
        return None
    try:
        text = state.current_text(uri, open_text)
    except Exception:  # the full path answers the error
        return None
    at_head = state.git.run(repo.root, "rev-parse", "--verify", "-q", f"{head}:{repo.path}")
    if text is None or at_head is None or at_head.strip() != blob_id(text):
        return None
    import sqlite3  # here: start-up does not need it

    try:
        rows = _read(db_file.as_uri(), uri, head, key.repo, key.path)
    except sqlite3.Error as exc:
        log.debug("markers: the quick first list declined (%s)", exc)
        return None
    located = _located(rows, uri, text) if rows is not None else None
    return None if located is None else (text, located)


def _read(db_uri: str, uri: str, head: str, repo: str, path: str) -> tuple[list[Any], dict[str, Any]] | None:
    """The file's marker rows and their rows at ``head`` (by id), or None when they are not the simple case."""
    import sqlite3

    conn = sqlite3.connect(f"{db_uri}?mode=rw", uri=True, timeout=BUSY_S)
    try:
        conn.row_factory = sqlite3.Row
        version = conn.execute("SELECT version FROM tether_schema WHERE component = 'markers'").fetchone()
        if version is None or version[0] != SCHEMA_VERSION:
            return None
        spellings = file_uri_spellings(uri)
        marks = ",".join("?" * len(spellings))
        in_file = f"((repo = ? AND path = ?) OR (repo IS NULL AND uri IN ({marks})))"
        markers = conn.execute(
            "SELECT id, note, kind, code, commit_hash_when_created, created_at, author FROM tether_markers "
            f"WHERE {in_file} ORDER BY created_at",
            (repo, path, *spellings),
        ).fetchall()
        ids = [r["id"] for r in markers]
        of_ids = f"marker_id IN ({','.join('?' * len(ids))})"
        rows = conn.execute(
            "SELECT marker_id, repo, path, uri, line_start, col_start, line_end, col_end FROM tether_marker_locations "
            f"WHERE commit_hash = ? AND algorithm_version = ? AND ({in_file} OR {of_ids})",
            (head, ALGORITHM_VERSION, repo, path, *spellings, *ids),
        ).fetchall()
    finally:
        conn.close()
    stored = {r["marker_id"]: r for r in rows}
    if set(stored) != set(ids) or any(not r["commit_hash_when_created"] for r in markers):
        return None  # uncommitted, not stored at HEAD yet, or arrived from another file
    for r in rows:
        here = (r["repo"], r["path"]) == (repo, path) or (r["repo"] is None and r["uri"] in spellings)
        if not here or r["line_start"] is None:
            return None  # moved to another file, or missing at HEAD
    return markers, stored


def _located(rows: tuple[list[Any], dict[str, Any]], uri: str, text: str) -> list[QuickLocated] | None:
    from .calculator import Location, block_of_lines, split_lines  # here: start-up does not need them

    markers, stored = rows
    lines = split_lines(text)
    out = []
    for m in markers:
        s = stored[m["id"]]
        loc = Location(s["line_start"], s["col_start"], s["line_end"], s["col_end"])
        if loc.line_end > len(lines):
            return None
        created = datetime.fromisoformat(m["created_at"])
        created = created if created.tzinfo else created.replace(tzinfo=UTC)
        record = QuickRecord(m["id"], uri, m["note"], m["kind"], m["code"], m["commit_hash_when_created"], m["author"])
        changed = block_of_lines(lines, loc) != record.code
        out.append(QuickLocated(record, loc, created.isoformat().replace("+00:00", "Z"), changed))
    return sorted(out, key=lambda i: (i.location.line_start, i.location.col_start))


class FirstList:
    """Loop: the quick answer while the database is not open yet, then the full one in the background."""

    def __init__(
        self,
        state: MarkersState,
        full: Callable[[str], Awaitable[Listed]],
        open_text: Callable[[str], str | None],
        database_open: Callable[[], bool],
    ) -> None:
        self.state = state
        self.full = full  # the full path of a list
        self.open_text = open_text
        self.database_open = database_open  # once open, the full path no longer waits for it
        self._following: set[str] = set()
        self._written: set[str] = set()  # followed uris this server wrote markers of while their full pass ran

    async def answer(self, uri: str) -> Listed | None:
        """The quick answer for ``uri``, or None (then the caller takes the full path)."""
        if self.database_open() or self.state.buffer.get(uri) is not None:
            return None
        quick = await asyncio.to_thread(read_stored, self.state, uri, self.open_text(uri))
        if quick is None:
            log.debug("markers: no quick first list for %s", uri)
            return None
        log.debug("markers: the first list of %s answered from the locations stored at HEAD", uri)
        if uri not in self._following:
            self._following.add(uri)
            self.state.server.spawn(self._follow(uri, quick[1]), f"markers: the full first list of {uri}")
        return quick

    async def _follow(self, uri: str, quick: list[QuickLocated]) -> None:
        """The full answer after a quick one: the editor lists again when they differ."""
        try:
            _text, located = await self.full(uri)
        finally:
            self._following.discard(uri)
        written = uri in self._written  # the full pass may have read before that write: its cache may be stale
        self._written.discard(uri)
        if written or shown(located) != shown(quick):
            log.info("markers: the first list of %s changed once the stores were read", uri)
            self.state.forget(uri)
            self.state.on_change([uri])

    def written(self, uris: list[str]) -> None:
        """Loop: this server wrote the markers of ``uris`` (a marker made while a first list is followed)."""
        self._written.update(u for u in uris if u in self._following)
