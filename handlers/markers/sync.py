"""Each repository's markers at its HEAD: which HEAD was synced last, and the sync that stores every marker's
location at a new one (a commit, a checkout), flushing the uncommitted locations that are now committed.

Threads. ``heads`` is shared by workers and guarded by ``_lock``; ``head_now``, ``unsynced_root``,
``sync_repo`` and ``first_look`` run in workers; ``request``, ``synced`` and the running syncs belong to the
loop. At most one sync per repository runs at a time; triggers that arrive meanwhile are coalesced into one
more run. A sync that moved markers hands their files to ``resynced`` on the loop.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tether_lsp.server.errors import StorageError, is_shutting_down
from tether_lsp.server.files import uri_to_path
from tether_lsp.server.lazy import lazy_module

from . import git
from .clones import Clones
from .git_view import GitView
from .locating import Stores

if TYPE_CHECKING:
    from . import offload, tracking
    from .computing import Mapped
else:  # loaded on first use: they bring SQLAlchemy, the parser and rapidfuzz
    offload, tracking = (lazy_module(f"{__package__}.{name}") for name in ("offload", "tracking"))

log = logging.getLogger(__name__)

#: Above this many locations to compute, a HEAD change reports ``$/progress``.
PROGRESS_FROM = 200
#: How often the interpreter passes between threads while a sync runs (seconds; Python's own is 5 ms). The
#: sync's thread runs Python beside the loop, and the loop takes the interpreter back after each of its reads,
#: writes and waits: a loop turn made of a few of them waited 5 ms for each (measured: a turn of 5 pipe writes
#: beside a busy thread, p50 24-30 ms at 5 ms, 1-17 ms at 1 ms, load ~12).
SWITCH_S = 0.001
_switching = threading.Lock()
_syncs_running = 0
_switch_before = 0.0


@contextmanager
def quick_switches() -> Iterator[None]:
    """While the block runs (in any number of threads at once), the interpreter switches every ``SWITCH_S``;
    its interval before is back once the last block ends."""
    global _syncs_running, _switch_before
    with _switching:
        if _syncs_running == 0:
            _switch_before = sys.getswitchinterval()
            sys.setswitchinterval(min(SWITCH_S, _switch_before))
        _syncs_running += 1
    try:
        yield
    finally:
        with _switching:
            _syncs_running -= 1
            if _syncs_running == 0:
                sys.setswitchinterval(_switch_before)


class HeadSync:
    def __init__(self, stores: Stores, clones: Clones, resynced: Callable[[list[str]], None]) -> None:
        self.stores = stores
        self.clones = clones
        self.resynced = resynced  # loop: a sync moved the markers of these files
        self.heads: dict[str, str | None] = {}  # repository root -> the HEAD we last synced (guarded: _lock)
        self._lock = threading.RLock()
        self._syncs: dict[str, asyncio.Task[None]] = {}  # loop only: the running sync per repository
        self._again: set[str] = set()  # loop only: repositories to sync once more when their sync ends
        #: Per repository, the last sync's HEAD and what it mapped (a repository's syncs run one at a time).
        self._mapped: dict[str, tuple[str, dict[str, Mapped]]] = {}

    def _last_synced(self, key: str) -> tuple[bool, str | None]:
        """(whether the repository at ``key`` was synced before, the HEAD it was synced at)."""
        with self._lock:
            return key in self.heads, self.heads.get(key)

    def head_now(self, repo: git.FileInRepo) -> str | None:
        """Worker: the repository's HEAD, read now: every answer is at the commit the clone is at, whether or
        not the client said HEAD moved. When it is not the one synced last, the loop is asked to sync (which
        stores every marker's location there and tells the client which files changed)."""
        self.clones.adopt(repo.root)
        current = self.stores.git.head(repo.root)
        known, synced = self._last_synced(str(repo.root))
        if not known or synced != current:
            self.stores.server.call_on_loop(self.request, repo.root)
        return current

    def unsynced_root(self, uri_prefix: str) -> Path | None:
        """Worker: the repository holding ``uri_prefix`` when its HEAD is not the one synced last."""
        path = uri_to_path(uri_prefix + "x")
        repo = self.stores.git.locate_file(path) if path is not None else None
        if repo is None:
            return None
        known, synced = self._last_synced(str(repo.root))
        return repo.root if not known or synced != self.stores.git.head(repo.root) else None

    async def synced(self, root: Path) -> None:
        """Loop: until the repository's markers are synced to its HEAD (the sync goes on if the caller is
        cancelled; a sync that fails is in the log, and the caller answers file by file as ever)."""
        self.request(root)
        running = self._syncs.get(str(root))
        if running is not None:
            await asyncio.shield(running)

    def request(self, root: Path) -> None:
        """Loop: bring the repository's markers to its HEAD in a worker; coalesce triggers while one runs."""
        key = str(root)
        running = self._syncs.get(key)
        if running is not None and not running.done():
            self._again.add(key)
            return
        self._syncs[key] = asyncio.ensure_future(self._sync_until_settled(root))

    async def _sync_until_settled(self, root: Path) -> None:
        key, server = str(root), self.stores.server
        while True:
            self._again.discard(key)
            reporter = await server.start_progress("Tether: relocating markers")
            reporter.minimum = PROGRESS_FROM
            moved: list[str] | None = None
            try:
                moved = await server.run_blocking(self.sync_repo, root, reporter.report)
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
                self.resynced(moved)
            if key not in self._again:
                return

    def sync_repo(self, root: Path, progress: tracking.Progress | None = None) -> list[str] | None:
        """Worker: store every marker's location at HEAD (once per HEAD). The files whose markers moved, when
        HEAD changed since the last sync (a first sync notifies nothing)."""
        self.clones.adopt(root)
        key, head = str(root), self.stores.git.head(root)
        known, synced = self._last_synced(key)
        if known and synced == head:
            return None
        with quick_switches():
            uris = self._recalculate(root, head, progress) if head is not None else []
        with self._lock:
            self.heads[key] = head
        return uris if known else None

    def first_look(self, root: Path) -> None:
        """Worker: remember the workspace repository's HEAD as synced (its markers are computed lazily)."""
        repo = self.stores.git.locate_file(root / "x")
        if repo is not None:
            with self._lock:
                self.heads.setdefault(str(repo.root), self.stores.git.head(repo.root))
            try:  # the workspace clone is known before other servers' changes arrive
                self.clones.adopt(repo.root)
            except StorageError as exc:  # already in the log; the next request adopts
                log.debug("markers: no database to adopt %s's markers in (%s)", repo.root, exc)

    def _recalculate(self, root: Path, head: str, progress: tracking.Progress | None) -> list[str]:
        """Flush uncommitted locations, then store every committed marker's location at ``head``: those of the
        files this HEAD change touched computed in the worker processes, the others kept from the sync before."""
        stores = self.stores
        markers, locations = stores.markers(), stores.locations()
        prefix = root.as_uri().rstrip("/") + "/"
        records = markers.under(prefix)
        limits = stores.server.grammar_limits()
        with closing(GitView(stores.git, root, head)) as view:
            local = stores.local()
            pending = local.under(prefix)
            flushed = tracking.flush_uncommitted(
                pending, {r.id: r for r in records}, markers, locations, local, view, limits
            )
            if flushed:
                log.info("markers: %d uncommitted location(s) are now committed at %s", len(flushed), head[:12])
                records = markers.under(prefix)
            last = self._mapped.get(str(root))
            memo = tracking.Memo(*last) if last is not None else tracking.Memo()
            start = offload.starting(stores.server)
            result = tracking.at_head(records, markers, locations, view, progress, limits, start=start, memo=memo)
            self._mapped[str(root)] = (head, memo.now)
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
