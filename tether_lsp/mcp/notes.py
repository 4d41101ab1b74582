"""``notes``, ``note_add``, ``note_update``, ``note_delete``: the markers the editors show (``handlers/markers``),
as agents read and write them. A note is a marker: the same records, in the same database, located by the same
engine (``MarkersState.locate_now``), so an agent's note is in the editors' gutters and lists, and a person's
marker is in ``notes``.

Every tool calls the markers' one service API (``MarkersState``): ``note_add`` its ``create``, ``note_update`` and
``note_delete`` its ``update`` and ``delete`` (with ``tell``: the editor hears of an agent's change at once), ``notes``
its ``locate_now``; this module only turns arguments into its inputs and its ``service.Located`` into JSON.
A note's ``state`` is the one ``service.Located.state`` computes from where the engine finds it and where it is
stored (its reference: the text it was put on, outside git or before a commit; the last commit's text in git):

* ``fresh``: at its stored place, its block unchanged;
* ``moved``: its block unchanged, at other lines or columns (text was added or removed around it);
* ``changed``: its block was edited;
* ``missing``: not found, with ``missing_reason`` (``codeBlockDeleted``, ``fileDeleted``, the engine's other
  reasons).

The markers' service and store bring SQLAlchemy: they load on the first notes call, not at start-up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_lsp.handlers.markers.kinds import DEFAULT_KIND
from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.files import uri_to_path
from tether_lsp.server.lazy import lazy_module
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.span_carry import carry

from .args import Json, range_of, span
from .context import Answer, Context
from .files import FileText
from .read import node_span

if TYPE_CHECKING:
    from tether_lsp.handlers.markers import service
    from tether_lsp.handlers.markers import state as markers_state
    from tether_lsp.handlers.markers.calculator import Location
    from tether_lsp.handlers.markers.state import MarkersState
    from tether_lsp.handlers.markers.store import MarkerRecord
else:  # loaded on the first notes call (the service brings SQLAlchemy)
    markers_state = lazy_module("tether_lsp.handlers.markers.state")

#: The reason given for the notes of a file that is gone.
FILE_DELETED = "fileDeleted"
#: The reason given, in a folder's listing, for the notes of a file that cannot be read now (binary, too large).
FILE_UNREADABLE = "fileUnreadable"


@dataclass(frozen=True)
class FileNotes:
    """One file's notes, located in its text as the front reads it."""

    uri: str  # as the markers store names it
    shown: str
    notes: list[Json]


def _text(context: Context, real: Path, field: str, strict: bool) -> tuple[str | None, str | None]:
    """The file's text as this front reads it (None: gone), and the reason its notes are missing without it."""
    if not os.path.lexists(real):
        return None, FILE_DELETED
    try:
        return context.load(str(real), field).text.decode("utf-8"), None
    except InvalidParams:
        if strict:
            raise
        return None, FILE_UNREADABLE


def _range(loc: Location) -> Json:
    return {
        "start": {"line": loc.line_start, "column": loc.col_start},
        "end": {"line": loc.line_end, "column": loc.col_end},
    }


def _note(item: service.Located, shown: str, gone: str | None) -> Json:
    """The service's located marker as an agent's note (1-based lines and character columns)."""
    record = item.record
    note: Json = {
        "id": record.id,
        "path": shown,
        "kind": record.kind,
        "text": record.note,
        "author": record.author,
        "created_at": item.created_at,
        "state": item.state,
    }
    if item.location is not None:
        note["range"] = _range(item.location)
    else:
        note["missing_reason"] = gone or item.missing_reason or "unknown"
    return note


def file_notes(context: Context, uri: str, real: Path, shown: str, field: str, strict: bool = True) -> FileNotes:
    """The notes of one file, in document order (missing ones last), where the engine finds them now."""
    state = context.notes.state_of(real)
    text, gone = _text(context, real, field, strict)
    found = state.locate_now(uri, text, settled=True)
    if found.text is None and gone is None:
        gone = FILE_DELETED
    return FileNotes(uri, shown, [_note(item, shown, gone) for item in found.located])


def _folder(context: Context, given: str, field: str) -> Path:
    """The real path of a folder inside the roots (a root itself included)."""
    roots = context.files.roots
    if not given or "\x00" in given:
        raise InvalidParams(field, "expected a folder relative to a root (or absolute inside one)")
    candidates = [Path(given)] if os.path.isabs(given) else [root / given for root in roots.folders]
    existing = [c for c in candidates if os.path.isdir(c)]
    if not existing:
        raise InvalidParams(field, f"{given!r}: no such folder in the roots ({roots.describe()})")
    real = Path(os.path.realpath(existing[0]))
    if not any(real == root or real.is_relative_to(root) for root in roots.folders):
        raise InvalidParams(
            field, f"{given!r} resolves to {real}, outside the roots ({roots.describe()}): refused", kind="outsideRoots"
        )
    return real


def _files_under(context: Context, folders: list[Path]) -> list[tuple[str, Path, str]]:
    """The files under ``folders`` that hold markers: (their uri as stored, real path, shown name), by name."""
    roots = context.files.roots
    out: dict[str, tuple[str, Path, str]] = {}
    for folder in folders:
        state = context.notes.state_of(folder)
        for uri in state.files_with_markers(folder.as_uri().rstrip("/") + "/"):
            path = uri_to_path(uri)
            if path is None:
                continue
            try:
                real, shown = roots.resolve(str(path), "under")
            except InvalidParams:
                continue  # a symlink leading out of the roots
            out.setdefault(uri, (uri, real, shown))
    return sorted(out.values(), key=lambda f: (f[2], f[0]))


def _render(notes: list[Json]) -> list[str]:
    lines = []
    for note in notes:
        r = note.get("range")
        where = (
            f"{r['start']['line']}:{r['start']['column']}-{r['end']['line']}:{r['end']['column']}"
            if r
            else f"missing ({note['missing_reason']})"
        )
        head = (note["text"].splitlines() or [""])[0][:100]
        lines.append(
            f"{note['path']} {where} [{note['kind']}, {note['state']}] {note['author']}: {head} (id {note['id']})"
        )
    return lines


def notes(context: Context, *, path: str | None = None, under: str | None = None) -> Answer:
    if path is not None and under is not None:
        raise InvalidParams("under", "give path (one file) or under (a folder), not both")
    if path is not None:
        real, shown = context.files.roots.resolve(path, "path")
        if real.is_dir():
            raise InvalidParams("path", f"{shown} is a folder: list its notes with under")
        files = [(real.as_uri(), real, shown, True)]
    else:
        folders = [_folder(context, under, "under")] if under is not None else context.files.roots.folders
        files = [(uri, real, shown, False) for uri, real, shown in _files_under(context, folders)]
    out: list[Json] = []
    for uri, real, shown, strict in files:
        out.extend(file_notes(context, uri, real, shown, "path", strict).notes)
    where = path if path is not None else under if under is not None else context.files.roots.describe()
    text = [f"{len(out)} note(s) in {where}", *_render(out)]
    return Answer({"notes": out}, "\n".join(text))


def _target(
    context: Context, file: FileText, target: float | Mapping[str, Any], base_version: str | None
) -> tuple[int, int]:
    """The bytes of ``file``'s current text the target names (given in ``base_version`` coordinates)."""
    base = file
    if base_version is not None and base_version != file.version:
        kept = context.history.text(file.path, base_version)
        if kept is None:
            raise InvalidParams(
                "base_version",
                f"{base_version} is not a version of {file.shown} handed out by this server, or no longer kept "
                f"(the current version is {file.version}): read the file again",
                kind="unknownVersion",
            )
        base = FileText(file.path, file.shown, kept, base_version)
    if isinstance(target, Mapping):
        start, end = span(context.lines(base), target, "target")
    else:
        start, end = node_span(context, base, target, "target")
    if base is file:
        return start, end
    edits = context.history.edits(file.path, base.version, base.text, file.version, file.text)
    moved = carry(start, end, edits)
    if moved.gone:
        raise InvalidParams(
            "target",
            f"the text it names in version {base_version} of {file.shown} was replaced or deleted since (the file "
            f"is now version {file.version}): read it again",
            kind="targetGone",
        )
    return moved.start, moved.end


def _one(context: Context, state: MarkersState, marker_id: str, uri: str) -> Json:
    """The note ``marker_id`` of the file ``uri`` as ``notes`` lists it now."""
    path = uri_to_path(uri)
    real, shown = context.files.roots.resolve(str(path or uri), "id")
    listed = file_notes(context, uri, real, shown, "id", strict=False).notes
    found = next((n for n in listed if n["id"] == marker_id), None)
    if found is None:  # pragma: no cover - the record is there: its file lists it
        raise RequestFailed(f"note {marker_id} is not listed in {shown}", "unknownMarker", id=marker_id)
    return found


def _answer(note: Json, verb: str) -> Answer:
    return Answer(note, "\n".join([f"note {verb}", *_render([note])]))


def note_add(
    context: Context,
    *,
    path: str,
    target: float | Mapping[str, Any],
    text: str,
    kind: str = DEFAULT_KIND,
    base_version: str | None = None,
) -> Answer:
    file = context.load(path)
    start, end = _target(context, file, target, base_version)
    where = range_of(context.lines(file), start, end)
    span_at = (
        Pos(where["start"]["line"] - 1, where["start"]["column"] - 1),
        Pos(where["end"]["line"] - 1, where["end"]["column"] - 1),
    )
    uri = file.path.as_uri()
    state = context.notes.state_of(file.path)
    placing = markers_state.MarkersState.Placing(uri, file.text.decode("utf-8"), span_at, Encoding.UTF32, "target")
    created, _on = state.create(placing, text, kind, context.notes.author, tell=True)
    return _answer(_one(context, state, created.record.id, uri), "added")


def _find(context: Context, note_id: str) -> tuple[MarkersState, MarkerRecord]:
    """The note with this id, in whichever database keeps it; refused when its file is outside the roots."""
    for state in context.notes.states():
        try:
            record = state.get(note_id)
        except RequestFailed as exc:
            if exc.data.get("kind") == "unknownMarker":
                continue
            raise
        path = uri_to_path(record.uri)
        try:
            context.files.roots.resolve(str(path or record.uri), "id")
        except InvalidParams:
            raise InvalidParams(
                "id",
                f"note {note_id} is on {path or record.uri}, outside the roots ({context.files.roots.describe()}): "
                "refused",
                kind="outsideRoots",
            ) from None
        return state, record
    raise InvalidParams("id", f"no note with id {note_id!r} (notes lists them)", kind="unknownMarker")


def note_update(context: Context, *, id: str, text: str | None = None, kind: str | None = None) -> Answer:
    note_id = id
    if text is None and kind is None:
        raise InvalidParams("text", "nothing to change: give text, kind or both")
    state, _record = _find(context, note_id)
    _before, after = state.update(note_id, text, kind, None, tell=True)
    return _answer(_one(context, state, note_id, after.uri), "updated")


def note_delete(context: Context, *, id: str) -> Answer:
    note_id = id
    state, _record = _find(context, note_id)
    state.delete(note_id, tell=True)
    return Answer({"deleted": True}, f"note {note_id} deleted")
