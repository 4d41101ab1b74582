"""The error codes of the protocol reference (docs/protocol.md) and the one place that maps exceptions to JSON-RPC
errors.

Engines raise :class:`TetherError` subclasses (plain Python, no pygls); :func:`to_jsonrpc` turns them into
pygls' ``JsonRpcException`` with ``data = {kind, field?, ...}``. Structuring failures (a missing or wrongly
typed field) are described by :func:`describe_structure_error`, whose message names the field relative to
``params`` — ``"cursorNodeIds[2]: expected an integer"``.
"""

from __future__ import annotations

import types
import typing
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pygls.exceptions import JsonRpcException

from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
INVALID_REQUEST = -32600
REQUEST_FAILED = -32803
CONTENT_MODIFIED = -32801


class TetherError(Exception):
    """Base of the errors a request can fail with; ``data`` goes to ``error.data``."""

    code = INTERNAL_ERROR

    def __init__(self, message: str, kind: str, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.data: dict[str, Any] = {"kind": kind, **{k: v for k, v in data.items() if v is not None}}


class InvalidParams(TetherError):
    """-32602: a malformed or missing field; the message starts with the field's path."""

    code = INVALID_PARAMS

    def __init__(self, field: str | None, reason: str, kind: str = "invalidParams", **data: Any) -> None:
        super().__init__(f"{field}: {reason}" if field else reason, kind, field=field, **data)


class RequestFailed(TetherError):
    """-32803: a well-formed request that cannot be carried out (unknown id, storage or git failure)."""

    code = REQUEST_FAILED


DATABASE_SETTING = "tether.database.url"


class StorageError(RequestFailed):
    """The database could not do what was asked (cannot be opened, locked, unreachable, corrupt); nothing was
    changed. The message names the setting that chooses the database, the way to fix most of these."""

    def __init__(self, reason: str, *, setting: str = DATABASE_SETTING, database: str | None = None) -> None:
        where = f"{database}, see {setting}" if database else f"see {setting}"
        super().__init__(
            f"storage failed: {reason} ({where})", "storage", reason=reason, setting=setting, database=database
        )


class ContentModified(TetherError):
    """-32801: the request names a document version that is no longer current."""

    code = CONTENT_MODIFIED

    def __init__(self, uri: str, requested: int, current: int | None) -> None:
        super().__init__(
            f"version {requested} of {uri} is not current (current: {current})",
            "contentModified",
            uri=uri,
            requested=requested,
            current=current,
        )


def camel(name: str) -> str:
    """Python attribute name -> wire name (``cursor_node_ids`` -> ``cursorNodeIds``)."""
    name = name.rstrip("_")
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def to_jsonrpc(exc: TetherError) -> JsonRpcException:
    from pygls.exceptions import JsonRpcException  # here, so engines can raise TetherErrors without pygls

    return JsonRpcException(message=exc.message, code=exc.code, data=exc.data)


_TYPE_NAMES = {
    int: "an integer",
    float: "a number",
    str: "a string",
    bool: "a boolean",
    type(None): "null",
    list: "an array",
    dict: "an object",
}


def type_name(tp: Any) -> str:
    """A type hint in JSON words (``an integer``, ``a list of a string or null``), for error messages of
    requests and settings alike."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return " or ".join(dict.fromkeys(type_name(a) for a in typing.get_args(tp)))
    if origin in (list, tuple, typing.Sequence) or tp in (list, tuple):
        args = typing.get_args(tp)
        return f"a list of {type_name(args[0])}" if origin is list and len(args) == 1 else "an array"
    if origin in (dict, typing.Mapping):
        return "an object"
    if typing.get_origin(tp) is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if tp in _TYPE_NAMES:
        return _TYPE_NAMES[tp]
    if isinstance(tp, type) and hasattr(tp, "__attrs_attrs__"):
        return "an object"
    return getattr(tp, "__name__", str(tp))


def _leaf_errors(exc: BaseException, path: str) -> list[tuple[str, str]]:
    """Walk a cattrs validation error tree into (path, reason) pairs."""
    if isinstance(exc, (ClassValidationError, IterableValidationError)):
        out: list[tuple[str, str]] = []
        with_notes, without = exc.group_exceptions()
        for inner, note in with_notes:
            name = getattr(note, "name", None)
            index = getattr(note, "index", None)
            if name is not None:
                name = camel(str(name))
                sub = f"{path}.{name}" if path else name
            elif index is not None:
                sub = f"{path}[{index}]"
            else:
                sub = path
            if isinstance(inner, KeyError):
                out.append((sub, "required field missing"))
            else:
                tp = getattr(note, "type", None)
                out.extend(_leaf_errors(inner, sub) if _is_group(inner) else [(sub, _reason(inner, tp))])
        for inner in without:
            out.extend(_leaf_errors(inner, path))
        return out
    if isinstance(exc, ForbiddenExtraKeysError):
        return [(path, "unexpected fields " + ", ".join(sorted(exc.extra_fields)))]
    return [(path, _reason(exc, None))]


def _is_group(exc: BaseException) -> bool:
    return isinstance(exc, (ClassValidationError, IterableValidationError))


def _reason(exc: BaseException, tp: Any) -> str:
    if isinstance(exc, StrictTypeError):
        return exc.reason
    if tp is not None:
        return f"expected {type_name(tp)}"
    return str(exc) or exc.__class__.__name__


class StrictTypeError(TypeError):
    """Raised by the strict primitive hooks: carries a message fit for the client."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def describe_structure_error(exc: BaseException, root: str = "params") -> tuple[str, str]:
    """(field path relative to ``root``, reason) for the first problem in a structuring error."""
    leaves = _leaf_errors(exc, "")
    if not leaves:
        return root, str(exc)
    path, reason = leaves[0]
    if path == root:
        return root, reason
    if path.startswith(root + "."):
        path = path[len(root) + 1 :]
    elif path.startswith(root + "["):
        path = path[len(root) :]
    return path or root, reason


def is_shutting_down(exc: BaseException) -> bool:
    """The server refused the work because it is shutting down: an orderly end, not a failure to report."""
    return isinstance(exc, RequestFailed) and exc.data.get("kind") == "shuttingDown"
