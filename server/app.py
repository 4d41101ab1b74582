"""Builds the Tether language server: the runtime state every feature shares, and the document lifecycle.

``TetherServer`` owns the text model (:mod:`server.documents`), the parse cache (:mod:`server.syntax`),
the negotiated position encoding, the validated settings and the (lazily opened) database. Document
notifications are the only writers and stay small (docs/architecture.md, "Documents, snapshots and
positions"): apply the change, reparse incrementally, tell listeners. Features never register themselves
on import: the composition root (``tether_lsp.compose``) builds a ``TetherServer`` and hands it to each
feature's ``register``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import hashlib
import importlib
import inspect
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException
from pygls.lsp.server import LanguageServer
from tree_sitter import Tree

from . import logs
from .documents import ContentChange, Document, DocumentStore, HistoryBudget
from .errors import INTERNAL_ERROR, InvalidParams, RequestFailed, StorageError, TetherError, to_jsonrpc
from .files import uri_to_path
from .loopwatch import LoopWatch
from .nodes import preorder
from .positions import Encoding, Pos, choose_encoding
from .protocol import TetherProtocol, make_converter
from .serve import serve_stdio, serve_tcp, serve_ws
from .settings import DatabaseSettings, LimitSettings, LogSettings, Settings, SettingsSchema, extract_tether
from .syntax import GrammarLimits, Snapshot, SyntaxCache

if TYPE_CHECKING:
    from .storage import Database, Migration  # SQLAlchemy is imported on first use, not at start-up

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")


@dataclass(frozen=True)
class DocumentEvent:
    """What happened to a document; listeners run after the snapshot is updated."""

    kind: str  # "open" | "change" | "close" | "save"
    uri: str
    snapshot: Snapshot | None


@attrs.define
class DocumentInfoParams:
    text_document: types.TextDocumentIdentifier
    #: Also hash the text and every node of the tree (costly on big files; for tests and diagnostics).
    detail: bool = False


@attrs.define
class DebugParams:
    message: str


@attrs.define
class LoopStatsParams:
    reset: bool = False


@attrs.define
class LoopStats:
    """The event loop's longest stall since the last reset (``TETHER_LOOP_WATCH=1``)."""

    worst_stall_ms: float
    ticks: int


@attrs.define
class DocumentInfo:
    """What the server holds for an open document (``tether/documentInfo``; used by the demo and status bars)."""

    uri: str
    version: int
    language_id: str
    language: str | None
    bytes: int
    lines: int
    parse_ms: float
    node_count: int
    has_syntax_errors: bool
    position_encoding: str
    #: Parses of this document so far: lets tests and benchmarks see that a burst of changes parses once.
    parse_count: int = 0
    text_sha256: str | None = None
    tree_sha256: str | None = None
    #: Why a document in a parsed language has no tree (too large, nested too deeply); null otherwise.
    text_only_reason: str | None = None


def tree_digest(tree: Tree) -> str:
    """A hash of every node's type, byte span and start point, in pre-order."""
    digest = hashlib.sha256()
    for node in preorder(tree):
        digest.update(f"{node.type}:{node.start_byte}:{node.end_byte}:{node.start_point};".encode())
    return digest.hexdigest()


class TetherServer(LanguageServer):
    """The language server and the state shared by all features."""

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
        self.document_listeners: list[Callable[[DocumentEvent], None]] = []
        self.settings_listeners: list[Callable[[Settings], None]] = []
        #: Run once the client said ``initialized`` (registrations a feature needs, first scans).
        self.initialized_hooks: list[Callable[[TetherServer], Awaitable[None]]] = []
        #: Run first at shutdown, on the loop (or with no loop left): finish in-memory work, set aside writes.
        self.before_shutdown: list[Callable[[], None]] = []
        #: Then run in a worker (they may block: write, stop threads, close files), before the databases close.
        self.shutdown_hooks: list[Callable[[], None]] = []
        self._init_options: Any = None
        self._database: Database | None = None
        #: Each feature's tables, by component: a loader of its migrations (``register_storage``).
        self._storage: dict[str, Callable[[], Sequence[Migration]]] = {}
        self._migrated = 0  # how many components the open database was migrated with
        self._local_database: Database | None = None
        self._db_lock = threading.Lock()
        #: The last failure to open the database that was logged (each failure is warned about once).
        self._database_failure: str | None = None
        #: The settings warnings of the last settings read (each bad value is warned about once).
        self._settings_warnings: set[str] = set()
        self._reported_error = False
        self._closed = False
        self._prepared = False
        self.client_log = logs.ClientLogHandler(self._log_to_client)
        #: Ends the serving loop from any thread (set by :mod:`.serve` once it runs).
        self.stop_serving: Callable[[], None] = lambda: None
        self.stop_requested = False
        #: Blocking work (git, database, files) runs here, never on the loop; made on first use.
        self._workers: ThreadPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.loop_watch = LoopWatch()
        self._background: set[asyncio.Future[Any]] = set()  # loop only: work started by spawn()

    # --- the loop and the workers ---------------------------------------------------------------------

    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R:
        """Run ``fn(*args)`` in the worker pool and await its result on the loop.

        Cancelling the awaiting request (``$/cancelRequest``) stops the wait; a job already running finishes
        in its thread and its result is dropped.
        """
        loop = asyncio.get_running_loop()
        if self._closed:
            raise RequestFailed("the server is shutting down", "shuttingDown")
        if self._workers is None:
            size = self.settings.section(LimitSettings).workers
            self._workers = ThreadPoolExecutor(max_workers=size, thread_name_prefix="tether-worker")
        return await loop.run_in_executor(self._workers, functools.partial(fn, *args))

    def spawn(self, work: Awaitable[Any], what: str) -> None:
        """Loop: run ``work`` in the background, kept alive until done; a failure is logged, never lost."""
        task = asyncio.ensure_future(work)
        self._background.add(task)

        def done(finished: asyncio.Future[Any]) -> None:
            self._background.discard(finished)
            if finished.cancelled() or (exc := finished.exception()) is None:
                return
            if isinstance(exc, RequestFailed) and exc.data.get("kind") == "shuttingDown":
                log.debug("%s: stopped by the shutdown", what)  # an orderly end, nothing to tell the client
            else:
                log.warning("%s failed: %s", what, exc)

        task.add_done_callback(done)

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the event loop: at once when called there, else handed over from a worker.

        The one way for worker threads to touch loop-owned state or write to the protocol.
        """
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            fn(*args)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(fn, *args)

    # --- serving -------------------------------------------------------------------------------------

    protocol: TetherProtocol

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
        return GrammarLimits(limits.maxTreeBytes, limits.yamlMaxNesting)

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
        """The loop's part of shutting down (``before_shutdown`` hooks); safe to call more than once."""
        if self._prepared:
            return
        self._prepared = True
        for hook in self.before_shutdown:
            try:
                hook()
            except Exception:
                log.exception("shutdown hook %r failed", hook)

    def close_down(self) -> None:
        """Flush and stop everything (shutdown hooks, databases); safe to call more than once. Blocks: called
        from a thread of its own by the ``shutdown`` request, or after the loop has ended (signals, a lost
        editor) — never from the worker pool, whose jobs it waits for first: a database must not be closed
        under a job still using it."""
        self.prepare_close()
        if self._closed:
            return
        self._closed = True
        if self._workers is not None:
            self._workers.shutdown(wait=True, cancel_futures=True)
        for hook in self.shutdown_hooks:
            try:
                hook()
            except Exception:
                log.exception("shutdown hook %r failed", hook)
        with self._db_lock:
            if self._local_database is not None:
                self._local_database.close()
                self._local_database = None
            if self._database is not None:
                self._database.close()
                self._database = None
        logs.detach(self.client_log)

    # --- registration helpers ----------------------------------------------------------------------

    def handler(
        self,
        method: str,
        params: type[Any] | None = None,
        result: Any = None,
        *,
        options: Any = None,
        custom: bool | None = None,
    ) -> Callable[[F], F]:
        """Register a request/notification handler; :class:`TetherError` becomes its JSON-RPC error.

        Custom (``tether/*``) methods get their params/result classes registered with the protocol.
        """
        is_custom = method.startswith("tether/") if custom is None else custom
        if is_custom:
            self.protocol.methods.add(method, params, result, request=True)

        def decorate(fn: F) -> F:
            if inspect.iscoroutinefunction(fn):

                @functools.wraps(fn)
                async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                    try:
                        return await fn(*args, **kwargs)
                    except TetherError as exc:
                        raise to_jsonrpc(exc) from exc

                wrapped: Callable[..., Any] = async_wrapper
            else:

                @functools.wraps(fn)
                def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
                    try:
                        return fn(*args, **kwargs)
                    except TetherError as exc:
                        raise to_jsonrpc(exc) from exc

                wrapped = sync_wrapper
            self.feature(method, options)(wrapped)
            return fn

        return decorate

    def notification(self, method: str, params: type[Any]) -> Callable[[F], F]:
        """Register a custom client -> server notification with typed params."""
        self.protocol.methods.add(method, params, None, request=False)
        return self.handler(method, custom=False)

    def register_settings(self, name: str, cls: type[Any]) -> None:
        """Declare a feature's settings section ``tether.<name>`` (its defaults apply until settings arrive)."""
        self.settings_schema.register(name, cls)
        # keep what was applied; the new section reads as its defaults until the next settings arrive
        self.settings = Settings(self.settings.values, self.settings_schema.sections())

    def sends(self, method: str, params: type[Any]) -> None:
        """Declare a custom server -> client notification (its params class documents its shape)."""
        self.protocol.methods.add_outgoing(method, params)

    # --- state for features ------------------------------------------------------------------------

    def snapshot(self, uri: str, version: int | None = None) -> Snapshot | None:
        """The snapshot of an open document (its current version unless ``version`` is given)."""
        return self.syntax.get(uri, version)

    def document(self, uri: str) -> Document | None:
        return self.documents.get(uri)

    def database(self) -> Database:
        """The database (opened and migrated on first use); raises StorageError when it cannot be."""
        from .storage import open_database

        with self._db_lock:
            if self._database is None:
                url = self.settings.section(DatabaseSettings).url
                try:
                    db = open_database(url, self.workspace_root)
                    try:
                        db.migrate(self._storage_migrations())
                    except Exception:
                        db.close()
                        raise
                except StorageError as exc:
                    self._report_database_failure(exc)
                    raise
                log.info("storage: %s", db.redacted_url)
                self._database, self._migrated, self._database_failure = db, len(self._storage), None
                gc.freeze()  # SQLAlchemy, loaded just now, lives as long as the process (see `initialized`)
            elif self._migrated != len(self._storage):  # a component registered since the database opened
                self._database.migrate(self._storage_migrations())
                self._migrated = len(self._storage)
            return self._database

    def _report_database_failure(self, error: StorageError) -> None:
        """Warn once per failure, not once per request: every request that needs the database (markers and the
        playground's alike) answers the error itself; the log says it once, at the same level for all."""
        if error.message != self._database_failure:
            self._database_failure = error.message
            log.warning("%s; markers and the playground's saved inputs and runs are unavailable", error.message)

    def register_storage(self, component: str, migrations: Callable[[], Sequence[Migration]]) -> None:
        """Declare a feature's tables: ``migrations()`` returns its steps, called when a database opens (so
        the feature's storage module, and SQLAlchemy, load only then)."""
        self._storage[component] = migrations

    def _storage_migrations(self) -> dict[str, Sequence[Migration]]:
        return {component: load() for component, load in self._storage.items()}

    def local_database(self) -> Database:
        """This machine's own SQLite database: the database itself, or beside a shared PostgreSQL one.

        For what must stay local even in team mode (e.g. locations of uncommitted code).
        """
        from .storage import Database, default_sqlite_path

        shared = self.database()
        if shared.dialect == "sqlite":
            return shared
        with self._db_lock:
            if self._local_database is None:
                try:
                    db = Database.sqlite(default_sqlite_path(self.workspace_root))
                    db.migrate(self._storage_migrations())
                except StorageError as exc:
                    self._report_database_failure(exc)
                    raise
                self._local_database = db
            return self._local_database

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
            with self._db_lock:
                self._database_failure = None  # another database: its failure is news
                if self._database is not None:
                    self._database.retire()  # a worker may be using it right now
                    self._database = None
        for listener in self.settings_listeners:
            listener(settings)

    # --- errors and logs ---------------------------------------------------------------------------

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log unexpected failures; tell the user once per session, never a popup per error.

        Request errors already reach the client as responses: expected ones (invalid params, request
        failed) are not errors of the server at all, and internal ones are logged but raise no popup.
        """
        if isinstance(error, JsonRpcException) and error.code != INTERNAL_ERROR:
            return
        log.error("internal error (%s): %s", getattr(source, "__name__", source), error)
        if self._reported_error or source is FeatureRequestError:
            return
        self._reported_error = True
        with contextlib.suppress(Exception):  # the transport may be gone
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error,
                    message="Tether hit an internal error; it keeps running. See the Tether log for details.",
                )
            )

    def _log_to_client(self, level: int, message: str) -> None:
        kind = (
            types.MessageType.Error
            if level >= logging.ERROR
            else types.MessageType.Warning
            if level >= logging.WARNING
            else types.MessageType.Info
            if level >= logging.INFO
            else types.MessageType.Log
        )
        self.window_log_message(types.LogMessageParams(type=kind, message=message))


def _content_changes(params: types.DidChangeTextDocumentParams) -> list[ContentChange]:
    changes: list[ContentChange] = []
    for change in params.content_changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            r = change.range
            span = (Pos(r.start.line, r.start.character), Pos(r.end.line, r.end.character))
            changes.append(ContentChange(change.text, span))
        else:
            changes.append(ContentChange(change.text))
    return changes


def _watch_parent(ls: TetherServer, pid: int) -> None:
    """Exit when the editor that started us is gone (no orphaned servers), through the normal path: the
    shutdown hooks run, so pending writes are not lost."""

    def loop() -> None:
        while True:
            time.sleep(2)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                log.warning("parent process %d is gone; exiting", pid)
                ls.stop_requested = True
                ls.stop_serving()
                return
            except PermissionError:
                pass

    threading.Thread(target=loop, name="parent-watch", daemon=True).start()


def register_lifecycle(server: TetherServer) -> None:
    """initialize / configuration / document sync: the feature-agnostic part of the protocol."""
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=True))(did_save)
    server.handler("tether/documentInfo", DocumentInfoParams, DocumentInfo)(document_info)
    if os.environ.get("TETHER_TEST_HOOKS") == "1":
        server.handler("tether/debug/raise", None, None)(debug_raise)
        server.handler("tether/debug/loopStats", LoopStatsParams, LoopStats)(loop_stats)
        server.notification("tether/debug/raiseInNotification", DebugParams)(debug_raise_notification)
    server.feature(types.SHUTDOWN)(shutdown)


def initialize(ls: TetherServer, params: types.InitializeParams) -> None:
    """Negotiate the position encoding, read the workspace root and the initial settings."""
    ls.client_log.bind(asyncio.get_event_loop())
    ls.bind_loop(asyncio.get_event_loop())
    if LoopWatch.wanted():
        ls.loop_watch.start()
    general = params.capabilities.general
    offered = [str(getattr(e, "value", e)) for e in (general.position_encodings or [])] if general else []
    ls.encoding = choose_encoding(offered)  # the same choice TetherProtocol announced
    root = params.root_uri or (params.workspace_folders[0].uri if params.workspace_folders else None)
    ls.workspace_root = uri_to_path(root) if root else (Path(params.root_path) if params.root_path else None)
    ls._init_options = params.initialization_options
    ls.apply_settings(extract_tether(params.initialization_options))
    if params.process_id and params.process_id != os.getpid():
        _watch_parent(ls, params.process_id)
    log.info("%s %s: position encoding %s, root %s", ls.name, ls.version, ls.encoding, ls.workspace_root)


async def initialized(ls: TetherServer, _params: types.InitializedParams) -> None:
    """Register for configuration changes, pull the settings, start the features' first work."""
    caps = ls.client_capabilities.workspace
    if caps and caps.did_change_configuration and caps.did_change_configuration.dynamic_registration:
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(id="tether-config", method=types.WORKSPACE_DID_CHANGE_CONFIGURATION)
                    ]
                )
            )
        except Exception as exc:  # the client refused: settings still come from initializationOptions
            log.info("client did not accept didChangeConfiguration registration: %s", exc)
    await _pull_configuration(ls)
    for hook in ls.initialized_hooks:
        try:
            await hook(ls)
        except Exception:  # one feature failing never fails another
            log.exception("initialized hook %r failed", hook)
    # numpy (bulk positions, selector indexes, the YAML nesting check) is left out of start-up, but the first
    # document needs it: import it now, in a worker, while the editor has yet to send one (76 ms that the
    # first YAML documentInfo used to wait for). Then it is frozen with the rest below.
    with contextlib.suppress(Exception):  # a worker pool already closed: the first use imports it instead
        await ls.run_blocking(importlib.import_module, "numpy")
    # Everything loaded so far (modules, generated converters) lives as long as the process: keep it out
    # of the cyclic collector, whose full passes would otherwise walk it all (40-45 ms each, measured, a
    # stall for the loop and every worker alike).
    gc.collect()
    gc.freeze()


async def did_change_configuration(ls: TetherServer, params: types.DidChangeConfigurationParams) -> None:
    """Re-read the `tether` settings."""
    if not await _pull_configuration(ls):
        pushed = extract_tether(params.settings, bare=False)
        if pushed is not None:
            ls.apply_settings(extract_tether(ls._init_options), pushed)


def did_open(ls: TetherServer, params: types.DidOpenTextDocumentParams) -> None:
    """Hold the document's text and parse it (Python and YAML)."""
    item = params.text_document
    doc = ls.documents.open(item.uri, item.language_id, item.version, item.text)
    snapshot = ls.syntax.open(doc)
    _emit(ls, DocumentEvent("open", item.uri, snapshot))


def did_change(ls: TetherServer, params: types.DidChangeTextDocumentParams) -> None:
    """Apply incremental or full-text changes."""
    uri, version = params.text_document.uri, params.text_document.version
    doc = ls.documents.get(uri)
    if doc is None:
        log.warning("didChange for %s, which is not open: ignored", uri)
        return
    previous = doc.client_version
    doc.apply(version, _content_changes(params), ls.encoding)  # the client's text is the truth, whatever its number
    if version <= previous and not doc.warned_out_of_order:
        doc.warned_out_of_order = True
        log.warning(
            "didChange for %s has version %d, not newer than the document's version %d: applied all the same "
            "(requests that name a version mean the latest text the client gave that number; warned once)",
            uri,
            version,
            previous,
        )
    snapshot = ls.syntax.update(doc)
    _emit(ls, DocumentEvent("change", uri, snapshot))


def did_close(ls: TetherServer, params: types.DidCloseTextDocumentParams) -> None:
    """Forget the document."""
    uri = params.text_document.uri
    ls.documents.close(uri)
    ls.syntax.close(uri)
    _emit(ls, DocumentEvent("close", uri, None))


def did_save(ls: TetherServer, params: types.DidSaveTextDocumentParams) -> None:
    """Saved: markers are recomputed from the committed text."""
    _emit(ls, DocumentEvent("save", params.text_document.uri, ls.snapshot(params.text_document.uri)))


def document_info(ls: TetherServer, params: DocumentInfoParams) -> DocumentInfo:
    """What the server holds for an open document: language, size, parse time, syntax errors."""
    uri = params.text_document.uri
    doc, snapshot = ls.documents.get(uri), ls.snapshot(uri)
    if doc is None or snapshot is None:
        raise InvalidParams("textDocument.uri", f"{uri} is not an open document", kind="unknownDocument")
    tree = snapshot.tree
    return DocumentInfo(
        uri=uri,
        version=snapshot.client_version,
        language_id=doc.language_id,
        language=snapshot.language,
        bytes=len(snapshot.text),
        lines=snapshot.index.line_count,
        parse_ms=round(snapshot.parse_ms, 3),
        node_count=tree.root_node.descendant_count if tree else 0,
        has_syntax_errors=bool(tree and tree.root_node.has_error),
        position_encoding=ls.encoding.value,
        parse_count=ls.syntax.parse_counts.get(uri, 0),
        text_sha256=hashlib.sha256(snapshot.text).hexdigest() if params.detail else None,
        tree_sha256=tree_digest(tree) if params.detail and tree else None,
        text_only_reason=snapshot.text_only.reason if snapshot.text_only else None,
    )


def debug_raise(ls: TetherServer, params: Any) -> None:
    """Test hook: an unexpected exception inside a handler (must become -32603, server alive)."""
    raise RuntimeError("boom (test hook)")


def loop_stats(ls: TetherServer, params: LoopStatsParams) -> LoopStats:
    """Benchmarks: the loop's worst stall since the last reset (needs ``TETHER_LOOP_WATCH=1``)."""
    stats = LoopStats(round(ls.loop_watch.worst_s * 1000, 3), ls.loop_watch.ticks)
    if params.reset:
        ls.loop_watch.reset()
    return stats


def debug_raise_notification(ls: TetherServer, params: DebugParams) -> None:
    """Test hook: a notification handler failing (logged; one popup per session at most)."""
    raise RuntimeError(f"boom in a notification: {params.message}")


async def shutdown(ls: TetherServer, *_args: Any) -> None:
    """Flush pending writes, stop background work, close the databases."""
    ls.prepare_close()
    await asyncio.to_thread(ls.close_down)  # not the worker pool: close_down waits for it


def _emit(ls: TetherServer, event: DocumentEvent) -> None:
    for listener in ls.document_listeners:
        try:
            listener(event)
        except Exception:  # one feature failing never fails another
            log.exception("document listener %r failed on %s %s", listener, event.kind, event.uri)


async def _pull_configuration(ls: TetherServer) -> bool:
    """Re-read ``workspace/configuration`` section ``tether``; False when the client cannot answer."""
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return False
    try:
        result = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="tether")])
        )
    except Exception as exc:
        log.warning("workspace/configuration failed: %s", exc)
        return False
    pulled = result[0] if result else None
    ls.apply_settings(extract_tether(ls._init_options), pulled if isinstance(pulled, dict) else None)
    return True
