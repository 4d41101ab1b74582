"""The markers feature's per-server state: stores, HEAD tracking per repository, the buffer cache, and team
mode's channel to other servers (:mod:`.team`).

Kept apart from ``lsp.py`` so the protocol edge stays thin: everything here speaks uris, texts and
locations, and reports changed files through ``on_change`` (which ``lsp.py`` turns into
``tether/markers/didChange``). The uris are this server's clones' own: the stores map them to the
(repository, path) form every clone shares (:mod:`.places`), and other servers' changes are mapped back.

Threads. The methods that touch git, the database or files (``locate_now``, ``create``, ``update``,
``delete``, ``sync_repo``, ``poll``, ``first_look``) run in the server's worker pool, never on the loop.
``buffer``, ``on_change`` and the HEAD-sync bookkeeping (``request_sync``) belong to the loop; workers reach
them only through ``server.call_on_loop``. ``heads`` and ``_local`` are shared by workers
and guarded by ``_lock``. At most one HEAD sync per repository runs at a time; triggers that arrive
meanwhile are coalesced into one more run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_lsp.server.errors import InvalidParams, StorageError, is_shutting_down
from tether_lsp.server.files import FileRefused, file_exists, file_uri_spellings, read_text, same_file, uri_to_path
from tether_lsp.server.lazy import lazy_module
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.settings import LimitSettings

from . import git
from .clones import Clones, in_clone
from .convert import to_location
from .heads import HeadCheck
from .host import Host
from .places import FileKey
from .team import TeamChannel

if TYPE_CHECKING:
    from tether_lsp.server.storage import Database

    from . import service, store, tracking
    from .store import MarkerRecord, MarkerStore, UncommittedStore
else:  # loaded on first use: they bring SQLAlchemy, which start-up does not need
    service, store, tracking = (lazy_module(f"{__package__}.{name}") for name in ("service", "store", "tracking"))

log = logging.getLogger(__name__)

#: Above this many locations to compute, a HEAD change reports ``$/progress``.
PROGRESS_FROM = 200


class MarkersState:
    @dataclass
    class Cached:
        """An open document's locations at one version, computed at ``head`` of the repository at ``root``
        (None: outside git)."""

        version: int
        head: str | None
        located: list[service.Located]
        root: Path | None = None

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
        self.heads: dict[str, str | None] = {}  # repository root -> the HEAD we last synced (guarded: _lock)
        self.buffer: dict[str, MarkersState.Cached] = {}  # loop only
        self.on_change: Callable[[list[str]], None] = lambda uris: None  # loop only
        self._lock = threading.RLock()
        self._syncs: dict[str, asyncio.Task[None]] = {}  # loop only: the running HEAD sync per repository
        self._again: set[str] = set()  # loop only: repositories to sync once more when their sync ends
        self._polls: set[str] = set()  # loop only: uris with a HEAD/rename check under way
        self.team = TeamChannel(server, self._from_other_servers)  # NOTIFY and LISTEN on PostgreSQL
        self.clones = Clones(server, self.git, self.team.announce)  # uris <-> (repository, path)
        self._local: tuple[Database, UncommittedStore] | None = None

    # --- stores ---------------------------------------------------------------------------------------

    def markers(self) -> MarkerStore:
        stores = store.MarkerStore  # loads the store (its tables' migrations) before the database opens
        db = self.server.database()
        return stores(db, self.team.announce if db.dialect == "postgresql" else None, places=self.clones.places)

    def locations(self) -> store.LocationStore:
        stores = store.LocationStore
        settings = self.server.settings.named("markers")  # None in a front without the markers settings
        wait = settings.computeWaitSeconds if settings is not None else None
        return stores(self.server.database(), self.clones.places, wait)

    def local(self) -> UncommittedStore:
        """Uncommitted locations: the shared database on SQLite, a local SQLite file in team mode."""
        stores = store.UncommittedStore
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

    def _changed(self, uris: list[str]) -> None:
        """From a worker: these files' markers moved; the loop drops their cache and tells the client."""

        def deliver() -> None:
            self.forget(*uris)
            self.on_change(uris)

        if uris:
            self.server.call_on_loop(deliver)

    def head_now(self, repo: git.FileInRepo) -> str | None:
        """Worker: the repository's HEAD, read now: every answer is at the commit the clone is at, whether or
        not the client said HEAD moved. When it is not the one synced last, the loop is asked to sync (which
        stores every marker's location there and tells the client which files changed)."""
        self.clones.adopt(repo.root)
        key, current = str(repo.root), self.git.head(repo.root)
        with self._lock:
            known, synced = key in self.heads, self.heads.get(key)
        if not known or synced != current:
            self.server.call_on_loop(self.request_sync, repo.root)
        return current

    def unsynced_root(self, uri_prefix: str) -> Path | None:
        """Worker: the repository holding ``uri_prefix`` when its HEAD is not the one synced last."""
        repo = self.repo_of(uri_prefix + "x")
        if repo is None:
            return None
        key, current = str(repo.root), self.git.head(repo.root)
        with self._lock:
            known, synced = key in self.heads, self.heads.get(key)
        return repo.root if not known or synced != current else None

    async def synced(self, root: Path) -> None:
        """Loop: until the repository's markers are synced to its HEAD (the sync goes on if the caller is
        cancelled; a sync that fails is in the log, and the caller answers file by file as ever)."""
        self.request_sync(root)
        running = self._syncs.get(str(root))
        if running is not None:
            await asyncio.shield(running)

    async def check_head(self, uri: str) -> None:
        """Loop, before answering ``uri`` from the cache: drop the cache when its repository's HEAD is no longer
        the one it was computed at (a commit or a checkout the client did not report)."""
        cached = self.buffer.get(uri)
        if cached is None or cached.root is None:
            return
        if await self.head_check.current(cached.root) != cached.head:
            self.forget(uri)

    def request_sync(self, root: Path) -> None:
        """Loop: bring the repository's markers to its HEAD in a worker; coalesce triggers while one runs."""
        key = str(root)
        running = self._syncs.get(key)
        if running is not None and not running.done():
            self._again.add(key)
            return
        self._syncs[key] = asyncio.ensure_future(self._sync_until_settled(root))

    async def _sync_until_settled(self, root: Path) -> None:
        key = str(root)
        while True:
            self._again.discard(key)
            reporter = await self.server.start_progress("Tether: relocating markers")
            reporter.minimum = PROGRESS_FROM
            moved: list[str] | None = None
            try:
                moved = await self.server.run_blocking(self.sync_repo, root, reporter.report)
            except StorageError as exc:  # already in the log, where it happened; the next trigger tries again
                log.debug("markers: recalculating %s failed: %s", root, exc)
            except Exception as exc:  # the next trigger tries again; requests keep answering meanwhile
                if is_shutting_down(exc):
                    log.debug("markers: recalculating %s stopped by the shutdown", root)
                    return
                log.warning("markers: recalculating %s failed: %s", root, exc)
            finally:
                reporter.end("markers relocated")
            if moved is not None:
                self.buffer.clear()
                self.on_change(moved)
            if key not in self._again:
                return

    def sync_repo(self, root: Path, progress: tracking.Progress | None = None) -> list[str] | None:
        """Worker: store every marker's location at HEAD (once per HEAD). The files whose markers moved, when
        HEAD changed since the last sync (a first sync notifies nothing)."""
        self.clones.adopt(root)
        key, head = str(root), self.git.head(root)
        with self._lock:
            known, synced = key in self.heads, self.heads.get(key)
        if known and synced == head:
            return None
        uris = self._recalculate(root, head, progress) if head is not None else []
        with self._lock:
            self.heads[key] = head
        return uris if known else None

    def first_look(self, root: Path) -> None:
        """Worker: remember the workspace repository's HEAD as synced (its markers are computed lazily)."""
        repo = self.git.locate_file(root / "x")
        if repo is not None:
            with self._lock:
                self.heads.setdefault(str(repo.root), self.git.head(repo.root))
            try:  # the workspace clone is known before other servers' changes arrive
                self.clones.adopt(repo.root)
            except StorageError as exc:  # already in the log; the next request adopts
                log.debug("markers: no database to adopt %s's markers in (%s)", repo.root, exc)

    def poll_soon(self, uri: str) -> None:
        """Loop: check HEAD and renames for ``uri`` in a worker (at most one check per uri at a time)."""
        if uri in self._polls:
            return
        self._polls.add(uri)

        async def poll() -> None:
            try:
                if await self.server.run_blocking(self.poll, uri):
                    self.forget(uri)
                    self.on_change([uri])
            except Exception as exc:
                log.info("markers: checking %s failed: %s", uri, exc)
            finally:
                self._polls.discard(uri)

        self.server.spawn(poll(), f"markers: checking {uri}")

    def poll(self, uri: str) -> bool:
        """Worker: follow renames into ``uri`` and notice a moved HEAD; True when markers moved into it."""
        renamed = self.follow_working_tree_renames(uri)
        repo = self.repo_of(uri)
        if repo is not None:
            self.head_now(repo)
        return renamed

    # --- requests (workers) ----------------------------------------------------------------------------

    def current_text(self, uri: str, open_text: str | None) -> str | None:
        """The open buffer's text, else the file on disk, else None; -32602 naming the uri for a file that must
        not be read (not a regular file, too large)."""
        if open_text is not None:
            return open_text
        path = uri_to_path(uri)
        if path is None:
            return None
        try:
            return read_text(path, self.server.settings.section(LimitSettings).maxFileBytes)
        except FileRefused as exc:
            raise InvalidParams("textDocument.uri", f"{uri}: {exc}", kind="fileRefused", uri=uri) from exc
        except OSError:
            return None

    def locate_now(self, uri: str, open_text: str | None) -> MarkersState.Found:
        """Every marker of ``uri`` located in its current text, after following renames into it."""
        self.follow_working_tree_renames(uri)
        repo = self.repo_of(uri)
        head = self.head_now(repo) if repo is not None else None
        text = self.current_text(uri, open_text)
        return MarkersState.Found(text, self.locate(uri, text, repo, head), head, repo.root if repo else None)

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
        head = self.head_now(repo)  # a new marker is anchored at the current HEAD, synced or not
        committed = self.git.show_recent(repo.root, head, repo.path) if head else None
        return service.Place(placing.uri, text, loc, True, head, committed)

    def create(self, placing: MarkersState.Placing, note: str, kind: str) -> tuple[service.Located, str]:
        where = self.place(placing)
        repo = self.repo_of(placing.uri) if where.in_git else None
        author = service.default_author(self.git.user_name(repo.root) if repo is not None else None)
        return service.create(self.markers(), where, note, kind, author, self.local()), where.text

    def get(self, marker_id: str) -> MarkerRecord:
        self.clones.know_workspace()
        return self._here(service.require(self.markers(), marker_id))

    def _here(self, record: MarkerRecord) -> MarkerRecord:
        """The marker with the file it is in at this clone's HEAD (see :func:`tracking.file_at_head`)."""
        repo = self.repo_of(record.uri) if record.commit_hash_when_created else None
        head = self.head_now(repo) if repo is not None else None
        if repo is None or head is None:
            return record
        stored = self.locations().at(head, [record.id], near=record.uri).get(record.id)
        if stored is None:
            with closing(git.GitView(self.git, repo.root, head)) as view:
                limits = self.server.grammar_limits()
                result = tracking.at_head([record], self.markers(), self.locations(), view, limits=limits)
            stored = result.stored.get(record.id)
        where = tracking.file_at_head(record, stored, file_exists)
        return record if where == record.uri else dataclasses.replace(record, uri=where)

    def update(
        self, marker_id: str, note: str | None, kind: str | None, placing: MarkersState.Placing | None
    ) -> tuple[MarkerRecord, MarkerRecord]:
        self.clones.know_workspace()
        markers = self.markers()
        before = service.require(markers, marker_id)
        placed = self.place(placing) if placing is not None else None
        record = service.update(markers, marker_id, note=note, kind=kind, placed=placed, local=self.local())
        return self._here(before), self._here(record)

    def delete(self, marker_id: str) -> MarkerRecord:
        self.clones.know_workspace()
        markers = self.markers()
        record = service.require(markers, marker_id)
        here = self._here(record)
        service.delete(markers, marker_id)
        self.local().remove(marker_id)
        return here

    def _recalculate(self, root: Path, head: str, progress: tracking.Progress | None) -> list[str]:
        """Flush uncommitted locations, then store every committed marker's location at ``head``."""
        markers, locations = self.markers(), self.locations()
        prefix = root.as_uri().rstrip("/") + "/"
        records = markers.under(prefix)
        limits = self.server.grammar_limits()
        with closing(git.GitView(self.git, root, head)) as view:
            local = self.local()
            pending = local.under(prefix)
            flushed = tracking.flush_uncommitted(
                pending, {r.id: r for r in records}, markers, locations, local, view, limits
            )
            if flushed:
                log.info("markers: %d uncommitted location(s) are now committed at %s", len(flushed), head[:12])
                records = markers.under(prefix)
            result = tracking.at_head(records, markers, locations, view, progress, limits)
        # every sync says how much it computed and how much it read (computed by another server or earlier):
        # the team-scale benchmark counts shared and repeated work from this line
        log.info(
            "markers: %d location(s) at %s: %d computed here, %d read from the database",
            len(result.stored),
            head[:12],
            result.computed,
            len(result.stored) - result.computed,
        )
        at_head = {s.uri for s in result.stored.values()}  # a checkout back: files markers return to
        return sorted({r.uri for r in records} | {r.uri for r in result.moved} | at_head)

    def follow_working_tree_renames(self, uri: str) -> bool:
        """Markers of files renamed (``git mv``, committed or staged) into ``uri`` move with them."""
        path, repo = uri_to_path(uri), self.repo_of(uri)
        if repo is None or path is None:
            return False
        return tracking.follow_working_tree_renames(self.markers(), self.git, repo.root, uri, path)

    # --- locating ------------------------------------------------------------------------------------

    def locate(
        self, uri: str, text: str | None, repo: git.FileInRepo | None, head: str | None
    ) -> list[service.Located]:
        """Every marker of ``uri`` located in ``text`` from its best reference."""
        markers = self.markers()
        records = markers.for_uri(uri)
        if repo is None or head is None:
            return self._located(records, text, repo, None, {})
        with closing(git.GitView(self.git, repo.root, head)) as view:
            records, stored = self._in_file_at_head(uri, view, records, markers)
            return self._located(records, text, repo, view, stored)

    def _located(
        self,
        records: list[MarkerRecord],
        text: str | None,
        repo: git.FileInRepo | None,
        view: git.GitView | None,
        stored: dict[str, store.StoredLocation],
    ) -> list[service.Located]:
        if not records:
            return []
        refs: dict[str, service.Reference | str] = {}
        for record in records:
            if record.base_text:
                refs[record.id] = service.Reference(record.base_text, record.base)
        uncommitted = [r.id for r in records if not r.commit_hash_when_created]
        if uncommitted and repo is not None:
            for marker_id, entry in self.local().get(uncommitted).items():
                if in_clone(entry.uri, repo.root):  # another clone's, in a shared SQLite file: not this clone's
                    refs[marker_id] = service.Reference(entry.file_contents, entry.location)
        for record in records:
            if record.commit_hash_when_created:
                refs[record.id] = _committed_reference(view, stored.get(record.id))
        return service.locate_all(records, text, refs, self.server.grammar_limits())

    def _in_file_at_head(
        self, uri: str, view: git.GitView, records: list[MarkerRecord], markers: MarkerStore
    ) -> tuple[list[MarkerRecord], dict[str, store.StoredLocation]]:
        """The markers in ``uri`` at ``view.head``, with their locations there: its own ones, and those whose
        location stored at that HEAD is in it (a checkout back before a rename, a rename undone), minus those
        whose location there is in another file. Locations not stored at that HEAD yet are computed now, so the
        answer does not wait for the sync (and does not depend on which file is asked first)."""
        locations = self.locations()
        spellings = file_uri_spellings(uri)
        known = {r.id for r in records}
        arrived = [i for i in locations.ids_in_files(view.head, spellings) if i not in known]
        candidates = records + (markers.get_many(arrived) if arrived else [])
        result = tracking.at_head(candidates, markers, locations, view, limits=self.server.grammar_limits())
        if result.moved:  # markers whose file this found renamed: the client lists those files again
            self._changed(sorted({r.uri for r in result.moved}))
        inside = []
        for record in candidates:
            where = tracking.file_at_head(record, result.stored.get(record.id), file_exists)
            if where in spellings or same_file(where, uri):
                inside.append(record if record.uri == uri else dataclasses.replace(record, uri=uri))
        return inside, result.stored

    def files_with_markers(self, prefix: str) -> list[str]:
        """Worker: the files under ``prefix`` that may hold markers now: the markers' own files and the files
        their locations at the repository's HEAD are in (``list`` on each decides)."""
        uris = set(self.markers().uris_under(prefix))
        repo = self.repo_of(prefix + "x")
        head = self.head_now(repo) if repo is not None else None
        if head is not None:
            uris.update(u for u in self.locations().files_under(head, prefix) if file_exists(u))
        return sorted(uris)

    def remember(
        self, uri: str, version: int, head: str | None, located: list[service.Located], root: Path | None
    ) -> None:
        self.buffer[uri] = MarkersState.Cached(version, head, located, root)

    def forget(self, *uris: str) -> None:
        for uri in uris:
            self.buffer.pop(uri, None)

    # --- other servers (team mode) ----------------------------------------------------------------------

    async def start_listening(self) -> None:  # team mode: other servers' changes reach this client
        await self.team.start()

    def on_settings(self, settings: Any) -> None:
        self.team.on_settings(settings)

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


def _committed_reference(view: git.GitView | None, stored: store.StoredLocation | None) -> service.Reference | str:
    """A committed marker's reference: the committed text of the file its location at HEAD is in, and that
    location; else why it is missing."""
    if view is None:
        return "missingOriginalCommit"
    if stored is None or stored.location is None:
        return stored.missing_reason or "unknown" if stored else "unknown"
    path = view.relative(stored.uri)
    committed = view.text(view.head, path) if path else None
    return service.Reference(committed, stored.location) if committed is not None else "missingOriginalCommit"
