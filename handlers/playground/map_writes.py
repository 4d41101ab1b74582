"""The playground map's writes in an editor's session: an entry is written ``FLUSH_DELAY_S`` after its last change
(not on every keystroke), one write after the other in the worker pool, and the last ones at shutdown."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from tether_lsp.server.errors import RequestFailed, StorageError

if TYPE_CHECKING:
    from tether_lsp.server.host import Host

    from .identity import PromptIds
    from .model import MapFile

log = logging.getLogger(__name__)

#: The map is written this long after its last change (and at shutdown): not on every keystroke.
FLUSH_DELAY_S = 0.5


async def unless_shutting_down(work: Awaitable[Any], what: str) -> None:
    """Background work, where the server refusing it because it is shutting down is an orderly end, not a
    failure to tell the client about."""
    try:
        await work
    except RequestFailed as exc:
        if exc.data.get("kind") != "shuttingDown":
            raise
        log.debug("%s: stopped by the shutdown", what)


class MapWrites:
    """The entries changed since they were last handed to a worker; ``files`` is the map as it is now (an entry
    no longer in it is forgotten, not written)."""

    def __init__(self, host: Host, ids: PromptIds, files: Callable[[], Mapping[str, MapFile]]) -> None:
        self.host = host
        self.ids = ids
        self.files = files
        self._dirty: dict[str, MapFile] = {}
        self._flush_handle: asyncio.TimerHandle | None = None
        self._final: list[tuple[int, MapFile, bool]] = []  # what shutdown writes
        self._taken = 0  # loop only: numbers the batches of map entries handed to workers
        self._written: dict[str, int] = {}  # file id -> the newest batch written for it (guarded)
        self._write_lock = threading.Lock()

    def background(self, work: Awaitable[Any], what: str) -> None:
        """Loop: run ``work`` in the background; a refusal because the server is shutting down is not logged as
        a failure."""
        self.host.spawn(unless_shutting_down(work, what), what)

    def saved(self, entry: MapFile) -> None:
        """A file's entry changed: write it after typing pauses (pushed back by each change), and at shutdown."""
        self._dirty[entry.id] = entry
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        try:
            self._flush_handle = asyncio.get_running_loop().call_later(FLUSH_DELAY_S, self.flush)
        except RuntimeError:  # no loop (shutting down): shutdown writes it
            self._flush_handle = None

    def _take_dirty(self) -> list[tuple[int, MapFile, bool]]:
        """Loop: the entries to write, numbered in the order they were taken, each with whether it is still in
        the map (else it is forgotten)."""
        dirty, self._dirty = self._dirty, {}
        files = self.files()
        self._taken += 1
        return [(self._taken, entry, entry.id in files) for entry in dirty.values()]

    def _write(self, items: list[tuple[int, MapFile, bool]]) -> None:
        """Worker: write map entries; an entry older than one already written for its file is skipped, so
        writes that overtake each other in the pool never bring back an older map."""
        try:
            store = self.ids.store()
        except StorageError as exc:  # already in the log, where it happened
            log.debug("playground: the map is not saved (%s)", exc)
            return
        with self._write_lock:
            for taken, entry, keep in items:
                if self._written.get(entry.id, 0) > taken:
                    continue
                try:
                    if keep:
                        store.save_file(entry)
                    else:
                        store.forget_file(entry.id)
                    self._written[entry.id] = taken
                except Exception as exc:
                    log.warning("playground: could not save the map of %s (%s)", entry.uri, exc)

    def flush(self) -> None:
        """Loop: hand the dirty entries to a worker."""
        self._flush_handle = None
        items = self._take_dirty()
        if items:
            self.background(self.host.run_blocking(self._write, items), "playground: writing the map")

    def hold(self) -> None:
        """Shutdown begins: no timed write any more (what is pending is written at shutdown)."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None

    def set_aside(self) -> None:
        """Shutdown begins, the pending events processed: what the last write will write."""
        self._final = self._take_dirty()

    def write_at_shutdown(self) -> None:
        """Worker (or no loop): the last write, after any write still in flight."""
        self._write(self._final)
        self._final = []
