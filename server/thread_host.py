"""The :class:`~tether_lsp.server.host.Host` of a process with no language server: the standalone agents' front.

* Workers are threads (``asyncio.to_thread``); the tool calls themselves already run in worker threads. Heavy
  pure work runs in worker processes (:mod:`.processes`), one set shared by every host of :class:`ThreadHosts`.
* The loop is a private event loop in a daemon thread of its own, started with the host: services hand it their
  loop-only work (a HEAD sync they schedule, team mode's channel), never a tool call.
* The databases are the language server's, by the same rule (:func:`~.databases.database_url`), opened and
  migrated on first use; :class:`ThreadHosts` keeps one host, hence one engine, per database.
* Progress is reported to nobody: an agent's call waits for nothing a service does in the background.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .databases import Databases, database_key, database_url
from .host import Silent
from .processes import Processes
from .settings import DatabaseSettings, LimitSettings, Settings
from .syntax import GrammarLimits

if TYPE_CHECKING:
    from .storage import Database, Migration

log = logging.getLogger(__name__)
R = TypeVar("R")

#: Each component's migrations, loaded when a database opens (so SQLAlchemy loads only then).
Components = dict[str, Callable[[], Sequence["Migration"]]]


class ThreadHost:
    """The Host for one database, its workspace being ``root`` (the first root that uses it)."""

    def __init__(
        self, settings: Settings, root: Path, components: Components, processes: Processes | None = None
    ) -> None:
        """``processes``: worker processes shared with other hosts (this host's own when None)."""
        self._settings = settings
        self._own_processes = processes is None
        self.processes = processes or Processes(
            lambda: self._settings.section(LimitSettings).processes,
            self.run_blocking,
            tree_bytes=lambda: self._settings.section(LimitSettings).processTreeBytes,
        )
        self._root = root
        self.databases = Databases(lambda: database_url(settings.section(DatabaseSettings).url), lambda: root)
        for component, migrations in components.items():
            self.databases.register(component, migrations)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="thread-host-loop", daemon=True)
        self._thread.start()

    @property
    def settings(self) -> Settings:
        return self._settings

    def configure(self, settings: Settings) -> None:
        """New settings (the front's changed): the services read them from now on; the database stays the one
        this host was made for."""
        self._settings = settings

    @property
    def workspace_root(self) -> Path | None:
        return self._root

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R:
        return await asyncio.to_thread(fn, *args)

    async def run_in_process(self, fn: Callable[..., R], *args: Any) -> R:
        return await self.processes.run(fn, *args)

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
        limits = self._settings.section(LimitSettings)
        return GrammarLimits(limits.maxTreeBytes, limits.yamlMaxNesting, limits.pythonMaxNesting)

    async def start_progress(self, title: str, client_token: str | int | None = None) -> Silent:
        return Silent()

    def close(self) -> None:
        """Stop the loop (work scheduled on it is dropped) and close the databases."""
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()
        if self._own_processes:
            self.processes.close()
        self.databases.close()


class ThreadHosts:
    """One :class:`ThreadHost` per database (every feature's tables in it), built when a root first needs one."""

    def __init__(self, settings: Settings, components: Components) -> None:
        self.settings = settings
        self.components = components
        #: One set of worker processes for every host.
        self.processes = Processes(
            lambda: self.settings.section(LimitSettings).processes,
            asyncio.to_thread,
            tree_bytes=lambda: self.settings.section(LimitSettings).processTreeBytes,
        )
        self._hosts: dict[str, ThreadHost] = {}
        self._lock = threading.Lock()

    def of(self, root: Path) -> ThreadHost:
        key = database_key(self.settings.section(DatabaseSettings).url, root)
        with self._lock:
            found = self._hosts.get(key)
            if found is None:
                found = self._hosts[key] = ThreadHost(self.settings, root, self.components, self.processes)
            return found

    def configure(self, settings: Settings) -> None:
        """New settings: every host's services read them from now on (a root whose database they change gets a
        host of its own when it next needs one)."""
        with self._lock:
            self.settings = settings
            hosts = list(self._hosts.values())
        for host in hosts:
            host.configure(settings)

    def close(self) -> None:
        with self._lock:
            hosts, self._hosts = list(self._hosts.values()), {}
        for host in hosts:
            host.close()
        self.processes.close()
