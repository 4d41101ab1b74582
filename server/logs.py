"""Logging: stderr or a log file for the process, ``window/logMessage`` for the client.

stdout carries only the protocol, so nothing here ever writes to it. pygls logs every message body at
INFO; it is kept at WARNING unless Tether runs at DEBUG. Expected request failures (invalid params,
request failed) are answered to the client and not logged as tracebacks.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable

from .errors import INTERNAL_ERROR

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
OUR_LOGGERS = ("tether_lsp",)


class _ExpectedErrorFilter(logging.Filter):
    """Drop pygls' traceback for request errors that are part of the protocol (not -32603)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Unable to deserialize message"):
            return False  # answered with -32602 by TetherProtocol, logged there
        # imported here, not at the top: the filter sits on pygls' own loggers, so pygls is loaded by the time a
        # record arrives, and a front that is not LSP (tether-lsp mcp) configures logging without loading it
        from pygls.exceptions import JsonRpcException

        if record.exc_info and isinstance(record.exc_info[1], JsonRpcException):
            return record.exc_info[1].code == INTERNAL_ERROR
        return True


def configure(level: str | None = "info", log_file: str | None = None, *, stdio: bool = False) -> None:
    """Configure process logging once, at start-up.

    ``level`` None is the default: the process logs at info, but a stdio server's stderr gets only errors. An
    editor shows a stdio server's stderr as errors (Neovim writes each line to lsp.log as ``[ERROR]``), which
    hid the real ones among the info lines; info and warnings still reach the client as ``window/logMessage``.
    A level given (``--log-level``) applies to stderr too; a log file and ``--tcp``/``--ws`` get info."""
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    numeric = LEVELS.get(level or "info", logging.INFO)
    if level is None and stdio and not log_file:
        handler.setLevel(logging.ERROR)
    root.setLevel(numeric)
    logging.getLogger("pygls").setLevel(logging.DEBUG if numeric <= logging.DEBUG else logging.WARNING)
    for name in ("pygls.protocol.json_rpc", "pygls.protocol.language_server"):
        logging.getLogger(name).addFilter(_ExpectedErrorFilter())


class ClientLogHandler(logging.Handler):
    """Forwards records of Tether's own loggers to the client as ``window/logMessage``."""

    def __init__(self, send: Callable[[int, str], None], loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(logging.INFO)
        self._send = send
        self._loop = loop
        self._thread = threading.get_ident()
        self._busy = threading.local()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(OUR_LOGGERS) or getattr(self._busy, "on", False):
            return
        try:
            message = self.format(record)
        except Exception:  # pragma: no cover - a bad format string must not kill the server
            message = record.getMessage()
        level = record.levelno
        if self._loop is not None and threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._emit_now, level, message)
        else:
            self._emit_now(level, message)

    def _emit_now(self, level: int, message: str) -> None:
        self._busy.on = True
        try:
            self._send(level, message)
        except Exception:  # pragma: no cover - the client may be gone
            pass
        finally:
            self._busy.on = False


def attach_client_handler(handler: ClientLogHandler, level: str) -> None:
    handler.setLevel(LEVELS.get(level, logging.INFO))
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    root = logging.getLogger()
    if handler not in root.handlers:
        root.addHandler(handler)


def detach(handler: logging.Handler) -> None:
    logging.getLogger().removeHandler(handler)
