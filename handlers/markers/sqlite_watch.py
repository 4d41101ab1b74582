"""Other processes' writes to the same SQLite file: an open document's cached markers stay true.

Two processes on one SQLite file (two editor windows, a language server and the agents' front
``tether-lsp mcp``) do not hear of each other's changes the way PostgreSQL servers do (``LISTEN/NOTIFY``,
:mod:`.team`). SQLite's ``PRAGMA data_version`` changes, for a connection, whenever another connection commits
to the file. So before a request answers from the cache of an open document, and every
``tether.markers.sqlitePollSeconds`` while documents are listed, one connection reads it; only when it changed
are the markers of the listed open documents read again and compared with what they were: the documents whose
markers changed lose their cache and the editor gets ``tether/markers/didChange`` for them.

``data_version`` also changes when this process commits on another of its connections (a worker following a
rename commit), so the watch counts this process's own writing commits (:class:`OwnWrites`): a change is logged
as another process's only when this server wrote nothing since the last check (either way the editor is told).

Threads. The check runs on a thread of its own (one worker, so always the same connection of the SQLite
engine's per-thread pool: ``data_version`` means something only on one connection), never on the loop and
never queued behind the worker pool's long jobs (a HEAD recalculation). ``listed``, the poll task and the
delivery belong to the loop; ``_db``, ``_version`` and ``_seen`` to the watch thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tether_lsp.server.errors import StorageError
from tether_lsp.server.offloop import assert_off_loop

from .settings import MarkersSettings

if TYPE_CHECKING:
    from tether_lsp.server.host import Host
    from tether_lsp.server.settings import Settings
    from tether_lsp.server.storage import Database

    from .state import MarkersState
    from .store import MarkerRecord

log = logging.getLogger(__name__)

#: The longest a request waits for the check before answering from the cache (the check goes on, and
#: ``didChange`` follows if it finds a change).
REQUEST_WAIT_S = 1.0


def fingerprint(records: list[MarkerRecord]) -> int:
    """What a client was shown of a file's markers, as one number."""
    return hash(
        tuple(
            (r.id, r.note, r.kind, r.code, r.author, r.commit_hash_when_created, r.base, r.base_text, r.key)
            for r in records
        )
    )


@dataclass(frozen=True)
class Checked:
    """A check's outcome: the listed documents whose markers changed; ``reset``: the database is new to the
    watch (every cache goes); ``sqlite``: whether there is anything to watch; ``ours``: this process wrote since
    the last check (the change may be its own)."""

    changed: list[str]
    reset: bool = False
    sqlite: bool = True
    ours: bool = False


class OwnWrites:
    """This process's commits that wrote something to an engine's file, on any thread: SQLAlchemy's ``commit``
    event comes before the commit itself, so a ``data_version`` read before :attr:`count` is read cannot show a
    write of ours that is not counted yet. A transaction that only read changes nothing: sqlite3's
    ``total_changes`` of its connection is the same at its commit as at its begin (compared with the last commit
    seen instead, a connection's first transaction after the watch started counted the writes made on it before,
    the playground's schema set-up among them)."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def watch(self, db: Database) -> None:
        db.observe_transactions(self._on_begin, self._on_commit)

    def _on_begin(self, conn: Any) -> None:
        record = conn.connection
        record.info["tether_changes_at_begin"] = getattr(record.dbapi_connection, "total_changes", None)

    def _on_commit(self, conn: Any) -> None:
        record = conn.connection
        changes = getattr(record.dbapi_connection, "total_changes", None)
        at_begin = record.info.pop("tether_changes_at_begin", None)
        if changes is None or at_begin is None or changes == at_begin:
            return
        with self._lock:
            self.count += 1


class SqliteWatch:
    def __init__(self, server: Host, state: MarkersState, notify: Callable[[list[str]], None]) -> None:
        self.server = server
        self.state = state
        self.notify = notify  # loop only: tell the client these uris' markers changed
        self.listed: set[str] = set()  # loop only: open documents whose markers were listed
        self._sqlite: bool | None = None  # loop only: the last check's answer (None: not known)
        self._pool: ThreadPoolExecutor | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._closed = False
        self._db: Database | None = None  # watch thread only
        self._version: int | None = None  # watch thread only
        self._seen: dict[str, int] = {}  # watch thread only: listed documents' fingerprints
        self._own = OwnWrites()
        self._own_seen = 0  # watch thread only: own writes counted at the last check

    # --- the loop ------------------------------------------------------------------------------------

    async def before_answer(self, uri: str, is_open: bool, wait: bool = True) -> None:
        """Loop, before a request answers ``uri``'s markers: notice other processes' writes (waits at most
        REQUEST_WAIT_S; a check that takes longer delivers when it ends). ``wait`` False: the database is not
        open yet, so nothing is cached and the check would first open it: it starts and is not waited for."""
        if is_open:
            self.listed.add(uri)
        if self._sqlite is False or self._closed:
            return
        job = self._submit(self._check, tuple(sorted(self.listed)))
        if job is None or not wait:
            return
        try:
            await asyncio.wait_for(asyncio.shield(job), REQUEST_WAIT_S)
        except TimeoutError:
            log.info("markers: the SQLite change check is slow; answering %s from what is known", uri)
        except Exception:  # _deliver logs it; the request answers as before
            pass

    def written(self, *uris: str) -> None:
        """Loop: this server wrote these files' markers (its client knows): no didChange for them."""
        listed = tuple(u for u in uris if u in self.listed)
        if listed and self._sqlite:
            self._submit(self._reseed, listed)

    def closed(self, uri: str) -> None:
        self.listed.discard(uri)

    def on_settings(self, _settings: Settings) -> None:
        self._sqlite = None  # the database may be another one
        self._wake.set()

    async def run(self) -> None:
        """Loop, after ``initialized``: the periodic check (nothing while no open document was listed or the
        database is not SQLite; asleep while the setting is 0)."""
        while not self._closed:
            seconds = self.server.settings.section(MarkersSettings).sqlitePollSeconds
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), seconds if seconds > 0 else None)
                continue  # the settings changed: read them again
            except TimeoutError:
                pass
            if not self.listed or self._sqlite is False:
                continue
            job = self._submit(self._check, tuple(sorted(self.listed)))
            if job is not None:
                await asyncio.gather(job, return_exceptions=True)

    def start(self) -> None:
        if self._task is None and not self._closed:
            self._task = asyncio.ensure_future(self.run())

    def stop(self) -> None:
        """Loop (or no loop left), first at shutdown."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()

    def close(self) -> None:
        """Off the loop at shutdown, before the databases close: the watch thread ends."""
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _submit(
        self, fn: Callable[[tuple[str, ...]], Checked], uris: tuple[str, ...]
    ) -> asyncio.Future[Checked] | None:
        if self._closed:
            return None
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="markers-sqlite-watch")
        try:
            job = asyncio.get_running_loop().run_in_executor(self._pool, fn, uris)
        except RuntimeError:  # the pool was shut down meanwhile
            return None
        job.add_done_callback(self._deliver)
        return job

    def _deliver(self, job: asyncio.Future[Checked]) -> None:
        """Loop: drop what another process made stale and tell the client."""
        if job.cancelled():
            return
        exc = job.exception()
        if exc is not None:
            log.info("markers: checking the SQLite file for other processes' writes failed: %s", exc)
            return
        checked = job.result()
        self._sqlite = checked.sqlite
        if checked.reset:
            self.state.buffer.clear()
        changed = [u for u in checked.changed if u in self.listed]
        if changed:
            if checked.ours:  # this server wrote too: maybe its own change (one didChange more does no harm)
                log.debug("markers: the markers of %d open document(s) changed while this server wrote", len(changed))
            else:
                log.info("markers: another process changed the markers of %d open document(s)", len(changed))
            self.state.forget(*changed)
            self.notify(changed)

    # --- the watch thread ----------------------------------------------------------------------------

    def _check(self, uris: tuple[str, ...]) -> Checked:
        assert_off_loop("the SQLite data_version check")
        try:
            db = self.server.database()
        except StorageError as exc:  # already in the log; the request answers it
            log.debug("markers: no database to watch (%s)", exc)
            return Checked([])
        reset = db is not self._db
        if reset:
            self._db, self._version = db, None
            self._seen.clear()
        if db.dialect != "sqlite":
            return Checked([], reset, sqlite=False)
        if reset:
            self._own.watch(db)
        for gone in set(self._seen) - set(uris):
            del self._seen[gone]
        version = self._data_version(db)
        own = self._own.count  # after data_version: every write of ours that it shows is counted
        ours, self._own_seen = own != self._own_seen, own
        if version == self._version:  # nobody else committed: only documents listed for the first time
            for uri in uris:
                if uri not in self._seen:
                    self._seen[uri] = self._fingerprint(uri)
            return Checked([], reset)
        self._version = version
        changed = []
        for uri in uris:
            now = self._fingerprint(uri)
            if self._seen.get(uri, now) != now:
                changed.append(uri)
            self._seen[uri] = now
        return Checked(changed, reset, ours=ours)

    def _reseed(self, uris: tuple[str, ...]) -> Checked:
        for uri in uris:
            if uri in self._seen:
                self._seen[uri] = self._fingerprint(uri)
        return Checked([])

    def _fingerprint(self, uri: str) -> int:
        return fingerprint(self.state.markers().for_uri(uri))

    def _data_version(self, db: Database) -> int:
        """``PRAGMA data_version`` on this thread's connection (the same one every time: SQLite's engine keeps
        one connection per thread); no transaction, nothing written."""
        raw = db.engine.raw_connection()
        try:
            cursor = raw.cursor()
            try:
                cursor.execute("PRAGMA data_version")
                row = cursor.fetchone()
            finally:
                cursor.close()
        finally:
            raw.close()  # back to the pool: this thread keeps it
        return int(row[0]) if row else 0
