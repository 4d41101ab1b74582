"""LSP edge of inline edits (PROTOCOL.md §5): ``tether/edits/resolve`` and the streaming
``tether/edits/begin`` / ``update`` / ``end`` with ``workspace/applyEdit`` and ``tether/edits/didUpdate``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

import attrs
from lsprotocol import types

from tether_lsp.server.app import DocumentEvent
from tether_lsp.server.documents import Document, TextVersion
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import lsp_range
from tether_lsp.server.settings import setting

from .resolve import EditRequest, Options, Resolution, Text, resolve_all, resolve_one
from .stream import Stream, Write

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

log = logging.getLogger(__name__)

OMIT = {"omit_none": True}  # optional fields are left out of the JSON, not sent as null


@attrs.define
class DocumentRef:
    uri: str


@attrs.define
class ResolveOptions:
    fuzzy: bool | None = None
    min_similarity: float | None = None
    reindent: bool | None = None
    on_user_edit: str | None = None


@attrs.define
class EditItem:
    old_text: str
    new_text: str
    id: str | None = None


@attrs.define
class ResolveParams:
    text_document: DocumentRef
    base_version: int
    edits: list[EditItem]
    options: ResolveOptions | None = None


@attrs.define
class Match:
    kind: str
    similarity: float


@attrs.define
class EditResult:
    id: str
    status: str
    range: types.Range | None = attrs.field(default=None, metadata=OMIT)
    new_text: str | None = attrs.field(default=None, metadata=OMIT)
    match: Match | None = attrs.field(default=None, metadata=OMIT)
    candidates: list[types.Range] | None = attrs.field(default=None, metadata=OMIT)
    notes: list[str] | None = attrs.field(default=None, metadata=OMIT)


@attrs.define
class ResolveResult:
    version: int
    edits: list[EditResult]


@attrs.define
class BeginParams:
    text_document: DocumentRef
    base_version: int


@attrs.define
class BeginResult:
    edit_id: str


@attrs.define
class UpdateParams:
    edit_id: str
    old_text: str
    old_text_final: bool
    new_text: str
    new_text_final: bool


@attrs.define
class StreamStatus:
    status: str
    range: types.Range | None = attrs.field(default=None, metadata=OMIT)


@attrs.define
class EndParams:
    edit_id: str
    action: str = "keep"


@attrs.define
class DidUpdate:
    """A stream's status or range changed (for decorations)."""

    edit_id: str
    status: str
    range: types.Range | None = attrs.field(default=None, metadata=OMIT)


def open_document(ls: TetherServer, uri: str) -> Document:
    doc = ls.document(uri)
    if doc is None:
        raise InvalidParams("textDocument.uri", f"{uri} is not open", kind="unknownDocument")
    return doc


def base_of(doc: Document, base_version: int) -> TextVersion:
    """The kept version a model saw, named by the client's number (the newest kept version with that number:
    a client that reused a number means its latest text by it)."""
    found = doc.find(base_version)
    if found is not None:
        return found
    if base_version > doc.client_version:
        raise InvalidParams("baseVersion", f"{base_version} is newer than the current version {doc.client_version}")
    raise InvalidParams(
        "baseVersion",
        f"version {base_version} is no longer kept (dropped by {doc.last_eviction or 'the history limits'}); "
        f"the oldest version kept is {doc.versions()[0].client_version}",
    )


def options_of(given: ResolveOptions | None) -> Options:
    if given is None:
        return Options()
    if given.on_user_edit not in (None, "merge", "refuse"):
        raise InvalidParams("options.onUserEdit", f"expected merge or refuse, got {given.on_user_edit!r}")
    if given.min_similarity is not None and not 0 <= given.min_similarity <= 1:
        raise InvalidParams("options.minSimilarity", f"must lie in [0, 1], got {given.min_similarity}")
    default = Options()
    return Options(
        fuzzy=default.fuzzy if given.fuzzy is None else given.fuzzy,
        min_similarity=default.min_similarity if given.min_similarity is None else given.min_similarity,
        reindent=default.reindent if given.reindent is None else given.reindent,
        on_user_edit=given.on_user_edit or default.on_user_edit,
    )


def check_overlaps(results: list[Resolution]) -> None:
    spans = sorted(
        (r.base_span, k) for k, r in enumerate(results) if r.base_span is not None and r.status == "resolved"
    )
    for (a, i), (b, j) in itertools.pairwise(spans):
        if b[0] < a[1] or (a[0] == a[1] == b[0] == b[1]):
            first, second = sorted((i, j))
            raise InvalidParams("edits", f"the targets of edits[{first}] and edits[{second}] overlap")


def register(server: TetherServer) -> None:
    server.register_settings("edits", EditSettings)

    @server.handler("tether/edits/resolve", ResolveParams, ResolveResult)
    def resolve(ls: TetherServer, params: ResolveParams) -> ResolveResult:
        """Place edits a model made on `baseVersion` onto the current version (no side effects)."""
        doc = open_document(ls, params.text_document.uri)
        base = base_of(doc, params.base_version)
        options = options_of(params.options)
        for k, item in enumerate(params.edits):
            if not item.old_text and base.text:
                raise InvalidParams(f"edits[{k}].oldText", "empty, but the base document is not (where would it go?)")
        requests = [EditRequest(item.id or str(k), item.old_text, item.new_text) for k, item in enumerate(params.edits)]
        edits = list(doc.edits_since(base.version) or [])
        results = resolve_all(base.text, doc.current.text, edits, requests, options)
        check_overlaps(results)
        index, encoding = doc.current.index, ls.encoding

        def rng(span: tuple[int, int]) -> types.Range:
            return lsp_range(index, span[0], span[1], encoding)

        out = []
        for r in results:
            resolved = r.status == "resolved" and r.span is not None
            out.append(
                EditResult(
                    id=r.id,
                    status=r.status,
                    range=rng(r.span) if r.span is not None else None,
                    new_text=r.new_text if resolved else None,
                    match=Match(*r.match) if r.match and resolved else None,
                    candidates=[rng(c) for c in r.candidates] or None,
                    notes=r.notes or None,
                )
            )
        return ResolveResult(doc.client_version, out)

    streamer = register_streaming(server)
    from .lsp_tasks import register as register_tasks

    register_tasks(server, streamer)


FINAL = ("conflict", "notFound", "ambiguous", "deleted", "done", "reverted")


@dataclass(frozen=True)
class EditSettings:
    """``tether.edits``: how long a streaming edit may wait for its next update."""

    streamIdleSeconds: float = setting(
        300.0,
        "A stream begun with `tether/edits/begin` and not updated or ended for this long is ended (its base "
        "version is released; what it wrote stays). Closing the document ends its streams too.",
        minimum=1,
    )


class Streamer:
    """The streaming edits of one server: begin / update / end, writing through ``workspace/applyEdit``.

    A stream that is abandoned (its document closed, or no update for ``streamIdleSeconds``) is dropped: its
    pinned base version is released and ``didUpdate`` reports ``conflict`` if it had not finished.
    """

    def __init__(self, server: TetherServer) -> None:
        self.ls = server
        self.streams: dict[str, tuple[Stream, asyncio.Lock]] = {}
        self._idle: dict[str, asyncio.TimerHandle] = {}

    def _touch(self, edit_id: str) -> None:
        """Loop: (re)start the stream's idle timer."""
        if (timer := self._idle.pop(edit_id, None)) is not None:
            timer.cancel()
        seconds = self.ls.settings.section(EditSettings).streamIdleSeconds
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
        doc = self.ls.document(stream.uri)
        if doc is not None:
            doc.unpin(stream.base_version)
        log.info("inline edit %s ended: %s", edit_id, why)
        self.ls.protocol.notify("tether/edits/didUpdate", DidUpdate(edit_id, stream.status, None))

    def on_document(self, event: DocumentEvent) -> None:
        if event.kind == "close":
            for edit_id, (stream, _lock) in list(self.streams.items()):
                if stream.uri == event.uri:
                    self.drop(edit_id, "its document was closed")

    def lookup(self, edit_id: str) -> tuple[Stream, asyncio.Lock]:
        found = self.streams.get(edit_id)
        if found is None:
            raise InvalidParams("editId", f"no streaming edit {edit_id!r} (ended, or never begun)", kind="unknownEdit")
        return found

    def current_range(self, stream: Stream) -> types.Range | None:
        doc = self.ls.document(stream.uri)
        if doc is None or not stream.resolved or stream.synced != doc.version:
            return None
        return lsp_range(doc.current.index, stream.start, stream.end, self.ls.encoding)

    def report(self, edit_id: str, stream: Stream) -> StreamStatus:
        rng = self.current_range(stream)
        self.ls.protocol.notify("tether/edits/didUpdate", DidUpdate(edit_id, stream.status, rng))
        return StreamStatus(stream.status, rng)

    async def write(self, stream: Stream, doc: Document, change: Write) -> bool:
        ls = self.ls
        index = doc.current.index
        edit = types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=stream.uri, version=doc.client_version),
            edits=[
                types.TextEdit(
                    range=lsp_range(index, change.start, change.end, ls.encoding),
                    new_text=change.text.decode("utf-8"),
                )
            ],
        )
        stream.pending.append(change)
        try:
            result = await ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(
                    edit=types.WorkspaceEdit(document_changes=[edit]), label="Tether: model edit"
                )
            )
        except Exception as exc:
            log.warning("inline edit: the client failed to apply an edit: %s", exc)
            stream.pending.remove(change)
            return False
        if not result.applied:
            stream.pending.remove(change)
            log.info("inline edit: the client refused an edit (%s); it is retried with the next update", result)
            return False
        stream.follow(doc.versions())
        return True

    def begin(self, uri: str, base_version: int) -> str:
        """Start a stream on ``base_version``, in the server's order of versions (see :func:`base_of` for the
        client's numbers)."""
        doc = open_document(self.ls, uri)
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

    async def update(self, params: UpdateParams) -> StreamStatus:
        stream, lock = self.lookup(params.edit_id)
        self._touch(params.edit_id)
        async with lock:
            if stream.status in FINAL:
                return StreamStatus(stream.status, self.current_range(stream))
            doc = self.ls.document(stream.uri)
            if doc is None:
                stream.status = "conflict"
                return self.report(params.edit_id, stream)
            stream.follow(doc.versions())
            if stream.status == "conflict":
                return self.report(params.edit_id, stream)
            if not params.old_text_final:
                return StreamStatus(stream.status, self.current_range(stream))
            if not stream.resolved and not self._resolve_target(stream, doc, params):
                return self.report(params.edit_id, stream)
            want = stream.desired(params.new_text, params.new_text_final)
            change = stream.next_write(want) if want is not None and not stream.pending else None
            if change is not None and await self.write(stream, doc, change):
                stream.status = "streaming"
            return self.report(params.edit_id, stream)

    @staticmethod
    def _resolve_target(stream: Stream, doc: Document, params: UpdateParams) -> bool:
        base = doc.get(stream.base_version)
        assert base is not None  # pinned
        edits = list(doc.edits_since(stream.base_version) or [])
        request = EditRequest("s", params.old_text, "")
        found = resolve_one(Text(base.text), Text(doc.current.text), edits, request, Options())
        if found.status != "resolved" or found.span is None:
            stream.status = found.status
            return False
        stream.start, stream.end = found.span
        stream.synced = doc.version
        stream.original = stream.written = doc.current.text[stream.start : stream.end]
        stream.resolved = True
        return True

    async def end(self, edit_id: str, action: str) -> StreamStatus:
        stream, lock = self.lookup(edit_id)
        async with lock:
            doc = self.ls.document(stream.uri)
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


def register_streaming(server: TetherServer) -> Streamer:
    streamer = Streamer(server)
    server.sends("tether/edits/didUpdate", DidUpdate)
    server.document_listeners.append(streamer.on_document)

    @server.handler("tether/edits/begin", BeginParams, BeginResult)
    def begin(ls: TetherServer, params: BeginParams) -> BeginResult:
        """Start streaming an edit made on `baseVersion` (the base version is kept until the stream ends)."""
        doc = open_document(ls, params.text_document.uri)
        return BeginResult(streamer.begin(doc.uri, base_of(doc, params.base_version).version))

    @server.handler("tether/edits/update", UpdateParams, StreamStatus)
    async def update(ls: TetherServer, params: UpdateParams) -> StreamStatus:
        """The target and replacement so far (cumulative); writes what is complete through `workspace/applyEdit`."""
        return await streamer.update(params)

    @server.handler("tether/edits/end", EndParams, StreamStatus)
    async def end(ls: TetherServer, params: EndParams) -> StreamStatus:
        """End a stream: keep what was written, or revert to the original text."""
        if params.action not in ("keep", "revert"):
            raise InvalidParams("action", f"expected keep or revert, got {params.action!r}")
        return await streamer.end(params.edit_id, params.action)

    return streamer
