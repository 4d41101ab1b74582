"""``edit``: replacements named by node id, ``old_text`` or range in ``base_version``, placed on the file as it is
now by the edits engine (``handlers/edits/resolve.py``: locate, carry, three-way merge) and written all or none,
in one atomic write."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from tether_lsp.handlers.edits.resolve import (
    EditRequest,
    Options,
    Resolution,
    Text,
    check_overlaps,
    resolve_one,
    resolve_span,
)
from tether_lsp.server.documents import ByteEdit, make_edit
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import LineIndex

from .args import Json, array, bounded, integer, obj, only, range_of, span, string
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


def _resolve(context: Context, file: FileText, base_version: str, edits: list[Any]) -> list[Resolution]:
    """Each edit placed on the file's current text (or refused with the argument that is wrong)."""
    if base_version == file.version:
        base_text = file.text
    else:
        kept = context.history.text(file.path, base_version)
        if kept is None:
            raise InvalidParams(
                "base_version",
                f"{base_version} is not a version of {file.shown} handed out by this server, or no longer kept "
                f"(the current version is {file.version}): read the file again and edit what you read",
                kind="unknownVersion",
            )
        base_text = kept
    moved = context.history.edits(file.path, base_version, base_text, file.version, file.text)
    base, current = Text(base_text), Text(file.text)
    base_file = FileText(file.path, file.shown, base_text, base_version)
    base_lines = context.lines(base_file)
    limit = context.limits.maxFileBytes
    out = []
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
            target = node_span(context, base_file, e["node_id"], f"{field}.node_id")
            out.append(resolve_span(base, current, moved, str(k), target, new_text, OPTIONS))
        elif named == ["range"]:
            target = span(base_lines, e["range"], f"{field}.range")
            out.append(resolve_span(base, current, moved, str(k), target, new_text, OPTIONS))
        else:
            old = bounded(string(e, "old_text", where=f"{field}.") or "", f"{field}.old_text", limit, "maxFileBytes")
            if not old:
                raise InvalidParams(f"{field}.old_text", "empty: to insert, give a range whose start is its end")
            line = integer(e["line"], f"{field}.line", 1) - 1 if e.get("line") is not None else None
            found = resolve_one(base, current, moved, EditRequest(str(k), old, new_text, line), OPTIONS)
            if found.status == "notFound":
                raise InvalidParams(
                    f"{field}.old_text",
                    f"not found in version {base_version} of {file.shown} (not even ignoring indentation or "
                    "trailing spaces): quote the text as read",
                    kind="notFound",
                )
            out.append(found)
    if context.history.last_note is not None:  # the exact history did not reach the base
        for r in out:
            r.notes.append(context.history.last_note)
    check_overlaps(out)
    _overlapping_now(out)
    return out


def _overlapping_now(results: list[Resolution]) -> None:
    """Two edits carried onto the same text now (the file moved on around both): the later one conflicts."""
    placed = sorted((r.span, k) for k, r in enumerate(results) if r.status == "resolved" and r.span is not None)
    for (a, _), (b, j) in itertools.pairwise(placed):
        if b[0] < a[1]:
            results[j].status = "conflict"
            results[j].notes.append("carried onto the same text as another edit")


def _status(resolution: Resolution, same: bool) -> str:
    if resolution.status == "resolved":
        return "applied" if same else "rebased"
    return "ambiguous" if resolution.status == "ambiguous" else "conflict"


def _apply(
    text: bytes, index: LineIndex, results: list[Resolution]
) -> tuple[bytes, tuple[ByteEdit, ...], dict[int, tuple[int, int]]]:
    """The new text, its edits (last first, as :func:`diff_edits` gives them) and each edit's span in it."""
    order = sorted(range(len(results)), key=lambda k: results[k].span or (0, 0))
    edits: list[ByteEdit] = []
    spans: dict[int, tuple[int, int]] = {}
    shift = 0
    for k in order:
        start, end = results[k].span or (0, 0)
        inserted = (results[k].new_text or "").encode("utf-8")
        spans[k] = (start + shift, start + shift + len(inserted))
        shift += len(inserted) - (end - start)
        edits.append(make_edit(index, start, end, inserted))
    new = text
    for edit in reversed(edits):
        new = edit.apply(new)
    return new, tuple(reversed(edits)), spans


def edit(context: Context, arguments: Mapping[str, Any]) -> Answer:
    only(arguments, ("path", "base_version", "edits"))
    path = string(arguments, "path") or ""
    base_version = string(arguments, "base_version") or ""
    edits = array(arguments.get("edits"), "edits")
    if not edits or len(edits) > MAX_EDITS:
        raise InvalidParams("edits", f"expected 1 to {MAX_EDITS} edits, got {len(edits)}")
    for _attempt in range(RETRIES):
        file = context.load(path)
        results = _resolve(context, file, base_version, edits)
        same = base_version == file.version
        if any(r.status != "resolved" for r in results):
            return _answer(context, file, results, same, None)
        new_text, byte_edits, spans = _apply(file.text, context.lines(file), results)
        if len(new_text) > context.limits.maxFileBytes:
            raise InvalidParams(
                "edits", f"the file would have {len(new_text)} bytes, over maxFileBytes ({context.limits.maxFileBytes})"
            )
        if new_text == file.text:  # the file already reads so: nothing to write
            return _answer(context, file, results, same, (file, spans))
        if context.load(path).version != file.version:
            continue  # changed on disk while the edits were placed: place them again on what is there now
        written = context.files.write(file, (file.data[:3] if file.bom else b"") + new_text, byte_edits)
        if written is None:
            continue  # the editor's buffer moved on before the edit reached it: place them again
        context.history.wrote(written.path, file.version, written.version, written.text, byte_edits)
        context.trees.written(file, written, byte_edits)
        return _answer(context, written, results, same, (file, spans))
    raise InvalidParams("path", f"{path} kept changing while the edits were placed; try again")


def _answer(
    context: Context,
    file: FileText,
    results: list[Resolution],
    same: bool,
    wrote: tuple[FileText, dict[int, tuple[int, int]]] | None,
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
        text.append(f"edits[{k}]: {status}" + (f" ({notes})" if notes else ""))
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
