"""Tool arguments: how a tool declares them (:class:`Arg`, one per argument, each with its shape: :class:`Text`,
:class:`Flag`, :class:`Array`, :class:`Strings`, :class:`NodeOrRange`) and how they are checked. From one
declaration come both the JSON Schema ``tools/list`` shows and the checks the tool table runs before an adapter
(:func:`checked`), so an adapter is called with values of the declared types. What names something in a file or
an engine (an array's items: node ids, selectors, ranges, edits) is read by the adapter with the helpers below.

Every refusal is an ``InvalidParams`` whose message starts with the argument's name
(``edits[2].node_id: expected an integer``), which the glue answers with ``isError: true``. Coordinates are
1-based lines and 1-based columns counted in characters, ranges end exclusive (``{start: {line, column}, end}``).
"""

from __future__ import annotations

import json
import keyword
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import Encoding, LineIndex, Pos, PositionOutOfRange
from tether_lsp.server.settings import LimitSettings

Json = dict[str, Any]

POSITION: Json = {
    "type": "object",
    "properties": {"line": {"type": "integer", "minimum": 1}, "column": {"type": "integer", "minimum": 1}},
    "required": ["line", "column"],
    "additionalProperties": False,
}
#: A range argument's schema, as :func:`span` reads it.
RANGE: Json = {
    "type": "object",
    "description": "1-based line and column (characters); end exclusive",
    "properties": {"start": POSITION, "end": POSITION},
    "required": ["start", "end"],
    "additionalProperties": False,
}


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


# --- declaring a tool's arguments -----------------------------------------------------------------------


# Declarations are named tuples (or plain classes): a dataclass compiles each method it generates, at start-up.


class Shape(Protocol):
    """What an argument holds: its JSON Schema, and the check that returns the value an adapter is given."""

    @property
    def missing(self) -> str:
        """The refusal of a required argument that is absent or null."""
        ...

    def schema(self) -> Json: ...

    def check(self, value: Any, field: str, limits: LimitSettings) -> Any: ...


class Text(NamedTuple):
    """A string. ``enum``: the values allowed; ``bounded``: written into a file, so at most ``maxFileBytes``
    characters of valid Unicode; ``blank``: refused when only spaces, the refusal saying where to find one."""

    description: str | None = None
    enum: tuple[str, ...] = ()
    bounded: bool = False
    blank: str | None = None

    @property
    def missing(self) -> str:
        return "missing (a string is required)"

    def schema(self) -> Json:
        out: Json = {"type": "string"}
        if self.enum:
            out["enum"] = list(self.enum)
        if self.description is not None:
            out["description"] = self.description
        return out

    def check(self, value: Any, field: str, limits: LimitSettings) -> str:
        if not isinstance(value, str):
            raise InvalidParams(field, f"expected a string, got {kind_of(value)}")
        if self.enum and value not in self.enum:
            raise InvalidParams(field, f"expected one of {', '.join(self.enum)}, got {value!r}")
        if self.bounded:
            bounded(value, field, limits.maxFileBytes, "maxFileBytes")
        if self.blank is not None and not value.strip():
            raise InvalidParams(field, f"empty ({self.blank})")
        return value


class Flag(NamedTuple):
    """A boolean (also as the JSON text ``"true"``/``"false"``: clients that type arguments by their schema send
    that)."""

    description: str | None = None

    @property
    def missing(self) -> str:
        return "expected a boolean, got null"

    def schema(self) -> Json:
        out: Json = {"type": "boolean"}
        if self.description is not None:
            out["description"] = self.description
        return out

    def check(self, value: Any, field: str, limits: LimitSettings) -> bool:
        if isinstance(value, bool):
            return value
        if value in ("true", "false"):
            return bool(value == "true")
        raise InvalidParams(field, f"expected a boolean, got {kind_of(value)}")


class Array(NamedTuple):
    """An array; ``items`` is the items' schema: the adapter reads each item (they name things in the file or an
    engine, and its refusals name the item). ``order``: the schema's keys in the order agents have always been
    shown them, where it is not type, description, items, minItems."""

    items: Json
    description: str | None = None
    min_items: int | None = None
    order: tuple[str, ...] = ()

    @property
    def missing(self) -> str:
        return "expected an array, got null"

    def schema(self) -> Json:
        out: Json = {"type": "array"}
        if self.description is not None:
            out["description"] = self.description
        out["items"] = self.items
        if self.min_items is not None:
            out["minItems"] = self.min_items
        return {key: out[key] for key in self.order} if self.order else out

    def check(self, value: Any, field: str, limits: LimitSettings) -> list[Any]:
        return array(value, field)


class Strings(NamedTuple):
    """An object of string values, one per name the adapter knows (it checks the values against them)."""

    description: str

    @property
    def missing(self) -> str:
        return "expected an object, got null"

    def schema(self) -> Json:
        return {"type": "object", "description": self.description, "additionalProperties": {"type": "string"}}

    def check(self, value: Any, field: str, limits: LimitSettings) -> Mapping[str, Any]:
        return obj(value, field)


class NodeOrRange:
    """A node id (a number) or a range (an object), also as their JSON text: clients that type arguments by their
    schema's ``type`` send that. The adapter finds the node, or reads the range with :func:`span`."""

    @property
    def missing(self) -> str:
        return "missing (a node id, or a range {start, end})"

    def schema(self) -> Json:
        return {"anyOf": [{"type": "integer", "description": "a node id"}, RANGE]}

    def check(self, value: Any, field: str, limits: LimitSettings) -> float | Mapping[str, Any]:
        if isinstance(value, str):
            value = _json(value)
        if isinstance(value, dict) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            return value
        raise InvalidParams(field, f"expected a node id or a range, got {kind_of(value)}")


def _json(text: str) -> Any:
    """A node id or a range given as JSON text (``"12"``, ``'{"start": ...}'``); the text itself when it is neither."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, (int, dict)) and not isinstance(value, bool) else text


class Arg(NamedTuple):
    """One argument of a tool. Absent and ``null`` are alike (``null_refused``: a ``null`` is checked as a value,
    and so refused, as this argument always has been)."""

    name: str
    shape: Shape
    required: bool = False
    null_refused: bool = False

    @property
    def keyword(self) -> str:
        """The adapter's parameter for it (a Python keyword takes a trailing underscore: ``from_``)."""
        return f"{self.name}_" if keyword.iskeyword(self.name) else self.name


def schema(args: Sequence[Arg]) -> Json:
    """The ``inputSchema`` of a tool with these arguments."""
    return {
        "type": "object",
        "properties": {arg.name: arg.shape.schema() for arg in args},
        "required": [arg.name for arg in args if arg.required],
        "additionalProperties": False,
    }


def checked(args: Sequence[Arg], given: Mapping[str, Any], limits: LimitSettings) -> dict[str, Any]:
    """The adapter's keyword arguments from what the agent sent (an absent optional argument is left out, so the
    adapter's default holds), checked in the order declared; refused at the first argument that is wrong."""
    only(given, [arg.name for arg in args])
    out: dict[str, Any] = {}
    for arg in args:
        value = given.get(arg.name)
        if value is None and not (arg.null_refused and arg.name in given):
            if arg.required:
                raise InvalidParams(arg.name, arg.shape.missing)
            continue
        out[arg.keyword] = arg.shape.check(value, arg.name, limits)
    return out
