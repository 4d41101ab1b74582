"""Streaming edits as a service: a model's change is written into an open document while the model still
writes it (begin, then cumulative updates, then end), in plain Python values.

What it needs from the front it serves (the LSP glue writes through ``workspace/applyEdit`` and sends
``tether/edits/didUpdate``; another front may write and tell in its own way) is the small :class:`Front`.
Spans are byte offsets of the document's current text; the front turns them into its own positions.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from typing import Protocol

from tether_lsp.server.documents import Document
from tether_lsp.server.errors import InvalidParams

from .resolve import EditRequest, Options, Text, resolve_one
from .stream import Stream, Write

log = logging.getLogger(__name__)

#: The statuses after which a stream writes nothing more.
FINAL = ("conflict", "notFound", "ambiguous", "deleted", "done", "reverted")


@dataclass(frozen=True)
class StreamState:
    """A stream's status and, while it is placed on the current version of ``uri``, where its text is (byte
    offsets of that version's text; None otherwise)."""

    edit_id: str
    uri: str
    status: str
    span: tuple[int, int] | None = None


class Front(Protocol):
    """What the streamer needs from the front it serves."""

    def document(self, uri: str) -> Document | None:
        """The open document ``uri`` (None when it is not open)."""

    def idle_seconds(self) -> float:
        """How long a stream may wait for its next update before it is dropped."""

    async def write(self, doc: Document, start: int, end: int, text: str) -> bool:
        """Have the editor replace bytes ``start:end`` of ``doc``'s current text with ``text`` (its current
        version is taken before the first wait); False when the edit was refused or failed."""

    def changed(self, state: StreamState) -> None:
        """A stream's status or place changed (for the editor's decorations)."""


class Streamer:
    """The streaming edits of one server: begin / update / end.

    A stream that is abandoned (its document closed, or no update for the front's ``idle_seconds``) is
    dropped: its pinned base version is released and the front is told ``conflict`` if it had not finished.
    """

    def __init__(self, front: Front) -> None:
        self.front = front
        self.streams: dict[str, tuple[Stream, asyncio.Lock]] = {}
        self._idle: dict[str, asyncio.TimerHandle] = {}

    def _touch(self, edit_id: str) -> None:
        """Loop: (re)start the stream's idle timer."""
        if (timer := self._idle.pop(edit_id, None)) is not None:
            timer.cancel()
        seconds = self.front.idle_seconds()
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
        doc = self.front.document(stream.uri)
        if doc is not None:
            doc.unpin(stream.base_version)
        log.info("inline edit %s ended: %s", edit_id, why)
        self.front.changed(StreamState(edit_id, stream.uri, stream.status))

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
        doc = self.front.document(stream.uri)
        placed = doc is not None and stream.resolved and stream.synced == doc.version
        span = (stream.start, stream.end) if placed else None
        return StreamState(edit_id, stream.uri, stream.status, span)

    def report(self, edit_id: str, stream: Stream) -> StreamState:
        state = self.state(edit_id, stream)
        self.front.changed(state)
        return state

    async def write(self, stream: Stream, doc: Document, change: Write) -> bool:
        stream.pending.append(change)
        if not await self.front.write(doc, change.start, change.end, change.text.decode("utf-8")):
            stream.pending.remove(change)
            return False
        stream.follow(doc.versions())
        return True

    def begin(self, uri: str, base_version: int) -> str:
        """Start a stream on ``base_version``, in the server's order of versions (not the client's numbers)."""
        doc = self.front.document(uri)
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
            doc = self.front.document(stream.uri)
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
        request = EditRequest("s", old_text, "")
        found = resolve_one(Text(base.text), Text(doc.current.text), edits, request, Options())
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
            doc = self.front.document(stream.uri)
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
