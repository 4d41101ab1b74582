"""Builds the Tether language server: the runtime state every feature shares, and the hooks into it.

``TetherServer`` owns the documents (:mod:`.documents`), their trees (:mod:`.syntax`), the position encoding and
the settings, and puts together the parts that do one job each: :mod:`.workers`, :mod:`.databases`,
:mod:`.reporting` and :mod:`.hooks`; the protocol's own handlers are in :mod:`.lifecycle`. Features never register
themselves on import: ``tether_lsp.compose`` builds a ``TetherServer`` and hands it to each feature's ``register``
(docs/architecture.md, "The layers and their rules").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from . import logs
from .databases import Databases
from .documents import Document, DocumentStore, HistoryBudget
from .hooks import DocumentListener, Hooks, SettingsListener, ShutdownHook
from .json_converter import make_converter
from .loopwatch import LoopWatch
from .positions import Encoding
from .processes import WARM_AFTER_S, Processes
from .progress import Progress
from .protocol import TetherProtocol
from .reporting import ErrorReporter, log_sender
from .router import Router
from .serve import serve_stdio, serve_tcp, serve_ws
from .settings import DatabaseSettings, LimitSettings, LogSettings, Settings, SettingsSchema
from .syntax import GrammarLimits, Snapshot, SyntaxCache
from .workers import Workers

if TYPE_CHECKING:
    from .host import Host
    from .storage import Database, Migration  # SQLAlchemy is imported on first use, not at start-up

log = logging.getLogger(__name__)

R = TypeVar("R")


class TetherServer(LanguageServer):
    """The language server and the state shared by all features."""

    protocol: TetherProtocol

    def __init__(self, name: str, version: str) -> None:
        super().__init__(
            name,
            version,
            protocol_cls=TetherProtocol,
            converter_factory=make_converter,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.documents = DocumentStore(budget=self._history_budget)
        self.syntax = SyntaxCache(
            limits=self.grammar_limits, tree_budget=lambda: self.settings.section(LimitSettings).treeCacheBytes
        )
        self.encoding = Encoding.UTF16
        #: The settings sections this server knows: the core's, then each feature's (``register_settings``).
        self.settings_schema = SettingsSchema()
        #: Replaced whole (never mutated) on the loop; workers read it as it is when they look.
        self.settings: Settings = self.settings_schema.parse()[0]
        self.workspace_root: Path | None = None
        #: The client's ``initializationOptions``: settings pulled or pushed later are read on top of them.
        self.init_options: Any = None
        self.hooks: Hooks[TetherServer] = Hooks()
        self.workers = Workers(lambda: self.settings.section(LimitSettings).workers)
        self.processes = Processes(
            lambda: self.settings.section(LimitSettings).processes,
            self.run_blocking,
            tree_bytes=lambda: self.settings.section(LimitSettings).processTreeBytes,
        )
        self.on_initialized(self._warm_processes)
        self.databases = Databases(lambda: self.settings.section(DatabaseSettings).url, lambda: self.workspace_root)
        self.errors = ErrorReporter(self.window_show_message)
        #: The settings warnings of the last settings read (each bad value is warned about once).
        self._settings_warnings: set[str] = set()
        self._prepared = False
        self.client_log = logs.ClientLogHandler(log_sender(self.window_log_message))
        #: Ends the serving loop from any thread (set by :mod:`.serve` once it runs).
        self.stop_serving: Callable[[], None] = lambda: None
        self.stop_requested = False
        self.loop_watch = LoopWatch()
        #: Every method this server answers and sends, from the features' method tables (:mod:`.router`).
        self.router = Router(self)

    # --- hooks: how features follow the runtime ------------------------------------------------------

    def on_document(self, listener: DocumentListener) -> None:
        """Call ``listener`` on the loop after each didOpen/didChange/didClose/didSave (snapshot updated)."""
        self.hooks.on_document(listener)

    def on_settings(self, listener: SettingsListener) -> None:
        """Call ``listener`` on the loop with the new settings each time they are read."""
        self.hooks.on_settings(listener)

    def on_initialized(self, hook: Callable[[TetherServer], Awaitable[None]]) -> None:
        """Await ``hook(server)`` once the client said ``initialized`` (registrations, first scans)."""
        self.hooks.on_initialized(hook)

    def on_shutdown_begin(self, hook: ShutdownHook) -> None:
        """Run first at shutdown, on the loop (or with no loop left): finish in-memory work, set aside writes."""
        self.hooks.on_shutdown_begin(hook)

    def on_shutdown(self, hook: ShutdownHook) -> None:
        """Then run off the loop (may block: write, stop threads, close files), before the databases close."""
        self.hooks.on_shutdown(hook)

    # --- the loop and the workers (see :mod:`.workers`) ----------------------------------------------

    def run_blocking(self, fn: Callable[..., R], *args: Any) -> Coroutine[Any, Any, R]:
        """Await ``fn(*args)`` run in the worker pool (:meth:`Workers.run_blocking`)."""
        return self.workers.run_blocking(fn, *args)

    def run_in_process(self, fn: Callable[..., R], *args: Any) -> Coroutine[Any, Any, R]:
        """Await ``fn(*args)`` run in a worker process (:meth:`Processes.run`)."""
        return self.processes.run(fn, *args)

    async def _warm_processes(self, _server: TetherServer) -> None:
        """After ``initialized``: the worker processes start in the background once the first requests have had
        the cores to themselves (``WARM_AFTER_S``)."""

        def warm() -> None:
            if not self.stopping:
                self.spawn(self.processes.warm(), "starting the worker processes")

        asyncio.get_running_loop().call_later(WARM_AFTER_S, warm)

    def spawn(self, work: Awaitable[Any], what: str) -> None:
        """Loop: run ``work`` in the background, a failure logged (:meth:`Workers.spawn`)."""
        self.workers.spawn(work, what)

    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the event loop, from the loop or a worker (:meth:`Workers.call_on_loop`)."""
        self.workers.call_on_loop(fn, *args)

    async def start_progress(self, title: str, client_token: str | int | None = None) -> Progress:
        """Report ``$/progress`` for one long piece of work (on the client's token, or one made now)."""
        return await Progress.start(self, title, client_token)

    # --- serving -------------------------------------------------------------------------------------

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        serve_stdio(self)

    def start_tcp(self, host: str, port: int) -> None:
        serve_tcp(self, host, port)

    def start_ws(self, host: str, port: int) -> None:
        serve_ws(self, host, port)

    def _history_budget(self) -> HistoryBudget:
        limits = self.settings.section(LimitSettings)
        return HistoryBudget(limits.historyBytes, limits.historySeconds)

    def grammar_limits(self) -> GrammarLimits:
        limits = self.settings.section(LimitSettings)
        return GrammarLimits(limits.maxTreeBytes, limits.yamlMaxNesting, limits.pythonMaxNesting)

    def max_message_bytes(self) -> int:
        return self.settings.section(LimitSettings).maxMessageBytes

    def exit_on_signal(self, signum: int) -> None:
        log.warning("received signal %d: exiting", signum)
        self.stop_requested = True
        self.stop_serving()

    @property
    def stopping(self) -> bool:
        """Shutting down: ``shutdown`` received, a signal, or the editor gone (what is cancelled now is no error)."""
        return self._prepared or self.stop_requested or bool(self.protocol._shutdown)

    def exit_code(self) -> int:
        """LSP: 0 after ``shutdown``, 1 when the client left without it; 0 when told to stop (a signal, the
        editor process gone): those are orderly ends, not client errors."""
        return 0 if self.protocol._shutdown or self.stop_requested else 1

    def prepare_close(self) -> None:
        """The loop's part of shutting down (``on_shutdown_begin`` hooks); safe to call more than once."""
        if self._prepared:
            return
        self._prepared = True
        self.hooks.shutdown_begins()

    def close_down(self) -> None:
        """Flush and stop everything (shutdown hooks, databases); safe to call more than once. Blocks: called
        from a thread of its own by the ``shutdown`` request, or after the loop has ended (signals, a lost
        editor) — never from the worker pool, whose jobs it waits for first: a database must not be closed
        under a job still using it."""
        self.prepare_close()
        if self.workers.closed:
            return
        self.workers.close()
        self.hooks.shutdown()  # what the user made is written first: ending the worker processes may take seconds
        self.processes.close()
        self.databases.close()
        logs.detach(self.client_log)

    # --- registration: settings and storage here; methods only through the router (:mod:`.router`) -----

    def feature(self, *args: Any, **kwargs: Any) -> Any:
        """Refused: a method is declared in its feature's method table and registered by the router, so that
        the tables are the whole list of what the server answers."""
        raise TypeError("declare the method in a feature's method table (server/methods.py)")

    def command(self, *args: Any, **kwargs: Any) -> Any:
        """Refused, like :meth:`feature`: a command is a ``Command`` row of a feature's table."""
        raise TypeError("declare the command in a feature's method table (server/methods.py)")

    def register_settings(self, name: str, cls: type[Any]) -> None:
        """Declare a feature's settings section ``tether.<name>`` (its defaults apply until settings arrive)."""
        self.settings_schema.register(name, cls)
        # keep what was applied; the new section reads as its defaults until the next settings arrive
        self.settings = Settings(self.settings.values, self.settings_schema.sections())

    def register_storage(self, component: str, migrations: Callable[[], Sequence[Migration]]) -> None:
        """Declare a feature's tables, migrated when a database opens (:meth:`Databases.register`)."""
        self.databases.register(component, migrations)

    # --- state for features ------------------------------------------------------------------------

    def snapshot(self, uri: str, version: int | None = None) -> Snapshot | None:
        """The snapshot of an open document (its current version unless ``version`` is given)."""
        return self.syntax.get(uri, version)

    def document(self, uri: str) -> Document | None:
        return self.documents.get(uri)

    def database(self) -> Database:
        """The database (opened and migrated on first use); raises StorageError when it cannot be."""
        return self.databases.shared()

    def local_database(self) -> Database:
        """This machine's own SQLite database: the database itself, or beside a shared PostgreSQL one."""
        return self.databases.local()

    def apply_settings(self, *sources: Any) -> None:
        settings, warnings = self.settings_schema.parse(*sources)
        previous = self.settings
        self.settings = settings
        logs.attach_client_handler(self.client_log, settings.section(LogSettings).level)
        for warning in warnings:
            if warning not in self._settings_warnings:  # the same settings read again (pulled, re-read)
                log.warning("%s", warning)
        self._settings_warnings = set(warnings)
        if previous.section(DatabaseSettings) != settings.section(DatabaseSettings):
            self.databases.settings_changed()
        self.hooks.settings_changed(settings)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls' hook for unexpected failures: logged, the user told once per session (:mod:`.reporting`)."""
        self.errors.report(error, source)


if TYPE_CHECKING:

    def _a_language_server_is_a_host(server: TetherServer) -> Host:
        """Checked by mypy, never run: the language server is the :class:`~.host.Host` every feature takes."""
        return server
