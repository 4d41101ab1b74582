"""LSP edge of markers: ``tether/markers/create|list|update|delete`` and ``textDocument/codeLens``.

Converts LSP ranges (negotiated encoding) to the engine's 1-based character locations and back, reads the
current text from the open buffer or from disk, and maps failures to the protocol's errors (docs/protocol.md).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.files import uri_to_path
from tether_lsp.server.hooks import DocumentEvent
from tether_lsp.server.lazy import lazy_module
from tether_lsp.server.methods import Feature, Method, Notice
from tether_lsp.server.positions import Encoding, Pos

if TYPE_CHECKING:
    from . import service
else:  # loaded on first use (it brings SQLAlchemy)
    service = lazy_module(f"{__package__}.service")
from .convert import to_positions
from .first_list import FirstList, Listed, QuickLocated
from .settings import MarkersSettings
from .sqlite_watch import SqliteWatch
from .state import MarkersState
from .wire import (
    CreateParams,
    DidChangeMarkers,
    FileMarkers,
    IdParams,
    ListParams,
    Marker,
    MarkerList,
    UpdateParams,
    WorkspaceMarkers,
    WorkspaceParams,
)

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer
    from tether_lsp.server.storage import Migration


def to_marker(item: service.Located | QuickLocated, text: str | None, encoding: Encoding) -> Marker:
    """The service's located marker on the wire: its range in the client's encoding."""
    record = item.record
    located = item.location is not None and text is not None
    return Marker(
        id=record.id,
        uri=record.uri,
        range=_range(*to_positions(text, item.location, encoding))
        if located and item.location and text is not None
        else None,
        note=record.note,
        kind=record.kind,
        code=record.code,
        commit_hash_when_created=record.commit_hash_when_created,
        created_at=item.created_at,
        author=record.author,
        status="located" if located else "missing",
        content_changed=item.content_changed,
        missing_reason=None if located else item.missing_reason,
    )


GIT_WATCHERS = ("**/.git/HEAD", "**/.git/logs/HEAD", "**/.git/refs/**")


async def located_now(m: Markers, uri: str, last_known: bool = False) -> tuple[str | None, list[service.Located]]:
    """Where the markers of ``uri`` are now (:meth:`MarkersState.located`), after, on SQLite, the watch dropped
    the caches of the files another process wrote to since (:mod:`.sqlite_watch`)."""
    opened = m.server.databases.opened  # else the check would wait for the database to open, as the answer does
    await m.watch.before_answer(uri, m.server.document(uri) is not None, wait=opened)
    return await m.state.located(uri, last_known=last_known)


def _open_text(ls: TetherServer, uri: str) -> str | None:
    snapshot = ls.snapshot(uri)
    return snapshot.doc.string if snapshot is not None else None


def _span(r: types.Range) -> tuple[Pos, Pos]:
    return Pos(r.start.line, r.start.character), Pos(r.end.line, r.end.character)


def _range(start: Pos, end: Pos) -> types.Range:
    return types.Range(start=types.Position(start.line, start.character), end=types.Position(end.line, end.character))


async def create(m: Markers, params: CreateParams) -> Marker:
    """Pin a note to a range of a file."""
    ls, state = m.server, m.state
    uri, kind = params.text_document.uri, service.check_kind(params.kind)
    request = MarkersState.Placing(uri, _open_text(ls, uri), _span(params.range), ls.encoding, "textDocument.uri")
    item, text = await ls.run_blocking(state.create, request, params.note, kind)
    return to_marker(item, text, ls.encoding)


async def list_markers(m: Markers, params: ListParams) -> MarkerList:
    """Every marker of a file where its code is now: located ones in document order, then missing ones (a
    session's first lists are answered from the stored locations when those are the answer)."""
    uri = params.text_document.uri
    listed: Listed | None = await m.first.answer(uri)
    text, located = listed if listed is not None else await located_now(m, uri, last_known=True)
    return MarkerList([to_marker(item, text, m.server.encoding) for item in located])


async def list_workspace(m: Markers, params: WorkspaceParams) -> WorkspaceMarkers:
    """Every file with markers under the workspace folder (or `under`), each with its markers as `list` gives them."""
    ls = m.server
    root = params.under or (ls.workspace_root.as_uri() if ls.workspace_root is not None else None)
    if root is None:
        raise InvalidParams("under", "the server has no workspace folder: give the folder's uri")
    if not root.startswith("file:"):
        raise InvalidParams("under", f"expected a file: uri, got {root[:80]!r}")
    uris = await m.state.workspace_files(root.rstrip("/") + "/")
    files = []
    for uri in sorted(uris):
        listed = await list_markers(m, ListParams(types.TextDocumentIdentifier(uri)))
        if listed.markers:
            files.append(FileMarkers(uri, listed.markers))
    return WorkspaceMarkers(files)


async def update(m: Markers, params: UpdateParams) -> Marker:
    """Change a marker's note or kind, or move it by hand (possibly to another file)."""
    ls, state = m.server, m.state
    if params.text_document is not None and params.range is None:
        raise InvalidParams("range", "required when textDocument is given (where in that document?)")
    request = None
    if params.range is not None:
        uri = params.text_document.uri if params.text_document else (await ls.run_blocking(state.get, params.id)).uri
        request = MarkersState.Placing(uri, _open_text(ls, uri), _span(params.range), ls.encoding, "textDocument.uri")
    _before, record = await ls.run_blocking(state.update, params.id, params.note, params.kind, request)
    text, located = await located_now(m, record.uri)
    item = next(i for i in located if i.record.id == record.id)
    return to_marker(item, text, ls.encoding)


async def delete(m: Markers, params: IdParams) -> None:
    """Delete a marker."""
    await m.server.run_blocking(m.state.delete, params.id)


async def code_lens(m: Markers, params: types.CodeLensParams) -> list[types.CodeLens]:
    """One lens per located marker, on its first line, titled with its note."""
    text, located = await located_now(m, params.text_document.uri)
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


def watched(m: Markers, params: types.DidChangeWatchedFilesParams) -> None:
    """Notice commits, checkouts and files changed on disk (recompute markers, then `tether/markers/didChange`)."""
    state = m.state
    roots = set()
    for change in params.changes:
        path = uri_to_path(change.uri)
        if path is not None and ".git" in path.parts:
            roots.add(Path(*path.parts[: path.parts.index(".git")]))
    for root in roots:
        state.request_sync(root)


async def watch_git(ls: TetherServer, state: MarkersState) -> None:
    """After ``initialized``: the workspace repository's HEAD, team-mode LISTEN, and watchers on ``.git``."""
    if ls.workspace_root is not None:
        await ls.run_blocking(state.first_look, ls.workspace_root)
    await state.start_listening()
    caps = ls.client_capabilities.workspace
    watched_caps = caps.did_change_watched_files if caps else None
    if not (watched_caps and watched_caps.dynamic_registration):
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


def _migrations() -> Sequence[Migration]:
    """The markers tables' steps (the store module, and SQLAlchemy, load when a database opens)."""
    from .store import MIGRATIONS

    return MIGRATIONS


class Markers:
    """The markers feature's context: the server and its one :class:`MarkersState` (shared by every request)."""

    def __init__(self, server: TetherServer) -> None:
        server.register_storage("markers", _migrations)
        server.register_settings("markers", MarkersSettings)
        self.server = server
        self.state = state = MarkersState(server)

        def tell(message: str, trouble: bool) -> None:
            kind = types.MessageType.Warning if trouble else types.MessageType.Info
            server.window_show_message(types.ShowMessageParams(type=kind, message=message))

        state.team.tell = tell

        def notify_changed(uris: list[str]) -> None:
            if uris:
                server.protocol.notify("tether/markers/didChange", DidChangeMarkers(sorted(set(uris))))

        self.watch = watch = SqliteWatch(server, state, notify_changed)
        self.first = FirstList(
            state,
            lambda uri: located_now(self, uri, last_known=True),
            lambda uri: _open_text(server, uri),
            lambda: server.databases.opened,
        )

        def written(uris: list[str]) -> None:
            watch.written(*uris)
            self.first.written(uris)

        state.on_written = written
        state.open_document = server.document

        def on_document(event: DocumentEvent) -> None:
            if event.kind in ("save", "close"):
                state.buffer.pop(event.uri, None)  # a save recomputes from the committed text
            if event.kind == "close":
                watch.closed(event.uri)

        async def initialized(ls: TetherServer) -> None:
            watch.start()
            await watch_git(ls, state)

        state.on_change = notify_changed
        server.on_document(on_document)
        server.on_settings(state.on_settings)
        server.on_settings(watch.on_settings)
        server.on_initialized(initialized)
        server.on_shutdown_begin(watch.stop)
        server.on_shutdown(watch.close)
        server.on_shutdown(state.close)


FEATURE = Feature(
    "markers",
    setup=Markers,
    methods=[
        Method("tether/markers/create", create, CreateParams, Marker, runs="async"),
        Method("tether/markers/list", list_markers, ListParams, MarkerList, runs="async", cancellable=True),
        Method(
            "tether/markers/listWorkspace",
            list_workspace,
            WorkspaceParams,
            WorkspaceMarkers,
            runs="async",
            cancellable=True,
        ),
        Method("tether/markers/update", update, UpdateParams, Marker, runs="async"),
        Method("tether/markers/delete", delete, IdParams, None, runs="async"),
        Method(types.TEXT_DOCUMENT_CODE_LENS, code_lens, runs="async", cancellable=True),
        Method(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, watched, notification=True),
    ],
    sends=[Notice("tether/markers/didChange", DidChangeMarkers)],
)
