"""Checking tool arguments: every refusal is an ``InvalidParams`` whose message starts with the argument's name
(``edits[2].node_id: expected an integer``), which the glue answers with ``isError: true``. Coordinates are
1-based lines and 1-based columns counted in characters, ranges end exclusive (``{start: {line, column}, end}``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import Encoding, LineIndex, Pos, PositionOutOfRange

Json = dict[str, Any]


def kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def only(arguments: Mapping[str, Any], allowed: Sequence[str], where: str = "") -> None:
    """Refuse keys not in ``allowed`` (a typo must not be silently ignored)."""
    for key in arguments:
        if key not in allowed:
            raise InvalidParams(f"{where}{key}", f"unknown argument (expected {', '.join(allowed)})")


def string(arguments: Mapping[str, Any], key: str, *, where: str = "", required: bool = True) -> str | None:
    value = arguments.get(key)
    if value is None:
        if required:
            raise InvalidParams(f"{where}{key}", "missing (a string is required)")
        return None
    if not isinstance(value, str):
        raise InvalidParams(f"{where}{key}", f"expected a string, got {kind_of(value)}")
    return value


def integer(value: Any, field: str, minimum: int | None = None) -> int:
    """A JSON integer (``3`` or ``3.0``; never a boolean)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (isinstance(value, float) and not value.is_integer())
    ):
        raise InvalidParams(field, f"expected an integer, got {kind_of(value)}")
    if minimum is not None and value < minimum:
        raise InvalidParams(field, f"expected at least {minimum}, got {int(value)}")
    return int(value)


def array(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidParams(field, f"expected an array, got {kind_of(value)}")
    return value


def obj(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InvalidParams(field, f"expected an object, got {kind_of(value)}")
    return value


def bounded(text: str, field: str, limit: int, setting: str) -> str:
    """Refuse a text argument longer than the file size limit (it could only make a file too large)."""
    if len(text) > limit:
        raise InvalidParams(field, f"{len(text)} characters, over {setting} ({limit})")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidParams(field, "holds a lone surrogate (not valid Unicode text)") from None
    return text


# --- coordinates ----------------------------------------------------------------------------------------


def position(lines: LineIndex, offset: int) -> Json:
    """A byte offset as ``{line, column}``, both 1-based, the column in characters."""
    line, character = lines.line_character(offset, Encoding.UTF32)
    return {"line": line + 1, "column": character + 1}


def range_of(lines: LineIndex, start: int, end: int) -> Json:
    return {"start": position(lines, start), "end": position(lines, end)}


def offset(lines: LineIndex, value: Any, field: str) -> int:
    """The byte offset of a ``{line, column}`` argument; a column past the line's end means its end."""
    pos = obj(value, field)
    only(pos, ("line", "column"), f"{field}.")
    if "line" not in pos or "column" not in pos:
        raise InvalidParams(field, "expected {line, column} (both 1-based)")
    line = integer(pos["line"], f"{field}.line", 1)
    column = integer(pos["column"], f"{field}.column", 1)
    try:
        return lines.offset_of(Pos(line - 1, column - 1), Encoding.UTF32, strict=True)
    except PositionOutOfRange:
        raise InvalidParams(
            f"{field}.line", f"line {line} is past the end (the file has {lines.line_count} lines)"
        ) from None


def span(lines: LineIndex, value: Any, field: str) -> tuple[int, int]:
    """The byte span of a ``{start, end}`` range argument (end exclusive, not before start)."""
    rng = obj(value, field)
    only(rng, ("start", "end"), f"{field}.")
    if "start" not in rng or "end" not in rng:
        raise InvalidParams(field, "expected a range {start: {line, column}, end: {line, column}}")
    start, end = offset(lines, rng["start"], f"{field}.start"), offset(lines, rng["end"], f"{field}.end")
    if end < start:
        raise InvalidParams(field, "end comes before start")
    return start, end
