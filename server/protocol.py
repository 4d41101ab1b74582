"""The typed wire protocol: custom ``tether/*`` methods as attrs classes, validated in one place.

Why a ``LanguageServerProtocol`` subclass (docs/architecture.md, "The protocol layer"):
* pygls structures custom params into untyped objects unless ``get_message_type`` names a class; here each
  custom method registers its params (and result) attrs classes, camelCase on the wire
  (:mod:`server.method_registry`).
* pygls drops a request whose params fail to structure *without answering it* (the client would hang).
  :meth:`TetherProtocol.structure_message` turns that into a ``-32602`` response whose message names the
  bad field, for standard and custom methods alike.
* The converter is strict about JSON types: a boolean is not a number, ``1.5`` is not an integer, ``5`` is
  not a string (cattrs would otherwise coerce silently): :mod:`server.json_converter`.
* Document sync is owned by :mod:`server.documents`; pygls' own copy of each document is not kept.
* The position encoding follows Tether's preference (utf-8, then utf-32, then utf-16).
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
from collections.abc import Generator
from typing import Any

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol, lsp_method

from .arrival import ARRIVAL
from .encodings import choose_encoding
from .errors import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, describe_structure_error
from .json_converter import encode_json, json_repr
from .method_registry import MethodRegistry, all_optional
from .transport import decode, invalid_envelope

SERVER_NOT_INITIALIZED = -32002

log = logging.getLogger(__name__)


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
        if spec is not None and spec.params is not None and data.get("params") is None and all_optional(spec.params):
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
                field, reason = "params", f"expected an object, got {json_repr(params)}"
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
