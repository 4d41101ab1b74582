"""Resolving model-produced edits on a document that moved on since the model saw it (docs/edits.md, "Placing an edit").

Pure: the base version's text, the current text and the recorded edits between them in; for each edit a
status and, when resolved, a byte span of the current text with the text to put there. A target is named by its
``oldText`` (:func:`resolve_one` finds it with :func:`.locate.locate`) or, for fronts that name it by a node or a
range of the base, by its byte span (:func:`resolve_span`); both are then carried and merged the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import utf8_offset
from tether_lsp.server.span_carry import carry

from .locate import Found, locate
from .merge import merge3


@dataclass(frozen=True)
class Options:
    fuzzy: bool = True
    min_similarity: float = 0.9
    reindent: bool = True
    on_user_edit: str = "merge"  # or "refuse"


@dataclass(frozen=True)
class EditRequest:
    id: str
    old_text: str
    new_text: str
    #: 0-based line of the base where the model saw ``old_text``: settles a target found at several places.
    line: int | None = None


@dataclass
class Resolution:
    id: str
    status: str  # resolved | notFound | ambiguous | conflict | deleted
    span: tuple[int, int] | None = None  # bytes of the current text
    new_text: str | None = None
    match: tuple[str, float] | None = None
    candidates: list[tuple[int, int]] = field(default_factory=list)  # bytes of the current text
    notes: list[str] = field(default_factory=list)
    base_span: tuple[int, int] | None = None  # bytes of the base text (overlap checks)


class Text:
    """A document text with ``\\n`` endings for matching, and the way back to the original's offsets."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.string = data.decode("utf-8", errors="replace")
        self.crlf = "\r\n" in self.string
        self.lf = self.string.replace("\r\n", "\n") if self.crlf else self.string
        self._removed: list[int] = []  # lf offsets where a "\r" was dropped
        if self.crlf:
            at, removed = self.string.find("\r\n"), 0
            while at >= 0:
                self._removed.append(at - removed)
                removed += 1
                at = self.string.find("\r\n", at + 2)

    def to_bytes(self, lf_offset: int) -> int:
        """Byte offset in the original text of a character offset in the ``\\n`` text."""
        import bisect

        chars = lf_offset + bisect.bisect_left(self._removed, lf_offset)
        return utf8_offset(self.string, chars)

    def ending(self, text: str) -> str:
        text = text.replace("\r\n", "\n")
        return text.replace("\n", "\r\n") if self.crlf else text


def reindent(text: str, delta: int) -> str:
    """Shift every non-blank line by ``delta`` columns (spaces), never past column 0."""
    out = []
    for line in text.split("\n"):
        if not line.strip():
            out.append(line)
        elif delta > 0:
            out.append(" " * delta + line)
        else:
            strip = min(-delta, len(line) - len(line.lstrip(" \t")))
            out.append(line[strip:])
    return "\n".join(out)


def resolve_all(
    base: bytes, current: bytes, edits: Sequence[ByteEdit], requests: Sequence[EditRequest], options: Options
) -> list[Resolution]:
    base_text, current_text = Text(base), Text(current)
    return [resolve_one(base_text, current_text, edits, r, options) for r in requests]


def resolve_one(
    base: Text, current: Text, edits: Sequence[ByteEdit], request: EditRequest, options: Options
) -> Resolution:
    old = request.old_text.replace("\r\n", "\n")
    new = request.new_text.replace("\r\n", "\n")
    if not old:
        if base.data:
            return Resolution(request.id, "notFound", notes=["an empty oldText only inserts into an empty document"])
        found = Found("exact", 0, 0)
    else:
        located = locate(
            base.lf, old, fuzzy=options.fuzzy, min_similarity=options.min_similarity, near_line=request.line
        )
        if located.found is None:
            if located.candidates:
                spans = [_carried(base, s, e, edits) for s, e in located.candidates]
                notes = [f"{len(spans)} places match by rule {located.kind}"]
                return Resolution(request.id, "ambiguous", candidates=spans, notes=notes)
            return Resolution(request.id, "notFound")
        found = located.found
    start, end = base.to_bytes(found.start), base.to_bytes(found.end)
    if found.kind == "indentation" and options.reindent and found.indent_delta:
        new = reindent(new, found.indent_delta)
    result = Resolution(request.id, "resolved", match=(found.kind, found.similarity), base_span=(start, end))
    return _place(result, base, current, edits, new, options)


def resolve_span(
    base: Text,
    current: Text,
    edits: Sequence[ByteEdit],
    id: str,
    span: tuple[int, int],
    new_text: str,
    options: Options,
) -> Resolution:
    """Place a replacement of the base's bytes ``span`` (a node or a range the client named in the base) on the
    current text: carried and merged like a target found by its ``oldText`` (``match`` is ``("span", 1.0)``)."""
    result = Resolution(id, "resolved", match=("span", 1.0), base_span=span)
    return _place(result, base, current, edits, new_text.replace("\r\n", "\n"), options)


def _place(
    result: Resolution, base: Text, current: Text, edits: Sequence[ByteEdit], new: str, options: Options
) -> Resolution:
    """Carry ``result.base_span`` to the current text; a target the user also edited is merged or refused."""
    assert result.base_span is not None
    start, end = result.base_span
    moved = carry(start, end, edits)
    base_target = base.data[start:end].decode("utf-8", errors="replace").replace("\r\n", "\n")
    if moved.gone:
        return _moved_or_deleted(result, current, base_target, new)
    now = current.data[moved.start : moved.end].decode("utf-8", errors="replace").replace("\r\n", "\n")
    if moved.touched and now != base_target:
        if options.on_user_edit == "refuse":
            return _with(result, "conflict", notes=["the user edited the target"], span=(moved.start, moved.end))
        merged = merge3(base_target, now, new)
        if merged is None:
            return _with(
                result,
                "conflict",
                notes=["the user and the model changed the same lines"],
                span=(moved.start, moved.end),
            )
        result.notes.append("merged with the user's edits")
        new = merged
    result.span = (moved.start, moved.end)
    result.new_text = current.ending(new)
    return result


def check_overlaps(results: Sequence[Resolution]) -> None:
    """Refuse two resolved edits whose targets in the base overlap (``edits[i]``: their places in the request)."""
    spans = sorted(
        (r.base_span, k) for k, r in enumerate(results) if r.base_span is not None and r.status == "resolved"
    )
    for (a, i), (b, j) in itertools.pairwise(spans):
        if b[0] < a[1] or (a[0] == a[1] == b[0] == b[1]):
            first, second = sorted((i, j))
            raise InvalidParams("edits", f"the targets of edits[{first}] and edits[{second}] overlap")


def _with(result: Resolution, status: str, *, notes: list[str], span: tuple[int, int]) -> Resolution:
    result.status, result.span = status, span
    result.notes += notes
    return result


def _carried(base: Text, start: int, end: int, edits: Sequence[ByteEdit]) -> tuple[int, int]:
    moved = carry(base.to_bytes(start), base.to_bytes(end), edits)
    return moved.start, moved.end


def _moved_or_deleted(result: Resolution, current: Text, base_target: str, new: str) -> Resolution:
    """The region is gone from its place: the user moved it (a unique match elsewhere) or deleted it."""
    located = locate(current.lf, base_target, fuzzy=False)
    found = located.found
    if found is None or found.kind not in ("exact", "trailingWhitespace", "indentation"):
        result.status = "deleted"
        result.notes.append("the target is no longer in the document")
        return result
    result.span = (current.to_bytes(found.start), current.to_bytes(found.end))
    result.new_text = current.ending(new)
    result.notes.append("the user moved the target; it was followed")
    return result
