"""Error reporting: what a failure becomes on the wire, in the log and in front of the user.

A handler's :class:`TetherError` becomes its JSON-RPC error (:func:`guarded`); anything else is an internal
error, which pygls answers with -32603 and no traceback, and :class:`ErrorReporter` logs it and tells the user
once per session, never a popup per error (docs/architecture.md, "The protocol layer"). Kept apart from the
server so that the whole path of a failure reads in one place.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException

from .errors import INTERNAL_ERROR, TetherError, to_jsonrpc

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


def guarded(fn: F) -> Callable[..., Any]:
    """``fn`` (sync or async) with its :class:`TetherError` raised as the matching JSON-RPC error."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(*args, **kwargs)
            except TetherError as exc:
                raise to_jsonrpc(exc) from exc

        return async_wrapper

    @functools.wraps(fn)
    def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TetherError as exc:
            raise to_jsonrpc(exc) from exc

    return sync_wrapper


class ErrorReporter:
    """Logs unexpected failures and tells the user about the first one (``show`` puts up the message)."""

    def __init__(self, show: Callable[[types.ShowMessageParams], None]) -> None:
        self._show = show
        self._reported = False

    def report(self, error: Exception, source: Any) -> None:
        """Log unexpected failures; tell the user once per session, never a popup per error.

        Request errors already reach the client as responses: expected ones (invalid params, request
        failed) are not errors of the server at all, and internal ones are logged but raise no popup.
        """
        if isinstance(error, JsonRpcException) and error.code != INTERNAL_ERROR:
            return
        log.error("internal error (%s): %s", getattr(source, "__name__", source), error)
        if self._reported or source is FeatureRequestError:
            return
        self._reported = True
        with contextlib.suppress(Exception):  # the transport may be gone
            self._show(
                types.ShowMessageParams(
                    type=types.MessageType.Error,
                    message="Tether hit an internal error; it keeps running. See the Tether log for details.",
                )
            )


def log_sender(send: Callable[[types.LogMessageParams], None]) -> Callable[[int, str], None]:
    """What sends a log record to the client (``window/logMessage``, its type from the record's level)."""

    def send_record(level: int, message: str) -> None:
        kind = (
            types.MessageType.Error
            if level >= logging.ERROR
            else types.MessageType.Warning
            if level >= logging.WARNING
            else types.MessageType.Info
            if level >= logging.INFO
            else types.MessageType.Log
        )
        send(types.LogMessageParams(type=kind, message=message))

    return send_record
