"""The typed wire protocol: custom ``tether/*`` methods as attrs classes, validated in one place.

Why a ``LanguageServerProtocol`` subclass (docs/architecture.md, "The protocol layer"):
* pygls structures custom params into untyped objects unless ``get_message_type`` names a class; here each
  custom method registers its params (and result) attrs classes, camelCase on the wire.
* pygls drops a request whose params fail to structure *without answering it* (the client would hang).
  :meth:`TetherProtocol.structure_message` turns that into a ``-32602`` response whose message names the
  bad field, for standard and custom methods alike.
* The converter is strict about JSON types: a boolean is not a number, ``1.5`` is not an integer, ``5`` is
  not a string (cattrs would otherwise coerce silently).
* Document sync is owned by :mod:`server.documents`; pygls' own copy of each document is not kept.
* The position encoding follows Tether's preference (utf-8, then utf-32, then utf-16).
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
import typing
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import attrs
import cattrs
import orjson
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol, lsp_method

from .arrival import ARRIVAL
from .errors import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, StrictTypeError, camel, describe_structure_error
from .positions import choose_encoding
from .transport import decode, invalid_envelope

SERVER_NOT_INITIALIZED = -32002

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MethodSpec:
    """A custom method: its params class (None: any JSON), result class, whether it is a request, and who
    sends it (``client``: the editor, handled here; ``server``: a notification Tether sends)."""

    method: str
    params: type[Any] | None
    result: type[Any] | None
    request: bool
    sender: str = "client"


class MethodRegistry:
    """The custom methods one server knows, both directions; owned by its protocol, filled by ``register``."""

    def __init__(self) -> None:
        self._incoming: dict[str, MethodSpec] = {}
        self._outgoing: dict[str, MethodSpec] = {}
        self._message_types: dict[str, type[Any]] = {}

    def add(self, method: str, params: type[Any] | None, result: type[Any] | None = None, *, request: bool) -> None:
        """Declare a method the client sends: its params (and result) classes."""
        self._incoming[method] = MethodSpec(method, params, result, request)
        self._message_types.pop(method, None)

    def add_outgoing(self, method: str, params: type[Any]) -> None:
        """Declare a notification the server sends (documented with the rest; never dispatched here)."""
        self._outgoing[method] = MethodSpec(method, params, None, False, "server")

    def get(self, method: str) -> MethodSpec | None:
        """The spec of a method the client sends, or None."""
        return self._incoming.get(method)

    def all(self) -> list[MethodSpec]:
        """Every custom method, both directions, by name (for the generated protocol reference)."""
        return sorted([*self._incoming.values(), *self._outgoing.values()], key=lambda spec: spec.method)

    def message_type(self, spec: MethodSpec) -> type[Any]:
        """The attrs class of a whole message of ``spec``'s method (made once, then kept)."""
        cached = self._message_types.get(spec.method)
        if cached is None:
            cached = self._message_types[spec.method] = _make_message_type(spec)
        return cached


def _make_message_type(spec: MethodSpec) -> type[Any]:
    fields: dict[str, Any] = {}
    if spec.request:
        message_id: Any = int | str
        fields["id"] = attrs.field(type=message_id)
    params_type = spec.params if spec.params is not None else typing.Any
    fields["params"] = (
        attrs.field(type=params_type) if spec.params is not None else attrs.field(type=params_type, default=None)
    )
    fields["method"] = attrs.field(type=str, default=spec.method)
    fields["jsonrpc"] = attrs.field(type=str, default="2.0")
    name = "".join(part[:1].upper() + part[1:] for part in spec.method.replace("/", "_").split("_"))
    return attrs.make_class(name + ("Request" if spec.request else "Notification"), fields)


def _all_optional(cls: type[Any]) -> bool:
    return attrs.has(cls) and all(a.default is not attrs.NOTHING for a in attrs.fields(cls))


# --- the converter ------------------------------------------------------------------------------------


def _strict_int(value: Any, _: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StrictTypeError(f"expected an integer, got {_json_repr(value)}")
    return value


def _strict_float(value: Any, _: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StrictTypeError(f"expected a number, got {_json_repr(value)}")
    return float(value)


def _strict_str(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise StrictTypeError(f"expected a string, got {_json_repr(value)}")
    return value


def _strict_bool(value: Any, _: Any) -> bool:
    if not isinstance(value, bool):
        raise StrictTypeError(f"expected a boolean, got {_json_repr(value)}")
    return value


def _json_repr(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def _as_is(value: Any) -> Any:
    return value


def _is_tether_class(cls: type[Any]) -> bool:
    return attrs.has(cls) and cls.__module__.split(".", 1)[0] in {"tether_lsp", "tests"}


def make_converter() -> cattrs.Converter:
    """lsprotocol's converter, made strict about JSON primitives, with hooks for Tether's attrs classes.

    Tether classes keep ``None`` fields on the wire (``range: null`` is meaningful) unless a field is
    declared with ``metadata={"omit_none": True}``; a field declared with ``metadata={"plain_json": True}``
    already holds plain JSON (thousands of ranges, say) and goes on the wire as it is, not copied item by item.
    """
    converter = get_converter(cattrs.Converter())
    converter.register_structure_hook(int, _strict_int)
    converter.register_structure_hook(float, _strict_float)
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook(bool, _strict_bool)

    def unstructure_factory(cls: type[Any]) -> Any:
        overrides = {
            a.name: override(
                rename=camel(a.name),
                omit_if_default=bool(a.metadata.get("omit_none")),
                unstruct_hook=_as_is if a.metadata.get("plain_json") else None,
            )
            for a in attrs.fields(cls)
        }
        return make_dict_unstructure_fn(cls, converter, **overrides)  # type: ignore[arg-type]

    def structure_factory(cls: type[Any]) -> Any:
        overrides = {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, converter, **overrides)  # type: ignore[arg-type]

    converter.register_unstructure_hook_factory(_is_tether_class, unstructure_factory)
    converter.register_structure_hook_factory(_is_tether_class, structure_factory)
    return converter


def encode_json(data: Any, default: typing.Callable[[Any], Any]) -> bytes:
    """One message as UTF-8 JSON: orjson (a result with a thousand ranges encodes in 0.1 ms instead of 1.6),
    and the standard library for what orjson refuses but JSON allows (integers past 64 bits, non-string keys,
    lone surrogates), so the wire accepts what it accepted before."""
    try:
        return orjson.dumps(data, default=default)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(data, default=default).encode("utf-8")


# --- the protocol ---------------------------------------------------------------------------------------


@attrs.define
class _Rejected:
    """A request whose params did not structure: answered with -32602 instead of being dispatched."""

    id: int | str
    method: str
    message: str
    field: str
    jsonrpc: str = "2.0"


class TetherProtocol(LanguageServerProtocol):
    """pygls' LSP protocol with Tether's typed custom methods and strict, answering validation.

    Also (each a pygls behaviour that would leave a client without an answer or leak internals):
    requests before a successful ``initialize`` get ``-32002``; a notification whose params do not
    structure (``$/cancelRequest`` with an array id, say) is dropped with a log line; an internal error's
    traceback goes to the log only, the client gets the message and ``data.kind = "internal"``; a result
    that cannot be serialised is answered with ``-32603`` instead of nothing.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: This server's custom methods (``TetherServer.handler`` fills it).
        self.methods = MethodRegistry()
        self._initialized_ok = False
        self._writes: set[asyncio.Future[Any]] = set()  # pending WebSocket writes, kept alive until done
        self._arrivals = itertools.count(1)

    def receive(self, body: bytes) -> None:
        """One message body off the wire: decoded, checked as JSON-RPC, then dispatched."""
        data, failure = decode(body)
        if failure is not None:
            log.warning("%s", failure[1])
            self._send_response(None, error=types.ResponseError(code=failure[0], message=failure[1]))
            return
        assert data is not None
        problem = invalid_envelope(data)
        if problem is not None:
            log.warning("%s", problem)
            msg_id = data.get("id") if isinstance(data.get("id"), (int, str)) else None
            if isinstance(msg_id, bool):
                msg_id = None
            self._send_response(msg_id, error=types.ResponseError(code=INVALID_REQUEST, message=problem))
            return
        try:
            message = self.structure_message(data)
        except JsonRpcException as exc:
            log.warning("ignoring a message that does not structure: %s", exc)
            if "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], error=exc.to_response_error())
            return
        try:
            self.handle_message(message)
        except Exception:  # one message must never end the reading loop
            log.exception("handling %s failed", data.get("method", "a response"))
            if "method" in data and isinstance(data.get("id"), (int, str)):
                error = types.ResponseError(code=INTERNAL_ERROR, message="internal error", data={"kind": "internal"})
                self._send_response(data["id"], error=error)

    def _send_response(self, msg_id: Any, result: Any = None, error: types.ResponseError | None = None) -> None:
        if error is not None and isinstance(error.data, dict) and "traceback" in error.data:
            error = types.ResponseError(code=error.code, message=error.message, data={"kind": "internal"})
        super()._send_response(msg_id, result=result, error=error)

    def _send_data(self, data: Any) -> None:
        """pygls' writer, but a message that cannot be serialised becomes an error answer, never silence."""
        if not data:
            return
        if self.writer is None:
            log.error("no transport to send %s on", type(data).__name__)
            return
        try:
            payload = encode_json(data, self._serialize_message)
        except (RecursionError, TypeError, ValueError, AttributeError) as exc:
            log.error("could not serialise %s: %s", type(data).__name__, exc)
            msg_id = getattr(data, "id", None)
            if msg_id is None or getattr(data, "method", None) is not None:
                return
            error = {
                "code": INTERNAL_ERROR,
                "message": "the answer could not be serialised",
                "data": {"kind": "internal"},
            }
            payload = json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": error}).encode("utf-8")
        if self._include_headers:
            payload = b"Content-Length: %d\r\n\r\n" % len(payload) + payload
        try:
            pending = self.writer.write(payload)
            if inspect.isawaitable(pending):
                self._writes.add(task := asyncio.ensure_future(pending))
                task.add_done_callback(self._writes.discard)
        except BrokenPipeError:
            log.error("the client's end of the connection is closed")
            raise
        except Exception as exc:  # a transport failure is logged; the loop goes on
            log.error("could not send %s: %s", type(data).__name__, exc)

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        spec = self.methods.get(method)
        if spec is not None:
            return self.methods.message_type(spec)
        return super().get_message_type(method)

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        spec = self.methods.get(method)
        if spec is not None:
            return spec.result
        return super().get_result_type(method)

    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" not in data:
            return data
        spec = self.methods.get(data.get("method", ""))
        if spec is not None and spec.params is not None and data.get("params") is None and _all_optional(spec.params):
            data = {**data, "params": {}}  # params may be omitted when every field is optional
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            cause = exc.__cause__ if exc.__cause__ is not None else exc
            method = data.get("method")
            if not isinstance(method, str):
                raise
            params = data.get("params")
            if not isinstance(params, dict):
                field, reason = "params", f"expected an object, got {_json_repr(params)}"
            else:
                field, reason = describe_structure_error(cause)
            if "id" in data and isinstance(data["id"], (int, str)) and not isinstance(data["id"], bool):
                return _Rejected(id=data["id"], method=method, message=f"{field}: {reason}", field=field)
            log.warning("ignoring %s notification: %s: %s", method, field, reason)
            return None

    def handle_message(self, message: Any) -> None:
        if message is None:
            return
        if isinstance(message, _Rejected):
            log.info("rejected %s: %s", message.method, message.message)
            self._send_response(
                message.id,
                error=types.ResponseError(
                    code=INVALID_PARAMS,
                    message=message.message,
                    data={"kind": "invalidParams", "field": message.field, "method": message.method},
                ),
            )
            return
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        if method == types.CANCEL_REQUEST:
            cancelled = getattr(getattr(message, "params", None), "id", None)
            if isinstance(cancelled, bool) or not isinstance(cancelled, (int, str)):
                log.warning("ignoring $/cancelRequest for an id that is not an integer or a string")
                return
        if not self._initialized_ok and method not in (None, types.INITIALIZE, types.EXIT):
            if msg_id is not None:
                self._send_response(
                    msg_id,
                    error=types.ResponseError(code=SERVER_NOT_INITIALIZED, message="the server is not initialized"),
                )
            else:
                log.warning("ignoring %s before a successful initialize", method)
            return
        if self._shutdown and method not in (None, types.EXIT) and msg_id is not None:
            self._send_response(
                msg_id,
                error=types.ResponseError(code=INVALID_REQUEST, message="the server is shutting down"),
            )
            return
        ARRIVAL.set(next(self._arrivals))
        super().handle_message(message)

    # Position encoding: Tether's preference order, not the client's.
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            offered = {getattr(e, "value", e) for e in general.position_encodings}
            chosen = choose_encoding(str(e) for e in offered)
            # pygls picks the client's first offer it supports: offer it ours only
            general.position_encodings = [types.PositionEncodingKind(chosen.value)] if chosen.value in offered else []
        result = yield from super().lsp_initialize(params)
        self._initialized_ok = True
        return result

    # Document sync: the text model lives in server.documents; only the user handlers run.
    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None
