"""The playground engine kept up to date with an editor's documents, in plain Python values.

Document changes are processed after a short pause (``DEBOUNCE_S``) or before any playground message, their
prompts found in a worker (a walk over the whole tree: 50-90 ms for 10,000 lines, never on the loop; a large
document's in a worker process, :mod:`.detection`), so every message sees every change while typing does not pay
for the playground. The engine and the editor
positions belong to the event loop. The database is only touched in the worker pool: the map is loaded once
(every playground message waits for it) and written after its changes (:mod:`.map_writes`).

What the fronts ask of it (pinning, the state, runs' prompts) is :class:`~.session.Session`, built on this.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from tether_lsp.server.arrival import ARRIVAL
from tether_lsp.server.files import uri_to_path
from tether_lsp.server.host import Host
from tether_lsp.server.positions import Encoding, Pos

from .detection import Batch, Found, in_process
from .engine import PlaygroundEngine, State
from .identity import PromptIds
from .map_writes import MapWrites
from .model import PlaygroundMap
from .pending import PendingEvents
from .resolver import load_matching
from .scan import Detected, ready
from .settings import PlaygroundSettings

if TYPE_CHECKING:
    from tether_lsp.server.documents import Document
    from tether_lsp.server.syntax import Snapshot

log = logging.getLogger(__name__)

#: Document changes are processed this long after the last one (typing does not pay for the playground),
#: and before any playground request or notification, which sees every change that arrived before it.
DEBOUNCE_S = 0.1
#: Worker detections that applied nothing a message waits for before what is left runs on the loop. A detection for
#: a version typed over meanwhile still applies (the events up to it are processed), so typing never gets there.
MAX_WORKER_ROUNDS = 3
#: Source bytes of the documents one detection job takes: bounds the trees held for workers and the parsing
#: that handing them over may cost the loop (about one 10,000-line file).
DETECTION_BATCH_BYTES = 256 * 1024


class Documents(Protocol):
    """What the playground needs beyond the :class:`~tether_lsp.server.host.Host`: the editor's open documents,
    their parsed snapshots, and the position encoding the client speaks."""

    @property
    def encoding(self) -> Encoding: ...

    def snapshot(self, uri: str, version: int | None = None) -> Snapshot | None: ...

    def document(self, uri: str) -> Document | None: ...


class SessionHost(Host, Documents, Protocol):
    """The process an editor's session runs in: the one Host, with the editor's documents."""


class Tracker:
    """The engine, its stored map, and the editor positions as the client sent them, following the documents.

    ``on_state`` is told each state that differs from the last one told (None: nobody shows the playground).
    """

    def __init__(
        self,
        server: SessionHost,
        on_state: Callable[[State], None] | None = None,
        *,
        debounce_s: float = DEBOUNCE_S,
        stored_map: PlaygroundMap | None = None,
        ids: PromptIds | None = None,
    ) -> None:
        """``debounce_s``: the pause in typing after which changes are processed; ``stored_map``: a map to start
        from instead of the database's (a session with no database); ``ids``: the map's database (the server's
        when None)."""
        self.server = server
        self.on_state = on_state
        self.debounce_s = debounce_s
        self.ids = ids if ids is not None else PromptIds(server)
        self._engine: PlaygroundEngine | None = None
        self.writes = MapWrites(server, self.ids, lambda: self._engine.pmap.files if self._engine is not None else {})
        #: The cursor of each document as the client sent it (line, character in the server's encoding).
        self.positions: dict[str, Pos] = {}
        self._events = PendingEvents()
        self.pending = self._events.kinds  # uri -> "change" | "save", not processed yet
        self._catch_up_handle: asyncio.TimerHandle | None = None
        self._detecting: asyncio.Future[None] | None = None  # the newest detection running in a worker
        self._applied = 0  # documents whose worker-found prompts were applied (how a message sees progress)
        self._waiting = 0  # messages waiting for detections: an answer for a version typed over is applied for them
        self._in_order = asyncio.Lock()  # playground messages, one at a time, in arrival order (FIFO)
        self._loading: asyncio.Future[PlaygroundMap] | None = None
        self._loaded: PlaygroundMap | None = stored_map
        self._warmed = False  # a worker process was asked to import the detectors
        #: The process that found the prompts last applied (this one: a worker thread): where detection runs.
        self.detected_in: int | None = None
        #: Whether the map's files exist, looked at in a worker before results that may need it are applied.
        self._existing: dict[str, bool] = {}

    def _load(self) -> PlaygroundMap:
        load_matching()  # before any prompt is matched on the loop
        try:
            return self.ids.stored_map() or PlaygroundMap()
        except Exception as exc:
            log.warning("playground: could not load the map (%s)", exc)
        return PlaygroundMap()

    async def ready(self) -> None:
        """Wait until the stored map is loaded (once per session, in a worker)."""
        if self._loaded is not None:
            return
        if self._loading is None:
            self._loading = asyncio.ensure_future(self.server.run_blocking(self._load))
        self._loaded = await self._loading

    @property
    def engine(self) -> PlaygroundEngine:
        if self._engine is None:
            pmap = self._loaded if self._loaded is not None else PlaygroundMap()
            settings = self.server.settings.section(PlaygroundSettings)
            self._engine = PlaygroundEngine(
                pmap,
                exists=self._exists,
                on_map_change=self.writes.saved,
                keywords=settings.keywords or None,
                yaml_keys=settings.yamlKeys or None,
            )
            self._engine.limits = settings.thresholds()
        return self._engine

    def settings_changed(self, section: PlaygroundSettings) -> None:
        """New settings: the engine (once made) detects and resolves with them."""
        if self._engine is not None:
            self._engine.keywords = section.keywords or None
            self._engine.yaml_keys = section.yamlKeys or None
            self._engine.limits = section.thresholds()

    def background(self, work: Awaitable[Any], what: str) -> None:
        """Loop: run ``work`` in the background; a refusal because the server is shutting down is not logged as
        a failure."""
        self.writes.background(work, what)

    def prepare_shutdown(self) -> None:
        """Loop (or no loop at all): process what is pending and set aside what shutdown must write."""
        self.writes.hold()
        if self._engine is not None:
            self.catch_up()
        self.writes.set_aside()

    def write_at_shutdown(self) -> None:
        """Worker (or no loop): the last write, after any write still in flight."""
        self.writes.write_at_shutdown()

    def update(self, uri: str, detected: Detected | None = None, older: tuple[int, bytes] | None = None) -> bool:
        """Re-read an open document's prompts (``detected``: already found by a worker for its current version, or
        for the version and text ``older``); False when it is not one Tether parses."""
        snapshot = self.server.snapshot(uri)
        doc = self.server.document(uri)
        if snapshot is None or doc is None or snapshot.language is None:
            return False
        tree = snapshot.tree if detected is None else None  # found by a worker: nothing to parse here
        if detected is None and tree is None:
            return False
        version, text = older if detected is not None and older is not None else (snapshot.version, snapshot.text)

        def edits_since(since: int) -> list[Any] | None:
            """The edits from ``since`` to ``version``."""
            found, after = doc.edits_since(since), doc.edits_since(version)
            if found is None or after is None:
                return None
            edits = list(found)
            return edits[: len(edits) - len(list(after))]

        self.engine.update(uri, doc.language_id, snapshot.language, version, text, tree, edits_since, detected=detected)
        return True

    def refresh_cursors(self) -> None:
        engine = self.engine
        engine.cursors.clear()
        for uri, position in self.positions.items():
            snapshot = self.server.snapshot(uri)
            if snapshot is not None and uri in engine.views:
                engine.cursors[uri] = snapshot.index.offset_of(position, self.server.encoding)

    def emit(self) -> None:
        """Tell ``on_state`` when what the client shows changed."""
        self.refresh_cursors()
        state = self.engine.changed_state()
        if state is not None and self.on_state is not None:
            self.on_state(state)

    def renamed(self, old_uri: str, new_uri: str) -> None:
        """A file was renamed: its prompts keep their ids, its cursor goes with it."""
        self.engine.renamed(old_uri, new_uri)
        if old_uri in self.positions:
            self.positions[new_uri] = self.positions.pop(old_uri)

    def later(self, uri: str, kind: str) -> None:
        """Note a document event; it is processed once typing pauses for ``DEBOUNCE_S`` (each change pushes the
        timer back), or before any playground message."""
        doc = self.server.document(uri)
        self._events.note(uri, kind, doc.version if doc is not None else 0, ARRIVAL.get())
        if self._catch_up_handle is not None:
            self._catch_up_handle.cancel()
        try:
            self._catch_up_handle = asyncio.get_running_loop().call_later(self.debounce_s, self.catch_up_in_background)
        except RuntimeError:
            self._catch_up_handle = None
            self.catch_up()
            return
        snapshot = self.server.snapshot(uri)
        if not self._warmed and snapshot is not None and in_process(self.server, len(snapshot.text)):
            self._warmed = True  # a worker process imports the detectors before its first job
            self.background(self.server.run_in_process(ready), "playground: preparing a worker process")

    def catch_up_in_background(self) -> None:
        """Typing paused: find the changed documents' prompts in a worker (a walk over the whole tree, 50-90 ms
        for 10,000 lines, that must not hold the loop), then apply them on the loop."""
        self._catch_up_handle = None
        if self._loaded is None and self._engine is None:
            self._start_loading_then_catch_up()
            return
        if self._start_detection() is None:
            self.catch_up()

    async def caught_up(self) -> None:
        """Messages: wait until the document events that arrived before the message are processed, their
        prompts found in a worker. Events that arrived after it wait for after it (a rename, then the renamed
        file's ``didOpen``: the file must be read as renamed).

        Messages take turns in the order they arrived, and each applies its own effect as soon as this returns
        (with no wait in between), so a message never sees a state that an earlier one has yet to change.
        A message waits for a detection already running rather than starting another. When the document changed
        while a worker read it, what the worker found is applied all the same (for that version: the changes after
        it are left for the next pause), so a round started after the message processes every change before it:
        typing faster than detection never makes the loop read a whole document.
        """
        upto = ARRIVAL.get()  # this message's arrival number, kept by its task however late it runs
        async with self._in_order:
            await self.ready()
            idle = 0
            self._waiting += 1
            try:
                while idle < MAX_WORKER_ROUNDS and any(self._events.before(upto, "change")):
                    running = self._detecting if self._detecting is not None else self._start_detection(upto)
                    if running is None:
                        break
                    applied = self._applied
                    await asyncio.shield(running)  # a cancelled message must not cancel the others' detection
                    idle += self._applied == applied
            finally:
                self._waiting -= 1
            self.catch_up(upto)  # what is left is cheap: saves, documents without a tree

    def _start_detection(self, upto: int | None = None) -> asyncio.Future[None] | None:
        """Loop: hand pending changes (those arrived by ``upto``) to a worker, about ``DETECTION_BATCH_BYTES`` of
        documents at a time: a large document's text to a worker process, a small one's tree (parsed here if it
        must be, and held until the worker is done) to a worker thread (:mod:`.detection`); None when there is
        no such change. The next batch starts when this one is applied."""
        batch, size = Batch(self.engine.keywords, self.engine.yaml_keys), 0
        for uri in self._events.before(upto, "change"):
            snapshot = self.server.snapshot(uri)
            if snapshot is None or snapshot.language is None:
                continue
            if batch and size + len(snapshot.text) > DETECTION_BATCH_BYTES:
                break
            job = (uri, snapshot.version, snapshot.language, snapshot.text)
            if in_process(self.server, len(snapshot.text)):
                batch.processes.append(job)
                size += len(snapshot.text)
            elif (tree := snapshot.tree) is not None:
                batch.threads.append((*job, tree.copy()))  # its own copy
                size += len(snapshot.text)
        if not batch:
            return None

        async def detect_then_apply() -> None:
            texts = batch.texts()
            try:
                results = await batch.find(self.server, self.server.snapshot)
                self._existing = await self._look_for_renames(results)
            finally:
                if self._detecting is running:
                    self._detecting = None
            self.detected_in = batch.found_in
            try:
                self.apply_detected(results, texts)
            finally:
                self._existing = {}

        running = self._detecting = asyncio.ensure_future(detect_then_apply())
        self.background(running, "playground: finding prompts")
        return running

    def apply_detected(self, results: list[Found], texts: dict[tuple[str, int], bytes] | None = None) -> None:
        """Loop: a worker's prompts for the versions still current and still pending (None: a text too large or
        deep to parse); then the next batch, or the other pending events. A version changed since (its text in
        ``texts``) is applied only while a message waits for it, and only if it is newer than what was applied:
        the change that replaced it scheduled another catch-up."""
        current = 0
        for uri, version, detected in results:
            snapshot = self.server.snapshot(uri)
            if self.pending.get(uri) != "change" or snapshot is None:
                continue
            older = None
            if snapshot.version == version:
                self._events.processed(uri)
                current += 1
            elif not self._waiting or texts is None or (uri, version) not in texts:
                continue
            elif self._events.processed_through(uri, version):
                older = (version, texts[(uri, version)])
            else:
                continue
            self._applied += 1
            if detected is None:
                continue  # held as text only, as the server's own parse would have found
            if self.update(uri, detected, older) and (self.engine.pin is None or self.pinned_uri() == uri):
                self.emit()
        if current and self._detecting is None and self._start_detection() is not None:
            return  # the next batch (not after a stale answer: the change that made it stale set a timer)
        if self.pending and "change" not in self.pending.values():
            self.catch_up()

    async def _look_for_renames(self, results: list[Found]) -> dict[str, bool]:
        """Whether each file of the map exists, looked at in a worker, when a result has prompts for a file the map
        does not hold yet: the resolver then looks for a file renamed to it among those gone from disk, and a stat
        per map file is file work the loop must not do."""
        pmap = self.engine.pmap
        if not any(found and found[0] and pmap.by_uri(uri) is None for uri, _v, found in results):
            return {}
        uris = [entry.uri for entry in pmap.files.values() if entry.prompts]
        return await self.server.run_blocking(lambda: {uri: _exists(uri) for uri in uris})

    def _exists(self, uri: str) -> bool:
        known = self._existing.get(uri)
        return _exists(uri) if known is None else known

    def _start_loading_then_catch_up(self) -> None:
        """The map is not loaded yet: load it in a worker, then process what is pending."""

        async def load_then_catch_up() -> None:
            await self.ready()
            if self._start_detection() is None:
                self.catch_up()

        if self._loading is None or self._loading.done():
            self.background(load_then_catch_up(), "playground: loading the map")

    def catch_up(self, upto: int | None = None) -> None:
        """Process the pending document events (those arrived by ``upto``; None: all), in order (the map follows
        every change, pinned or not)."""
        if self._catch_up_handle is not None and upto is None:
            self._catch_up_handle.cancel()
            self._catch_up_handle = None
        if self._loaded is None and self._engine is None:
            self._start_loading_then_catch_up()
            return
        for uri in self._events.before(upto):
            kind = self.pending[uri]
            self._events.processed(uri)
            updated = self.update(uri) if kind == "change" else True
            if updated and (self.engine.pin is None or self.pinned_uri() == uri):
                self.emit()

    def pinned_uri(self) -> str | None:
        pin = self.engine.pin
        hit = self.engine.find(*pin) if pin else None
        return hit[0].uri if hit else None


def _exists(uri: str) -> bool:
    path = uri_to_path(uri)
    return True if path is None else path.exists()
