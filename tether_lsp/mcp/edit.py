"""``edit``: replacements named by node id, ``old_text`` or range in ``base_version``, placed on the file as it is
now and written all or none, in one atomic write, by the edits service (``handlers/edits/service.py``: locate,
carry, three-way merge, apply, and place again when the file moved on). This adapter turns the arguments into
its targets and its results into the answer."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tether_lsp.handlers.edits.service import Batch, Change, Options, Resolution, Target, Written, write_all
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import LineIndex

from .args import Json, bounded, integer, obj, only, range_of, span, string
from .context import Answer, Context
from .files import FileText
from .read import node_span
from .syntax import introduced_errors

#: Agents quote what they read: no fuzzy matching (a near miss is refused, never guessed).
OPTIONS = Options(fuzzy=False)
MAX_EDITS = 1000
#: Times an edit is placed again when the file changes between reading it and writing it.
RETRIES = 3
TARGETS = ("node_id", "old_text", "range")


#: What a call places: ``(field, target)`` pairs made from the base version of the file (``edit``: its edits;
#: ``act``: an action's replacements), each target a span or an ``old_text`` of that base.
Targets = Callable[[FileText], Iterable[tuple[str, Target]]]


def base_of(context: Context, file: FileText, base_version: str, field: str = "base_version") -> FileText:
    """The version ``base_version`` of ``file`` (the file itself, or a text this server handed out and keeps)."""
    if base_version == file.version:
        return file
    kept = context.history.text(file.path, base_version)
    if kept is None:
        raise InvalidParams(
            field,
            f"{base_version} is not a version of {file.shown} handed out by this server, or no longer kept "
            f"(the current version is {file.version}): read the file again and edit what you read",
            kind="unknownVersion",
        )
    return FileText(file.path, file.shown, kept, base_version)


class _Edits:
    """The edits of one call, placed on ``path`` as it is now and written through the context's source (the
    service's :class:`~tether_lsp.handlers.edits.service.Rewritable`): every tool that changes a file's text goes
    through it."""

    def __init__(self, context: Context, path: str, base_version: str, targets: Targets, field: str) -> None:
        """``field``: the argument a file grown past ``maxFileBytes`` is refused as."""
        self.context, self.path, self.base_version, self.targets = context, path, base_version, targets
        self.field = field

    def read(self) -> FileText:
        return self.context.load(self.path)

    def index(self, file: FileText) -> LineIndex:
        return self.context.lines(file)

    def place(self, file: FileText) -> Batch:
        """Each edit placed on the file's current text (or refused with the argument that is wrong)."""
        context, base_version = self.context, self.base_version
        base_file = base_of(context, file, base_version)
        moved = context.history.edits(file.path, base_version, base_file.text, file.version, file.text)
        batch = Batch(base_file.text, file.text, moved, OPTIONS)
        for field, target in self.targets(base_file):
            found = batch.place(target)
            if found.status == "notFound":
                raise InvalidParams(
                    f"{field}.old_text",
                    f"not found in version {base_version} of {file.shown} (not even ignoring indentation or "
                    "trailing spaces): quote the text as read",
                    kind="notFound",
                )
        if context.history.last_note is not None:  # the exact history did not reach the base
            for r in batch.results:
                r.notes.append(context.history.last_note)
        return batch

    def write(self, file: FileText, change: Change) -> FileText | None:
        """The change written over ``file``; None when it moved on (on disk, or in the editor's buffer)."""
        context = self.context
        if len(change.text) > context.limits.maxFileBytes:
            raise InvalidParams(
                self.field,
                f"the file would have {len(change.text)} bytes, over maxFileBytes ({context.limits.maxFileBytes})",
            )
        if context.load(self.path).version != file.version:
            return None  # changed on disk while the edits were placed: place them again on what is there now
        written = context.files.write(file, (file.data[:3] if file.bom else b"") + change.text, change.edits)
        if written is None:
            return None  # the editor's buffer moved on before the edit reached it: place them again
        context.history.wrote(written.path, file.version, written.version, written.text, change.edits)
        context.trees.written(file, written, change.edits)
        return written


def _status(resolution: Resolution, same: bool) -> str:
    if resolution.status == "resolved":
        return "applied" if same else "rebased"
    return "ambiguous" if resolution.status == "ambiguous" else "conflict"


def _edit_targets(context: Context, edits: list[Any], base_file: FileText) -> Iterator[tuple[str, Target]]:
    """The ``edits`` argument read against the base version: each edit's target and new text."""
    base_lines = context.lines(base_file)
    limit = context.limits.maxFileBytes
    for k, item in enumerate(edits):
        field = f"edits[{k}]"
        e = obj(item, field)
        only(e, ("new_text", *TARGETS, "line"), f"{field}.")
        new_text = bounded(string(e, "new_text", where=f"{field}.") or "", f"{field}.new_text", limit, "maxFileBytes")
        named = [key for key in TARGETS if e.get(key) is not None]
        if len(named) != 1:
            raise InvalidParams(field, "name the target with exactly one of node_id, old_text, range")
        if e.get("line") is not None and named != ["old_text"]:
            raise InvalidParams(f"{field}.line", "only with old_text (where in base_version it was seen)")
        if named == ["node_id"]:
            yield field, Target(str(k), new_text, span=node_span(context, base_file, e["node_id"], f"{field}.node_id"))
        elif named == ["range"]:
            yield field, Target(str(k), new_text, span=span(base_lines, e["range"], f"{field}.range"))
        else:
            old = bounded(string(e, "old_text", where=f"{field}.") or "", f"{field}.old_text", limit, "maxFileBytes")
            if not old:
                raise InvalidParams(f"{field}.old_text", "empty: to insert, give a range whose start is its end")
            line = integer(e["line"], f"{field}.line", 1) - 1 if e.get("line") is not None else None
            yield field, Target(str(k), new_text, old, line)


def place_and_write(
    context: Context, path: str, base_version: str, targets: Targets, field: str = "edits"
) -> Written[FileText]:
    """The targets placed on ``path`` as it is now and written all or none (placed again when it moves on)."""
    done = write_all(_Edits(context, path, base_version, targets, field), RETRIES)
    if done is None:
        raise InvalidParams("path", f"{path} kept changing while the edits were placed; try again")
    return done


def edit(context: Context, *, path: str, base_version: str, edits: list[Any]) -> Answer:
    if not edits or len(edits) > MAX_EDITS:
        raise InvalidParams("edits", f"expected 1 to {MAX_EDITS} edits, got {len(edits)}")
    done = place_and_write(context, path, base_version, lambda base: _edit_targets(context, edits, base))
    return written_answer(context, done, base_version)


def written_answer(context: Context, done: Written[FileText], base_version: str, label: str = "edits") -> Answer:
    """``{path, version, written, unsaved?, results, syntax_errors?}`` and its text (``label``: how the text names
    each placed edit, ``edits[0]``)."""
    same = base_version == done.read.version
    if done.change is None or done.wrote is None:
        return _answer(context, done.read, done.results, same, None, label)
    return _answer(context, done.wrote, done.results, same, (done.read, done.change.spans), label)


def _answer(
    context: Context,
    file: FileText,
    results: list[Resolution],
    same: bool,
    wrote: tuple[FileText, dict[int, tuple[int, int]]] | None,
    label: str,
) -> Answer:
    lines = context.lines(file)
    out: list[Json] = []
    text = []
    for k, r in enumerate(results):
        status = _status(r, same)
        item: Json = {"status": status}
        if wrote is not None:
            item["range"] = range_of(lines, *wrote[1][k])
        elif r.span is not None:
            item["range"] = range_of(lines, *r.span)
        if status == "conflict":
            item["current_text"] = file.text[r.span[0] : r.span[1]].decode("utf-8") if r.span else ""
        if status == "ambiguous":
            item["candidates"] = [range_of(lines, s, e) for s, e in r.candidates]
        out.append(item)
        notes = "; ".join(r.notes)
        text.append(f"{label}[{k}]: {status}" + (f" ({notes})" if notes else ""))
    answer: Json = {"path": file.shown, "version": file.version, "written": wrote is not None, "results": out}
    head = f"{file.shown}: "
    if wrote is None:
        head += f"nothing written (version {file.version} unchanged): every edit must apply for any to be written"
    elif wrote[0] is file:
        head += "unchanged: it already reads so"
    elif context.files.unsaved_writes:
        answer["unsaved"] = True
        head += f"applied in the editor (unsaved), now version {file.version}"
    else:
        head += f"written, now version {file.version}"
    if wrote is not None:
        errors = introduced_errors(context, wrote[0], file, list(wrote[1].values()))
        if errors:
            answer["syntax_errors"] = errors
            where = ", ".join(f"{e['start']['line']}:{e['start']['column']}" for e in errors[:10])
            text.append(f"syntax errors introduced at {where}: check the edit")
    context.shown(file)
    return Answer(answer, "\n".join([head, *text]))
