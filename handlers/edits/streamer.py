"""Streaming edits as a service: a model's change is written into an open document while the model still
writes it (begin, then cumulative updates, then end), in plain Python values.

It runs on the process's :class:`~tether_lsp.server.host.Host` (settings, the loop) and writes into an
:class:`~.editor.Editor` (the LSP glue writes through ``workspace/applyEdit`` and sends
``tether/edits/didUpdate``). Spans are byte offsets of the document's current text; the editor turns them into
its own positions. A stream's target is placed like every model edit (:class:`.service.Batch`).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING

from tether_lsp.server.errors import InvalidParams

from .service import Batch, Options, Target
from .settings import EditSettings
from .stream import Stream, StreamState, Write

if TYPE_CHECKING:
    from tether_lsp.server.documents import Document
    from tether_lsp.server.host import Host

    from .editor import Editor

__all__ = ["FINAL", "StreamState", "Streamer"]

log = logging.getLogger(__name__)

#: The statuses after which a stream writes nothing more.
FINAL = ("conflict", "notFound", "ambiguous", "deleted", "done", "reverted")


class Streamer:
    """The streaming edits of one server: begin / update / end.

    A stream that is abandoned (its document closed, or no update for ``tether.edits.streamIdleSeconds``) is
    dropped: its pinned base version is released and the editor is told ``conflict`` if it had not finished.
    """

    #: The label of the streams' writes (the editor's undo entry).
    LABEL = "Tether: model edit"

    def __init__(self, host: Host, editor: Editor) -> None:
        self.host, self.editor = host, editor
        self.streams: dict[str, tuple[Stream, asyncio.Lock]] = {}
        self._idle: dict[str, asyncio.TimerHandle] = {}

    def _touch(self, edit_id: str) -> None:
        """Loop: (re)start the stream's idle timer."""
        if (timer := self._idle.pop(edit_id, None)) is not None:
            timer.cancel()
        seconds = self.host.settings.section(EditSettings).streamIdleSeconds
        self._idle[edit_id] = asyncio.get_running_loop().call_later(seconds, self.drop, edit_id, "idle")

    def drop(self, edit_id: str, why: str) -> None:
        """End an abandoned stream: keep what it wrote, release its base version, say so."""
        found = self.streams.pop(edit_id, None)
        if (timer := self._idle.pop(edit_id, None)) is not None:
            timer.cancel()
        if found is None:
            return
        stream, _lock = found
        if stream.status not in FINAL:
            stream.status = "conflict"
        doc = self.editor.document(stream.uri)
        if doc is not None:
            doc.unpin(stream.base_version)
        log.info("inline edit %s ended: %s", edit_id, why)
        self.editor.changed(StreamState(edit_id, stream.uri, stream.status))

    def closed(self, uri: str) -> None:
        """The document ``uri`` was closed: its streams end."""
        for edit_id, (stream, _lock) in list(self.streams.items()):
            if stream.uri == uri:
                self.drop(edit_id, "its document was closed")

    def lookup(self, edit_id: str) -> tuple[Stream, asyncio.Lock]:
        found = self.streams.get(edit_id)
        if found is None:
            raise InvalidParams("editId", f"no streaming edit {edit_id!r} (ended, or never begun)", kind="unknownEdit")
        return found

    def state(self, edit_id: str, stream: Stream) -> StreamState:
        """The stream as it stands, with its span only while it is placed on the current version."""
        doc = self.editor.document(stream.uri)
        placed = doc is not None and stream.resolved and stream.synced == doc.version
        span = (stream.start, stream.end) if placed else None
        return StreamState(edit_id, stream.uri, stream.status, span)

    def report(self, edit_id: str, stream: Stream) -> StreamState:
        state = self.state(edit_id, stream)
        self.editor.changed(state)
        return state

    async def write(self, stream: Stream, doc: Document, change: Write) -> bool:
        stream.pending.append(change)
        # the document's version and index are taken now, before the wait
        written = self.editor.write(
            doc.uri,
            doc.client_version,
            doc.current.index,
            change.start,
            change.end,
            change.text.decode("utf-8"),
            self.LABEL,
        )
        if not await written:
            stream.pending.remove(change)
            return False
        stream.follow(doc.versions())
        return True

    def begin(self, uri: str, base_version: int) -> str:
        """Start a stream on ``base_version``, in the server's order of versions (not the client's numbers)."""
        doc = self.editor.document(uri)
        if doc is None:
            raise InvalidParams("textDocument.uri", f"{uri} is not open", kind="unknownDocument")
        if not doc.pin(base_version):
            raise InvalidParams(
                "baseVersion",
                f"the version the model saw is no longer kept (dropped by {doc.last_eviction or 'the history limits'})",
            )
        edit_id = uuid.uuid4().hex[:12]
        stream = Stream(uri, base_version, synced=doc.version)
        stream.line_ending = "\r\n" if b"\r\n" in doc.current.text else "\n"
        self.streams[edit_id] = (stream, asyncio.Lock())
        self._touch(edit_id)
        return edit_id

    async def update(
        self, edit_id: str, old_text: str, old_text_final: bool, new_text: str, new_text_final: bool
    ) -> StreamState:
        """The target (``old_text``) and its replacement so far, both cumulative; what is complete is written."""
        stream, lock = self.lookup(edit_id)
        self._touch(edit_id)
        async with lock:
            if stream.status in FINAL:
                return self.state(edit_id, stream)
            doc = self.editor.document(stream.uri)
            if doc is None:
                stream.status = "conflict"
                return self.report(edit_id, stream)
            stream.follow(doc.versions())
            if stream.status == "conflict":
                return self.report(edit_id, stream)
            if not old_text_final:
                return self.state(edit_id, stream)
            if not stream.resolved and not self._resolve_target(stream, doc, old_text):
                return self.report(edit_id, stream)
            want = stream.desired(new_text, new_text_final)
            change = stream.next_write(want) if want is not None and not stream.pending else None
            if change is not None and await self.write(stream, doc, change):
                stream.status = "streaming"
            return self.report(edit_id, stream)

    @staticmethod
    def _resolve_target(stream: Stream, doc: Document, old_text: str) -> bool:
        base = doc.get(stream.base_version)
        assert base is not None  # pinned
        edits = list(doc.edits_since(stream.base_version) or [])
        found = Batch(base.text, doc.current.text, edits, Options()).place(Target("s", new_text="", old_text=old_text))
        if found.status != "resolved" or found.span is None:
            stream.status = found.status
            return False
        stream.start, stream.end = found.span
        stream.synced = doc.version
        stream.original = stream.written = doc.current.text[stream.start : stream.end]
        stream.resolved = True
        return True

    async def end(self, edit_id: str, action: str) -> StreamState:
        """End a stream: ``keep`` what was written, or ``revert`` to the original text."""
        stream, lock = self.lookup(edit_id)
        async with lock:
            doc = self.editor.document(stream.uri)
            if action == "revert" and doc is not None and stream.resolved and stream.status != "conflict":
                stream.follow(doc.versions())
                if stream.status != "conflict":
                    if stream.written != stream.original and not await self.write(
                        stream, doc, Write(stream.start, stream.end, stream.original)
                    ):
                        stream.status = "conflict"
                    else:
                        stream.status = "reverted"
            elif stream.status not in ("conflict", "notFound", "ambiguous", "deleted"):
                stream.status = "done"
            if doc is not None:
                doc.unpin(stream.base_version)
            self.streams.pop(edit_id, None)
            if (timer := self._idle.pop(edit_id, None)) is not None:
                timer.cancel()
            return self.report(edit_id, stream)
