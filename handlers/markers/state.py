"""The markers feature's per-server state and its one service API, which every front calls: the language
server's glue (``lsp.py``) and the agents' notes (``tether_lsp/mcp/notes.py``) alike. Creating
(:meth:`MarkersState.create`), updating, deleting, listing (:meth:`MarkersState.located`, the open documents'
cache in front of :meth:`MarkersState.locate_now`) and locating a marker each have one path here; the fronts
only convert positions, wire types and errors.

Its parts: the stores, each repository's HEAD sync (:mod:`.sync`), the way markers are located
(:mod:`.locating`), the open documents' cache (:mod:`.cache`), and team mode's channel to other servers
(:mod:`.team`). Everything here speaks uris, texts and locations, and reports changed files through
``on_change`` (which ``lsp.py`` turns into ``tether/markers/didChange``). The uris are this server's clones'
own: the stores map them to the (repository, path) form every clone shares (:mod:`.places`), and other
servers' changes are mapped back.

Threads. The methods that touch git, the database or files (``locate_now``, ``create``, ``update``,
``delete``, ``poll``, the sync's) run in the server's worker pool, never on the loop. ``buffer``,
``on_change``, ``on_written``, ``open_document``, ``located`` and ``after_write`` belong to the loop; workers
reach them only through ``server.call_on_loop``. ``_local`` is shared by workers and guarded by ``_lock``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_lsp.server.errors import ContentModified, InvalidParams, StorageError
from tether_lsp.server.files import file_exists, uri_to_path
from tether_lsp.server.host import Host
from tether_lsp.server.lazy import lazy_module
from tether_lsp.server.positions import Encoding, Pos

from . import git, locating
from .cache import Cached, OpenDocument, carried
from .checks import CachedChecks
from .clones import Clones
from .convert import to_location
from .heads import HeadCheck
from .marked_files import MarkedFiles
from .places import FileKey
from .settings import settings_in_force
from .sync import HeadSync
from .team import TeamChannel
from .writes import markers_written

if TYPE_CHECKING:
    from tether_lsp.server.storage import Database

    from . import location_store, service, store, uncommitted_store
    from .store import MarkerRecord, MarkerStore
    from .uncommitted_store import UncommittedStore
else:  # loaded on first use: they bring SQLAlchemy, which start-up does not need
    location_store, service, store, uncommitted_store = (
        lazy_module(f"{__package__}.{name}") for name in ("location_store", "service", "store", "uncommitted_store")
    )

log = logging.getLogger(__name__)


class MarkersState:
    @dataclass(frozen=True)
    class Placing:
        """A marker being put on a range: the file, its open text (None: read it from disk), the range's start
        and end in the client's encoding."""

        uri: str
        open_text: str | None
        span: tuple[Pos, Pos]
        encoding: Encoding
        field: str

    @dataclass(frozen=True)
    class Found:
        text: str | None
        located: list[service.Located]
        head: str | None
        root: Path | None = None

    def __init__(self, server: Host) -> None:
        self.server = server
        self.git = git.Git()  # the git CLI and what it remembers (roots, user names, warnings given)
        self.head_check = HeadCheck(self.git)  # HEAD read before answering from the cache (its own thread)
        self.buffer: dict[str, Cached] = {}  # loop only: the open documents' last computed locations
        #: Loop only: the client should list these files' markers again (``tether/markers/didChange``).
        self.on_change: Callable[[list[str]], None] = lambda uris: None
        #: Loop only: this server wrote these files' markers (the SQLite watch then knows the change is ours).
        self.on_written: Callable[[list[str]], None] = lambda uris: None
        #: Loop only: the front's open document of a uri (None: not open; its text is read from disk).
        self.open_document: Callable[[str], OpenDocument | None] = lambda uri: None
        self._lock = threading.RLock()
        #: Loop only: how many times cached locations were dropped (a write, another process's change): a list
        #: computed while one was dropped may lack that change, so it is answered but not kept.
        self._forgets = 0
        #: Loop only: renames and HEAD checked after cached answers, at most once a second per document.
        self.checks = CachedChecks(server, lambda uri: self.poll(uri), self._moved_into)
        self.team = TeamChannel(server, self._from_other_servers)  # NOTIFY and LISTEN on PostgreSQL
        self.clones = Clones(server, self.git, self.team.announce)  # uris <-> (repository, path)
        self.sync = HeadSync(self, self.clones, self._resynced)  # each repository's markers at its HEAD
        self.marked = MarkedFiles()  # each clone's files with markers, and those gone from its working tree
        self._local: tuple[Database, UncommittedStore] | None = None
        settings_in_force(server.settings)

    # --- stores ---------------------------------------------------------------------------------------

    def markers(self) -> MarkerStore:
        stores = store.MarkerStore  # loads the store (its tables' migrations) before the database opens
        db = self.server.database()
        return stores(db, self.team.announce if db.dialect == "postgresql" else None, places=self.clones.places)

    def locations(self) -> location_store.LocationStore:
        stores = location_store.LocationStore
        settings = self.server.settings.named("markers")  # None in a front without the markers settings
        wait = settings.computeWaitSeconds if settings is not None else None
        return stores(self.server.database(), self.clones.places, wait)

    def local(self) -> UncommittedStore:
        """Uncommitted locations: the shared database on SQLite, a local SQLite file in team mode."""
        stores = uncommitted_store.UncommittedStore
        db = self.server.database()
        if db.dialect == "sqlite":
            return stores(db)
        with self._lock:
            if self._local is None or self._local[0] is not self.server.local_database():
                local_db = self.server.local_database()
                self._local = (local_db, stores(local_db))
            return self._local[1]

    # --- repositories and HEAD -----------------------------------------------------------------------

    def repo_of(self, uri: str) -> git.FileInRepo | None:
        path = uri_to_path(uri)
        return self.git.locate_file(path) if path is not None else None

    def changed_from_worker(self, uris: list[str]) -> None:
        """Worker: these files' markers moved; the loop drops their cache and tells the client."""

        def deliver() -> None:
            self.forget(*uris)
            self.on_change(uris)

        if uris:
            self.server.call_on_loop(deliver)

    def _resynced(self, uris: list[str]) -> None:
        """Loop: a HEAD sync moved the markers of these files."""
        self.buffer.clear()
        self.on_change(uris)

    def request_sync(self, root: Path) -> None:
        """Loop: bring the repository's markers to its HEAD (a commit or a checkout was noticed)."""
        self.sync.request(root)

    def first_look(self, root: Path) -> None:
        """Worker: remember the workspace repository's HEAD as synced (its markers are computed lazily)."""
        self.sync.first_look(root)

    async def check_head(self, uri: str) -> None:
        """Loop, before answering ``uri`` from the cache: drop the cache when its repository's HEAD is no longer
        the one it was computed at (a commit or a checkout the client did not report)."""
        cached = self.buffer.get(uri)
        if cached is None or cached.root is None:
            return
        if await self.head_check.current(cached.root) != cached.head:
            self._drop(uri)

    def _moved_into(self, uri: str) -> None:
        """Loop: a check found markers renamed into ``uri``."""
        self.forget(uri)
        self.on_change([uri])

    def poll(self, uri: str) -> bool:
        """Worker: follow renames into ``uri`` and notice a moved HEAD; True when markers moved into it."""
        renamed = self.follow_working_tree_renames(uri)
        repo = self.repo_of(uri)
        if repo is not None:
            self.sync.head_now(repo)
        return renamed

    # --- requests (workers) ----------------------------------------------------------------------------

    def current_text(self, uri: str, open_text: str | None) -> str | None:
        """See :func:`.locating.current_text`."""
        return locating.current_text(self.server, uri, open_text)

    def locate_now(self, uri: str, open_text: str | None, *, settled: bool = False) -> MarkersState.Found:
        """Every marker of ``uri`` located in its current text, after following renames into it (the one way
        markers are located). ``settled``: first wait for the repository's markers to be stored at its HEAD
        (an editor is answered at once and told later when a sync moved its markers; an agent hears of nothing
        later, so it waits; once per HEAD, and a sync reads what another server computed at that HEAD)."""
        repo = self.repo_of(uri)
        if settled and repo is not None:
            self.sync.sync_repo(repo.root)
        self.follow_working_tree_renames(uri)
        head = self.sync.head_now(repo) if repo is not None else None
        text = self.current_text(uri, open_text)
        located = locating.locate(self, uri, text, repo, head)
        return MarkersState.Found(text, located, head, repo.root if repo else None)

    def place(self, placing: MarkersState.Placing) -> service.Place:
        text = self.current_text(placing.uri, placing.open_text)
        if text is None:
            raise InvalidParams(
                placing.field, f"{placing.uri} is neither open nor a readable file", kind="unknownDocument"
            )
        loc = to_location(text, placing.span, placing.encoding)
        repo = self.repo_of(placing.uri)
        if repo is None:
            return service.Place(placing.uri, text, loc)
        head = self.sync.head_now(repo)  # a new marker is anchored at the current HEAD, synced or not
        committed = self.git.show_recent(repo.root, head, repo.path) if head else None
        return service.Place(placing.uri, text, loc, True, head, committed)

    def create(
        self, placing: MarkersState.Placing, note: str, kind: str, author: str | None = None, *, tell: bool = False
    ) -> tuple[service.Located, str]:
        """Worker: a new marker on ``placing``'s range (the one way a marker is made, by a person in an editor or
        by an agent), and the text it was put on. ``author``: None for the person (git's ``user.name``...).
        ``tell``: the client did not make it (see :meth:`after_write`)."""
        where = self.place(placing)
        if author is None:
            repo = self.repo_of(placing.uri) if where.in_git else None
            author = service.default_author(self.git.user_name(repo.root) if repo is not None else None)
        created = service.create(self.markers(), where, note, kind, author, self.local())
        self._written([placing.uri], tell)
        return created, where.text

    def get(self, marker_id: str) -> MarkerRecord:
        self.clones.know_workspace()
        return self._here(service.require(self.markers(), marker_id))

    def _here(self, record: MarkerRecord) -> MarkerRecord:
        repo = self.repo_of(record.uri) if record.commit_hash_when_created else None
        head = self.sync.head_now(repo) if repo is not None else None
        return locating.with_file_at_head(self, record, repo, head)

    def update(
        self,
        marker_id: str,
        note: str | None,
        kind: str | None,
        placing: MarkersState.Placing | None,
        *,
        tell: bool = False,
    ) -> tuple[MarkerRecord, MarkerRecord]:
        """Worker: change a marker's note or kind, or move it by hand; the marker before and after, each with
        the file it is in at HEAD."""
        self.clones.know_workspace()
        markers = self.markers()
        before = service.require(markers, marker_id)
        placed = self.place(placing) if placing is not None else None
        record = service.update(markers, marker_id, note=note, kind=kind, placed=placed, local=self.local())
        before, after = self._here(before), self._here(record)
        self._written([before.uri, after.uri], tell)
        return before, after

    def delete(self, marker_id: str, *, tell: bool = False) -> MarkerRecord:
        """Worker: delete a marker; the marker as it was, with the file it was in at HEAD."""
        self.clones.know_workspace()
        markers = self.markers()
        record = service.require(markers, marker_id)
        here = self._here(record)
        service.delete(markers, marker_id)
        self.local().remove(marker_id)
        self._written([here.uri], tell)
        return here

    def _written(self, uris: list[str], tell: bool) -> None:
        self.server.call_on_loop(self.after_write, sorted(set(uris)), tell)

    def after_write(self, uris: list[str], tell: bool) -> None:
        """Loop, after this server wrote the markers of ``uris`` (each write ends here, whichever front made
        it): their cache goes, the SQLite watch learns the change is this server's own (no second didChange
        for it), and the client is told (``on_change``) when it did not make the change itself (``tell``: an
        agent's note reaches the editor at once)."""
        self.forget(*uris)
        self.on_written(uris)
        if tell:
            self.on_change(uris)

    def follow_working_tree_renames(self, uri: str) -> bool:
        """Markers of files renamed (``git mv``, committed or staged) into ``uri`` move with them."""
        path, repo = uri_to_path(uri), self.repo_of(uri)
        if repo is None or path is None:
            return False
        return self.marked.follow_into(self.markers(), self.git, repo.root, uri, path)

    def files_with_markers(self, prefix: str) -> list[str]:
        """Worker: the files under ``prefix`` that may hold markers now: the markers' own files and the files
        their locations at the repository's HEAD are in (``list`` on each decides)."""
        uris = set(self.markers().uris_under(prefix))
        repo = self.repo_of(prefix + "x")
        head = self.sync.head_now(repo) if repo is not None else None
        if head is not None:
            uris.update(u for u in self.locations().files_under(head, prefix) if file_exists(u))
        return sorted(uris)

    # --- listing (the loop) ----------------------------------------------------------------------------

    async def located(self, uri: str, *, last_known: bool = False) -> tuple[str | None, list[service.Located]]:
        """Loop: where the markers of ``uri`` are now, and the text they are located in.

        Always at the repository's HEAD now, whether or not the client reported a commit or a checkout, and
        never waiting on a HEAD recalculation: an open document answers from its last computed locations
        carried through the edits since (:mod:`.cache`), if HEAD is still the one they were computed at (a
        worker follows renames meanwhile, and ``didChange`` follows if that moved anything); otherwise a worker
        locates them at HEAD (:meth:`locate_now`). ``last_known``: when the database fails, an open document's
        last known locations are the answer. An open document edited while a worker located answers at its
        current version, the locations carried through the edits; -32801 when they cannot be carried.
        """
        try:
            await self.check_head(uri)
            cached = self.from_cache(uri)
            if cached is not None:
                self.checks.after_cached_answer(uri)
                return cached
            document = self.open_document(uri)
            current = document.current if document is not None else None
            forgets = self._forgets
            found = await self.server.run_blocking(self.locate_now, uri, current.string if current else None)
        except StorageError:
            cached = self.from_cache(uri) if last_known else None
            if cached is None:
                raise
            log.warning("markers: the database failed; serving the last locations known for %s", uri)
            return cached
        now = self.open_document(uri)
        if current is None or now is None:
            return found.text, found.located
        kept = forgets == self._forgets  # else a write came meanwhile: answered, not kept for later answers
        if kept:
            self.remember(uri, current.version, found.head, found.located, found.root)
        if now.current.version == current.version:
            return found.text, found.located
        carried_on = self.from_cache(uri) if kept else None  # the user typed on meanwhile: carried to the text now
        if carried_on is None:
            raise ContentModified(uri, current.client_version, now.current.client_version)
        return carried_on

    def from_cache(self, uri: str) -> tuple[str, list[service.Located]] | None:
        """Loop: the last computed locations of an open document, carried to its current version (no I/O)."""
        document, cached = self.open_document(uri), self.buffer.get(uri)
        if document is None or cached is None:
            return None
        located = carried(cached, document)
        if located is None:
            return None
        current = document.current
        self.remember(uri, current.version, cached.head, located, cached.root)
        return current.string, located

    async def workspace_files(self, prefix: str) -> list[str]:
        """Loop: the files under ``prefix`` that may hold markers, once a commit or a checkout not synced yet is
        (every marker's file at HEAD is known after)."""
        unsynced = await self.server.run_blocking(self.sync.unsynced_root, prefix)
        if unsynced is not None:
            await self.sync.synced(unsynced)
        return await self.server.run_blocking(self.files_with_markers, prefix)

    def remember(
        self, uri: str, version: int, head: str | None, located: list[service.Located], root: Path | None
    ) -> None:
        self.buffer[uri] = Cached(version, head, located, root)

    def forget(self, *uris: str) -> None:
        """Loop: the markers of ``uris`` changed (a write, another process's): their cache goes, and the files with
        markers are read again (:mod:`.marked_files`)."""
        markers_written()
        self._drop(*uris)

    def _drop(self, *uris: str) -> None:
        self._forgets += 1
        for uri in uris:
            self.buffer.pop(uri, None)

    # --- other servers (team mode) ----------------------------------------------------------------------

    async def start_listening(self) -> None:  # team mode: other servers' changes reach this client
        await self.team.start()

    def on_settings(self, settings: Any) -> None:
        self.team.on_settings(settings)
        settings_in_force(settings)

    def _from_other_servers(self, uris: list[str], keys: list[FileKey | None]) -> None:
        """Loop: another server changed markers in these files (given as its uris and, in git, their keys):
        the files in this server's clones of those repositories; none for a repository it has no clone of."""
        here = self.clones.here(uris, keys)
        if here:
            self.forget(*here)
            self.on_change(here)

    def close(self) -> None:
        self.team.stop()
        self.head_check.close()
