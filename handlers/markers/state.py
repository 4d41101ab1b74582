"""The markers feature's per-server state: stores, HEAD tracking per repository, the buffer cache, and the
PostgreSQL ``LISTEN`` that brings other servers' changes in.

Kept apart from ``lsp.py`` so the protocol edge stays thin: everything here speaks uris, texts and
locations, and reports changed files through ``on_change`` (which ``lsp.py`` turns into
``tether/markers/didChange``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from sqlalchemy import text as sql
from sqlalchemy.engine import Connection

from tether_lsp.server.files import uri_to_path
from tether_lsp.server.progress import Progress
from tether_lsp.server.storage import Database

from . import git, service, tracking
from .store import LocationStore, MarkerRecord, MarkerStore, UncommittedStore

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

log = logging.getLogger(__name__)

CHANNEL = "tether_markers"
#: Above this many locations to compute, a HEAD change reports ``$/progress``.
PROGRESS_FROM = 200


class MarkersState:
    @dataclass
    class Cached:
        version: int
        head: str | None
        located: list[service.Located]

    def __init__(self, server: TetherServer) -> None:
        self.server = server
        self.instance = uuid.uuid4().hex  # tells our own NOTIFYs from other servers'
        self.heads: dict[str, str | None] = {}  # repository root -> the HEAD we last synced
        self.buffer: dict[str, MarkersState.Cached] = {}
        self.on_change: Callable[[list[str]], None] = lambda uris: None
        self._listener: threading.Thread | None = None
        self._stop = threading.Event()
        self._local: tuple[Database, UncommittedStore] | None = None
        self._committed: dict[tuple[str, str, str], str | None] = {}

    # --- stores ---------------------------------------------------------------------------------------

    def markers(self) -> MarkerStore:
        db = self.server.database()
        return MarkerStore(db, self._announce if db.dialect == "postgresql" else None)

    def locations(self) -> LocationStore:
        return LocationStore(self.server.database())

    def local(self) -> UncommittedStore:
        """Uncommitted locations: the shared database on SQLite, a local SQLite file in team mode."""
        db = self.server.database()
        if db.dialect == "sqlite":
            return UncommittedStore(db)
        if self._local is None or self._local[0] is not self.server.local_database():
            local_db = self.server.local_database()
            self._local = (local_db, UncommittedStore(local_db))
        return self._local[1]

    def _announce(self, conn: Connection, uris: list[str]) -> None:
        payload = json.dumps({"origin": self.instance, "uris": uris})
        conn.execute(sql("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": payload})

    # --- repositories and HEAD -----------------------------------------------------------------------

    def repo_of(self, uri: str) -> git.FileInRepo | None:
        path = uri_to_path(uri)
        return git.locate_file(path) if path is not None else None

    def sync_head(self, repo: git.FileInRepo, progress: tracking.Progress | None = None) -> str | None:
        """Bring the repository's markers to its HEAD (once per HEAD); notify when HEAD moved."""
        key = str(repo.root)
        head = git.head(repo.root)
        if key in self.heads and self.heads[key] == head:
            return head
        known = key in self.heads
        self.heads[key] = head
        if head is None:
            return None
        uris = self._recalculate(repo.root, head, progress)
        if known:
            self.buffer.clear()
            self.on_change(uris)
        return head

    async def sync_head_with_progress(self, repo: git.FileInRepo) -> None:
        """A HEAD change seen by the watchers: recalculate in a worker thread, reporting ``$/progress``."""
        if str(repo.root) in self.heads and self.heads[str(repo.root)] == git.head(repo.root):
            return
        reporter = await Progress.start(self.server, "Tether: relocating markers")
        reporter.minimum = PROGRESS_FROM
        try:
            await asyncio.to_thread(self.sync_head, repo, reporter.report)
        finally:
            reporter.end("markers relocated")

    def _recalculate(self, root: Path, head: str, progress: tracking.Progress | None) -> list[str]:
        """Flush uncommitted locations, then store every committed marker's location at ``head``."""
        markers, locations = self.markers(), self.locations()
        prefix = root.as_uri().rstrip("/") + "/"
        records = markers.under(prefix)
        view = git.GitView(root, head)
        try:
            local = self.local()
            pending = local.under(prefix)
            if pending:
                by_id = {r.id: r for r in records}
                flushed = tracking.flush_uncommitted(pending, by_id, markers, locations, local, view)
                if flushed:
                    log.info("markers: %d uncommitted location(s) are now committed at %s", len(flushed), head[:12])
                    records = markers.under(prefix)
            result = tracking.at_head(records, markers, locations, view, progress)
        finally:
            view.close()
        if result.computed:
            log.info("markers: %d location(s) computed at %s", result.computed, head[:12])
        return sorted({r.uri for r in records} | {r.uri for r in result.moved})

    def committed_text(self, repo: git.FileInRepo, head: str) -> str | None:
        """A file's text at a commit (a few recent ones cached: creating many markers reads it once)."""
        key = (str(repo.root), head, repo.path)
        if key not in self._committed:
            if len(self._committed) >= 16:
                self._committed.pop(next(iter(self._committed)))
            self._committed[key] = git.show(repo.root, head, repo.path)
        return self._committed[key]

    def follow_working_tree_renames(self, uri: str) -> bool:
        """Markers of files renamed (``git mv``, committed or staged) into ``uri`` move with them."""
        path = uri_to_path(uri)
        repo = self.repo_of(uri)
        if repo is None or path is None:
            return False
        root_uri = repo.root.as_uri().rstrip("/") + "/"
        markers = self.markers()
        gone_files = [u for u in markers.uris_under(root_uri) if u != uri and not _exists(u)]
        if not gone_files:
            return False
        gone = [r for u in gone_files for r in markers.for_uri(u)]
        cache: dict[str, dict[str, str]] = {}

        def renamed_to(record: MarkerRecord) -> str | None:
            since = record.commit_hash_when_created or "HEAD"
            if since not in cache:
                cache[since] = git.renames(repo.root, since)
            new = cache[since].get(unquote(record.uri[len(root_uri) :]))
            # compare paths, not uri spellings (clients percent-encode differently)
            return uri if new and (repo.root / new).resolve() == path.resolve() else None

        moved = service.follow_renames(markers, uri, gone, renamed_to)
        if moved:
            log.info("markers followed a rename to %s", uri)
        return bool(moved)

    # --- locating ------------------------------------------------------------------------------------

    def locate(
        self, uri: str, text: str | None, repo: git.FileInRepo | None, head: str | None
    ) -> list[service.Located]:
        """Every marker of ``uri`` located in ``text`` from its best reference (MARKERS.md)."""
        markers = self.markers()
        records = markers.for_uri(uri)
        if not records:
            return []
        refs: dict[str, service.Reference | str] = {}
        for record in records:
            if record.base_text:
                refs[record.id] = service.Reference(record.base_text, record.base)
        uncommitted = [r.id for r in records if not r.commit_hash_when_created]
        if uncommitted and repo is not None:
            for marker_id, entry in self.local().get(uncommitted).items():
                refs[marker_id] = service.Reference(entry.file_contents, entry.location)
        committed = [r for r in records if r.commit_hash_when_created]
        if committed:
            if repo is None or head is None:
                refs.update((r.id, "missingOriginalCommit") for r in committed)
            else:
                refs.update(self._committed_references(repo.root, head, committed, markers))
        return service.locate_all(records, text, refs)

    def _committed_references(
        self, root: Path, head: str, records: list[MarkerRecord], markers: MarkerStore
    ) -> dict[str, service.Reference | str]:
        view = git.GitView(root, head)
        try:
            result = tracking.at_head(records, markers, self.locations(), view)
            out: dict[str, service.Reference | str] = {}
            for record in records:
                stored = result.stored.get(record.id)
                if stored is None or stored.location is None:
                    out[record.id] = stored.missing_reason or "unknown" if stored else "unknown"
                    continue
                path = view.relative(stored.uri)
                committed = view.text(head, path) if path else None
                out[record.id] = (
                    service.Reference(committed, stored.location) if committed is not None else "missingOriginalCommit"
                )
            if result.moved:
                self.on_change(sorted({r.uri for r in result.moved}))
            return out
        finally:
            view.close()

    def remember(self, uri: str, version: int, head: str | None, located: list[service.Located]) -> None:
        self.buffer[uri] = MarkersState.Cached(version, head, located)

    def forget(self, *uris: str) -> None:
        for uri in uris:
            self.buffer.pop(uri, None)

    # --- other servers (PostgreSQL LISTEN/NOTIFY) ------------------------------------------------------

    def start_listening(self) -> None:
        """In team mode, markers changed by another server reach this one's clients as didChange."""
        try:
            db = self.server.database()
        except Exception as exc:  # the requests will report it; nothing to listen to
            log.info("markers: no database to listen to (%s)", exc)
            return
        if db.dialect != "postgresql" or self._listener is not None:
            return
        loop = asyncio.get_running_loop()
        dsn = db.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._listener = threading.Thread(target=self._listen, args=(dsn, loop), daemon=True, name="markers-listen")
        self._listener.start()

    def _listen(self, dsn: str, loop: asyncio.AbstractEventLoop) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self._received(note.payload, loop)
            except Exception as exc:
                if self._stop.is_set():
                    return
                log.warning("markers: LISTEN connection lost (%s); retrying in 2 s", exc)
                self._stop.wait(2)

    def _received(self, payload: str, loop: asyncio.AbstractEventLoop) -> None:
        try:
            data: Any = json.loads(payload)
            uris = [u for u in data["uris"] if isinstance(u, str)]
        except (ValueError, KeyError, TypeError):
            log.warning("markers: ignored a malformed notification %r", payload[:200])
            return
        if data.get("origin") == self.instance or not uris:
            return

        def deliver() -> None:
            self.forget(*uris)
            self.on_change(uris)

        loop.call_soon_threadsafe(deliver)

    def close(self) -> None:
        self._stop.set()
        if self._listener is not None:
            self._listener.join(timeout=2)
            self._listener = None


def _exists(uri: str) -> bool:
    path = uri_to_path(uri)
    return path is not None and path.exists()
