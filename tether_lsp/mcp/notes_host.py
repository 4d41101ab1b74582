"""The markers' :class:`~tether_lsp.handlers.markers.host.Host` for the standalone agents' front: what the markers
state needs of the server it runs in, without a language server.

* Workers are threads (``asyncio.to_thread``); the tool calls themselves already run in worker threads.
* The loop is a private event loop in a daemon thread of its own, started with the host: the markers state
  hands it its loop-only work (a HEAD sync it schedules, team mode's channel), never a tool call.
* The databases are the language server's: the same settings (``tether.database.url``, else
  ``TETHER_DATABASE_URL``, else ``tether.db`` in the root's data folder), opened and migrated on first use.
* Progress is reported to nobody: an agent's call waits for nothing the state does in the background.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tether_lsp.server.databases import Databases
from tether_lsp.server.settings import DatabaseSettings, LimitSettings, Settings
from tether_lsp.server.syntax import GrammarLimits

if TYPE_CHECKING:
    from tether_lsp.server.storage import Database, Migration

log = logging.getLogger(__name__)
R = TypeVar("R")

#: The environment variable naming the database, as the language server reads it.
DATABASE_ENV = "TETHER_DATABASE_URL"


def database_url(settings: Settings) -> str | None:
    """The database the settings (or the environment) name; None: the default SQLite file of a root."""
    return settings.section(DatabaseSettings).url or os.environ.get(DATABASE_ENV) or None


def _migrations() -> Sequence[Migration]:
    from tether_lsp.handlers.markers.store import MIGRATIONS  # SQLAlchemy loads when a database opens

    return MIGRATIONS


class Silent:
    """A progress reporter nobody watches."""

    minimum = 0

    def report(self, done: int, total: int, message: str | None = None) -> None:
        pass

    def end(self, message: str = "done") -> None:
        pass


class ThreadHost:
    """The markers' Host for one database, its workspace being ``root`` (the first root that uses it)."""

    def __init__(self, settings: Settings, root: Path) -> None:
        self.settings = settings
        self.workspace_root: Path | None = root
        self.databases = Databases(lambda: database_url(settings), lambda: root)
        self.databases.register("markers", _migrations)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="notes-loop", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R:
        return await asyncio.to_thread(fn, *args)

    def spawn(self, work: Awaitable[Any], what: str) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("%s failed", what)

        future: Future[None] = asyncio.run_coroutine_threadsafe(run(), self._loop)
        future.add_done_callback(lambda _f: None)

    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(fn, *args)

    def database(self) -> Database:
        return self.databases.shared()

    def local_database(self) -> Database:
        return self.databases.local()

    def grammar_limits(self) -> GrammarLimits:
        limits = self.settings.section(LimitSettings)
        return GrammarLimits(limits.maxTreeBytes, limits.yamlMaxNesting)

    async def start_progress(self, title: str) -> Silent:
        return Silent()

    def close(self) -> None:
        """Stop the loop (work scheduled on it is dropped) and close the databases."""
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()
        self.databases.close()
