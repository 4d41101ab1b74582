"""LSP edge of markers: ``tether/markers/create|list|update|delete`` and ``textDocument/codeLens``.

Converts LSP ranges (negotiated encoding) to the engine's 1-based character locations and back, reads the
current text from the open buffer or from disk, and maps failures to PROTOCOL.md's errors.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
from lsprotocol import types

from tether_lsp.server.app import DocumentEvent
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.files import FileRefused, read_text, uri_to_path
from tether_lsp.server.positions import Encoding, LineIndex, Pos, PositionOutOfRange
from tether_lsp.server.settings import LimitSettings
from tether_lsp.server.storage import StorageError

from . import git, service
from .buffer import edits_between, shift
from .calculator import Location, block_of_lines, split_lines
from .state import MarkersState

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer


@attrs.define
class CreateParams:
    text_document: types.TextDocumentIdentifier
    range: types.Range
    note: str
    kind: str = "comment"


@attrs.define
class ListParams:
    text_document: types.TextDocumentIdentifier


@attrs.define
class UpdateParams:
    id: str
    note: str | None = None
    kind: str | None = None
    range: types.Range | None = None
    text_document: types.TextDocumentIdentifier | None = None


@attrs.define
class IdParams:
    id: str


@attrs.define
class Marker:
    id: str
    uri: str
    range: types.Range | None
    note: str
    kind: str
    code: str
    commit_hash_when_created: str | None
    created_at: str
    author: str
    status: str
    content_changed: bool
    missing_reason: str | None = attrs.field(default=None, metadata={"omit_none": True})


@attrs.define
class MarkerList:
    markers: list[Marker]


def current_text(ls: TetherServer, uri: str) -> str | None:
    """The open buffer's text, else the file on disk, else None; -32602 naming the uri for a file that must
    not be read (not a regular file, too large)."""
    snapshot = ls.snapshot(uri)
    if snapshot is not None:
        return snapshot.doc.string
    path = uri_to_path(uri)
    if path is None:
        return None
    try:
        return read_text(path, ls.settings.section(LimitSettings).maxFileBytes)
    except FileRefused as exc:
        raise InvalidParams("textDocument.uri", f"{uri}: {exc}", kind="fileRefused", uri=uri) from exc
    except OSError:
        return None


def to_location(text: str, r: types.Range, encoding: Encoding) -> Location:
    """An LSP range inside ``text`` as a 1-based character location; -32602 naming ``range`` otherwise."""
    data = text.encode("utf-8")
    index = LineIndex(data)
    try:
        start = index.offset_of(Pos(r.start.line, r.start.character), encoding, strict=True)
        end = index.offset_of(Pos(r.end.line, r.end.character), encoding, strict=True)
    except PositionOutOfRange as exc:
        raise InvalidParams("range", f"outside the document: {exc}") from exc
    if end < start:
        raise InvalidParams("range", "the end comes before the start")

    def point(offset: int) -> tuple[int, int]:
        line = index.line_of(offset)
        return line + 1, len(data[index.starts[line] : offset].decode("utf-8", errors="replace")) + 1

    (ls_, cs), (le, ce) = point(start), point(end)
    return Location(ls_, cs, le, ce)


def to_range(text: str, loc: Location, encoding: Encoding) -> types.Range:
    data = text.encode("utf-8")
    index = LineIndex(data)

    def offset(line: int, column: int) -> int:
        start, end = index.line_bounds(line - 1)
        chars = data[start:end].decode("utf-8", errors="replace")[: column - 1]
        return start + len(chars.encode("utf-8"))

    a = index.position_of(offset(loc.line_start, loc.col_start), encoding)
    b = index.position_of(offset(loc.line_end, loc.col_end), encoding)
    return types.Range(start=types.Position(a.line, a.character), end=types.Position(b.line, b.character))


def to_marker(item: service.Located, text: str | None, encoding: Encoding) -> Marker:
    record = item.record
    located = item.location is not None and text is not None
    return Marker(
        id=record.id,
        uri=record.uri,
        range=to_range(text, item.location, encoding) if located and item.location and text is not None else None,
        note=record.note,
        kind=record.kind,
        code=record.code,
        commit_hash_when_created=record.commit_hash_when_created,
        created_at=record.created_at.isoformat().replace("+00:00", "Z"),
        author=record.author,
        status="located" if located else "missing",
        content_changed=item.content_changed,
        missing_reason=None if located else item.missing_reason,
    )


@attrs.define
class DidChangeMarkers:
    """Markers of these files moved for a reason other than the client's own request: list them again."""

    uris: list[str]


GIT_WATCHERS = ("**/.git/HEAD", "**/.git/logs/HEAD", "**/.git/refs/**")


def located_now(ls: TetherServer, state: MarkersState, uri: str) -> tuple[str | None, list[service.Located]]:
    """The current text of ``uri`` and its markers located in it (cached per version while typing)."""
    snapshot = ls.snapshot(uri)
    repo = state.repo_of(uri)
    head = state.sync_head(repo) if repo is not None else None
    if snapshot is not None:
        cached = state.buffer.get(uri)
        if cached is not None and cached.head == head:
            if cached.version == snapshot.doc.version:
                return snapshot.doc.string, cached.located
            fast = _fast_path(ls, uri, cached, snapshot.doc.string)
            if fast is not None:
                state.remember(uri, snapshot.doc.version, head, fast)
                return snapshot.doc.string, fast
    text = current_text(ls, uri)
    located = state.locate(uri, text, repo, head)
    if snapshot is not None:
        state.remember(uri, snapshot.doc.version, head, located)
    return text, located


def _fast_path(ls: TetherServer, uri: str, cached: MarkersState.Cached, text: str) -> list[service.Located] | None:
    """Carry cached locations through the exact didChange edits; None when a full recomputation is needed."""
    doc = ls.document(uri)
    if doc is None or "\r" in text:
        return None
    edits = edits_between(doc.versions(), cached.version)
    if edits is None:
        return None
    lines = split_lines(text)
    out = []
    for item in cached.located:
        if item.location is None:
            out.append(item)
            continue
        moved = shift(item.location, edits)
        if moved is None or moved.line_end > len(lines):
            return None
        code = block_of_lines(lines, moved)
        out.append(service.Located(item.record, moved, code != item.record.code, None))
    return out


def register(server: TetherServer) -> None:
    state = MarkersState(server)
    server.sends("tether/markers/didChange", DidChangeMarkers)

    def notify_changed(uris: list[str]) -> None:
        if uris:
            server.protocol.notify("tether/markers/didChange", DidChangeMarkers(sorted(set(uris))))

    state.on_change = notify_changed

    async def watch_git(ls: TetherServer) -> None:
        if ls.workspace_root is not None:
            repo = git.locate_file(ls.workspace_root / "x")
            if repo is not None:
                state.heads[str(repo.root)] = git.head(repo.root)
        state.start_listening()
        caps = ls.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        if not (watched and watched.dynamic_registration):
            return  # the per-request HEAD check still notices
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=g) for g in GIT_WATCHERS]
        )
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="tether-git-head",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=options,
                        )
                    ]
                )
            )
        except Exception as exc:
            log.info("client refused the .git watchers (%s): HEAD is checked on each request instead", exc)

    server.initialized_hooks.append(watch_git)
    server.shutdown_hooks.append(state.close)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched(ls: TetherServer, params: types.DidChangeWatchedFilesParams) -> None:
        """Notice commits, checkouts and files changed on disk (recompute markers, then `tether/markers/didChange`)."""
        roots = set()
        for change in params.changes:
            path = uri_to_path(change.uri)
            if path is not None and ".git" in path.parts:
                roots.add(Path(*path.parts[: path.parts.index(".git")]))
        for root in roots:
            repo = git.locate_file(root / "x")
            if repo is not None:
                await state.sync_head_with_progress(repo)

    def on_document(event: DocumentEvent) -> None:
        if event.kind in ("save", "close"):
            state.buffer.pop(event.uri, None)  # full recomputation on save (MARKERS.md)

    server.document_listeners.append(on_document)

    def text_or_error(ls: TetherServer, uri: str, field: str) -> str:
        text = current_text(ls, uri)
        if text is None:
            raise InvalidParams(field, f"{uri} is neither open nor a readable file", kind="unknownDocument")
        return text

    def place(ls: TetherServer, uri: str, r: types.Range, field: str) -> service.Place:
        text = text_or_error(ls, uri, field)
        loc = to_location(text, r, ls.encoding)
        repo = state.repo_of(uri)
        if repo is None:
            return service.Place(uri, text, loc)
        head = state.sync_head(repo)
        committed = state.committed_text(repo, head) if head else None
        return service.Place(uri, text, loc, True, head, committed)

    @server.handler("tether/markers/create", CreateParams, Marker)
    def create(ls: TetherServer, params: CreateParams) -> Marker:
        """Pin a note to a range of a file."""
        uri = params.text_document.uri
        kind = service.check_kind(params.kind)
        where = place(ls, uri, params.range, "textDocument.uri")
        repo = state.repo_of(uri) if where.in_git else None
        author = service.default_author(git.user_name(repo.root) if repo is not None else None)
        item = service.create(state.markers(), where, params.note, kind, author, state.local())
        state.forget(uri)
        return to_marker(item, where.text, ls.encoding)

    @server.handler("tether/markers/list", ListParams, MarkerList)
    def list_markers(ls: TetherServer, params: ListParams) -> MarkerList:
        """Every marker of a file where its code is now: located ones in document order, then missing ones."""
        uri = params.text_document.uri
        try:
            if state.follow_working_tree_renames(uri):
                state.forget(uri)
            text, located = located_now(ls, state, uri)
        except StorageError:
            cached, snapshot = state.buffer.get(uri), ls.snapshot(uri)
            if cached is None or snapshot is None:
                raise
            text = snapshot.doc.string
            carried = cached.located if cached.version == snapshot.doc.version else _fast_path(ls, uri, cached, text)
            if carried is None:
                raise
            log.warning("markers: the database failed; serving the last locations known for %s", uri)
            located = carried
        return MarkerList([to_marker(item, text, ls.encoding) for item in located])

    @server.handler("tether/markers/update", UpdateParams, Marker)
    def update(ls: TetherServer, params: UpdateParams) -> Marker:
        """Change a marker's note or kind, or move it by hand (possibly to another file)."""
        placed = None
        markers = state.markers()
        before = service.require(markers, params.id)
        if params.range is not None:
            uri = params.text_document.uri if params.text_document else before.uri
            placed = place(ls, uri, params.range, "textDocument.uri")
        elif params.text_document is not None:
            raise InvalidParams("range", "required when textDocument is given (where in that document?)")
        record = service.update(
            markers, params.id, note=params.note, kind=params.kind, placed=placed, local=state.local()
        )
        state.forget(before.uri, record.uri)
        text, located = located_now(ls, state, record.uri)
        item = next(i for i in located if i.record.id == record.id)
        return to_marker(item, text, ls.encoding)

    @server.handler("tether/markers/delete", IdParams, None)
    def delete(ls: TetherServer, params: IdParams) -> None:
        """Delete a marker."""
        record = service.require(state.markers(), params.id)
        service.delete(state.markers(), params.id)
        state.local().remove(params.id)
        state.forget(record.uri)

    @server.handler(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: TetherServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        """One lens per located marker, on its first line, titled with its note."""
        uri = params.text_document.uri
        if state.follow_working_tree_renames(uri):
            state.forget(uri)
        text, located = located_now(ls, state, uri)
        if text is None:
            return []
        lenses = []
        for item in located:
            if item.location is None:
                continue
            line = item.location.line_start - 1
            title = (item.record.note.splitlines() or [""])[0][:80] or f"({item.record.kind})"
            lenses.append(
                types.CodeLens(
                    range=types.Range(start=types.Position(line, 0), end=types.Position(line, 0)),
                    command=types.Command(title=title, command="tether.markers.show", arguments=[item.record.id]),
                )
            )
        return lenses
