"""What an answer from the open documents' cache checks afterwards, in a worker: renames into the file (``git mv``,
committed or staged) and a HEAD moved since the last sync (:meth:`.state.MarkersState.poll`).

At most one check per document every :data:`CHECK_EVERY_S`: an editor asks for code lenses at each keystroke and
each is answered from the cache; checking after every one of them listed every file with markers and looked at
each on disk, back to back for as long as the user typed (7-9% of the serving interpreter's time while typing,
sampled during a HEAD change). HEAD itself is read before each cached answer (:mod:`.heads`), so a commit or a
checkout is never answered from a stale cache; a rename is noticed at the first answer a second after the last
check.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from tether_lsp.server.host import Host

log = logging.getLogger(__name__)

#: The shortest time between two checks of one document.
CHECK_EVERY_S = 1.0


class CachedChecks:
    """Loop only. ``check``: the worker's check of a uri (True: markers moved into it); ``moved``: the loop's
    reaction to a True (drop the cache, tell the client)."""

    def __init__(self, server: Host, check: Callable[[str], bool], moved: Callable[[str], None]) -> None:
        self.server = server
        self._check = check
        self._moved = moved
        #: The check under way per uri (awaited by tests).
        self.running: dict[str, asyncio.Task[None]] = {}
        self._started: dict[str, float] = {}  # when each uri's last check started (those of the last interval)
        self.clock = time.monotonic

    def after_cached_answer(self, uri: str) -> None:
        """A cached answer for ``uri`` was given: check it in a worker unless one is under way or started less than
        :data:`CHECK_EVERY_S` ago."""
        now = self.clock()
        if uri in self.running or now - self._started.get(uri, -CHECK_EVERY_S) < CHECK_EVERY_S:
            return
        self._started = {u: t for u, t in self._started.items() if now - t < CHECK_EVERY_S}
        self._started[uri] = now
        task = asyncio.ensure_future(self._run(uri))
        self.running[uri] = task
        task.add_done_callback(lambda _t: self.running.pop(uri, None))

    async def _run(self, uri: str) -> None:
        try:
            if await self.server.run_blocking(self._check, uri):
                self._moved(uri)
        except Exception as exc:
            log.info("markers: checking %s failed: %s", uri, exc)
