"""LSP edge of markers: ``tether/markers/create|list|update|delete`` and ``textDocument/codeLens``.

Converts LSP ranges (negotiated encoding) to the engine's 1-based character locations and back, reads the
current text from the open buffer or from disk, and maps failures to PROTOCOL.md's errors.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

import attrs
from lsprotocol import types

from server.app import uri_to_path
from server.errors import InvalidParams
from server.positions import Encoding, LineIndex, Pos, PositionOutOfRange

from . import git, service
from .calculator import Location
from .store import MarkerRecord, MarkerStore

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from server.app import TetherServer


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
    """The open buffer's text, else the file on disk, else None."""
    snapshot = ls.snapshot(uri)
    if snapshot is not None:
        return snapshot.doc.string
    path = uri_to_path(uri)
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def follow_renames(ls: TetherServer, store: MarkerStore, uri: str) -> None:
    """Markers of files renamed (``git mv``, committed or staged) into ``uri`` move with them."""
    path = uri_to_path(uri)
    repo = git.locate_file(path) if path is not None else None
    if repo is None:
        return
    root_uri = repo.root.as_uri().rstrip("/") + "/"
    gone = [r for r in store.under(root_uri) if r.uri != uri and not _exists(r.uri)]
    if not gone:
        return
    cache: dict[str, dict[str, str]] = {}

    def renamed_to(record: MarkerRecord) -> str | None:
        since = record.commit_hash_when_created or "HEAD"
        if since not in cache:
            cache[since] = git.renames(repo.root, since)
        old = record.uri[len(root_uri) :]
        new = cache[since].get(unquote(old))
        # compare paths, not uri spellings (clients percent-encode differently)
        return uri if new and path is not None and (repo.root / new).resolve() == path.resolve() else None

    if service.follow_renames(store, uri, gone, renamed_to):
        log.info("markers followed a rename to %s", uri)


def _exists(uri: str) -> bool:
    path = uri_to_path(uri)
    return path is not None and path.exists()


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
    uris: list[str]


GIT_WATCHERS = ("**/.git/HEAD", "**/.git/logs/HEAD", "**/.git/refs/**")


def register(server: TetherServer) -> None:
    def store(ls: TetherServer) -> MarkerStore:
        return MarkerStore(ls.database())

    heads: dict[str, str | None] = {}  # repository root -> the HEAD we last told clients about

    def head_moved(ls: TetherServer, root: Path) -> None:
        """HEAD changed (commit, checkout, rebase): tell clients which files' markers may have moved."""
        key = str(root)
        now = git.head(root)
        if heads.get(key, now) == now:
            heads[key] = now
            return
        heads[key] = now
        uris = sorted({r.uri for r in store(ls).under(root.as_uri().rstrip("/") + "/")})
        if uris:
            ls.protocol.notify("tether/markers/didChange", DidChangeMarkers(uris))

    async def watch_git(ls: TetherServer) -> None:
        if ls.workspace_root is not None:
            repo = git.locate_file(ls.workspace_root / "x")
            if repo is not None:
                heads[str(repo.root)] = git.head(repo.root)
        caps = ls.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        if not (watched and watched.dynamic_registration):
            return  # the per-request HEAD check below still notices
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

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: TetherServer, params: types.DidChangeWatchedFilesParams) -> None:
        roots = set()
        for change in params.changes:
            path = uri_to_path(change.uri)
            if path is not None and ".git" in path.parts:
                roots.add(Path(*path.parts[: path.parts.index(".git")]))
        for root in roots:
            head_moved(ls, root)

    def check_head(ls: TetherServer, uri: str) -> None:
        path = uri_to_path(uri)
        repo = git.locate_file(path) if path is not None else None
        if repo is not None:
            head_moved(ls, repo.root)

    def text_or_error(ls: TetherServer, uri: str, field: str) -> str:
        text = current_text(ls, uri)
        if text is None:
            raise InvalidParams(field, f"{uri} is neither open nor a readable file", kind="unknownDocument")
        return text

    @server.handler("tether/markers/create", CreateParams, Marker)
    def create(ls: TetherServer, params: CreateParams) -> Marker:
        uri = params.text_document.uri
        text = text_or_error(ls, uri, "textDocument.uri")
        loc = to_location(text, params.range, ls.encoding)
        kind = service.check_kind(params.kind)
        commit, git_user = None, None
        path = uri_to_path(uri)
        repo = git.locate_file(path) if path is not None else None
        if repo is not None:
            head = git.head(repo.root)
            committed = git.show(repo.root, head, repo.path) if head else None
            commit = service.committed_commit(text, loc, committed, head)
            git_user = git.user_name(repo.root)
        author = service.default_author(git_user)
        item = service.create(store(ls), uri, text, loc, params.note, kind, author, commit)
        return to_marker(item, text, ls.encoding)

    @server.handler("tether/markers/list", ListParams, MarkerList)
    def list_markers(ls: TetherServer, params: ListParams) -> MarkerList:
        uri = params.text_document.uri
        check_head(ls, uri)
        markers = store(ls)
        follow_renames(ls, markers, uri)
        text = current_text(ls, uri)
        return MarkerList([to_marker(item, text, ls.encoding) for item in service.list_for(markers, uri, text)])

    @server.handler("tether/markers/update", UpdateParams, Marker)
    def update(ls: TetherServer, params: UpdateParams) -> Marker:
        placed = None
        if params.range is not None:
            uri = params.text_document.uri if params.text_document else service.require(store(ls), params.id).uri
            text = text_or_error(ls, uri, "textDocument.uri")
            placed = (uri, text, to_location(text, params.range, ls.encoding))
        elif params.text_document is not None:
            raise InvalidParams("range", "required when textDocument is given (where in that document?)")
        record = service.update(store(ls), params.id, note=params.note, kind=params.kind, placed=placed)
        now = current_text(ls, record.uri)
        return to_marker(service.locate(record, now), now, ls.encoding)

    @server.handler("tether/markers/delete", IdParams, None)
    def delete(ls: TetherServer, params: IdParams) -> None:
        service.delete(store(ls), params.id)

    @server.handler(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: TetherServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        text = current_text(ls, uri)
        if text is None:
            return []
        markers = store(ls)
        follow_renames(ls, markers, uri)
        lenses = []
        for item in service.list_for(markers, uri, text):
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
