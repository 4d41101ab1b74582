"""The runtime's own method table: the lifecycle, document sync and the introspection endpoints.

Installed before every feature's table (``tether_lsp.compose``), by the same router; the test hooks
(``tether/debug/*``) are rows only when ``TETHER_TEST_HOOKS=1``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lsprotocol import types

from . import debug, document_sync, lifecycle
from .methods import Feature, Method

if TYPE_CHECKING:
    from .app import TetherServer


def runtime_feature() -> Feature[TetherServer]:
    """The rows, read when the server is built (the test hooks depend on the environment)."""
    rows: list[Method[TetherServer]] = [
        Method(types.INITIALIZE, lifecycle.initialize),
        Method(types.INITIALIZED, lifecycle.initialized, runs="async", notification=True),
        Method(
            types.WORKSPACE_DID_CHANGE_CONFIGURATION,
            lifecycle.did_change_configuration,
            runs="async",
            notification=True,
        ),
        Method(types.SHUTDOWN, lifecycle.shutdown, runs="async"),
        Method(types.TEXT_DOCUMENT_DID_OPEN, document_sync.did_open, notification=True),
        Method(types.TEXT_DOCUMENT_DID_CHANGE, document_sync.did_change, notification=True),
        Method(types.TEXT_DOCUMENT_DID_CLOSE, document_sync.did_close, notification=True),
        Method(
            types.TEXT_DOCUMENT_DID_SAVE,
            document_sync.did_save,
            notification=True,
            options=types.SaveOptions(include_text=True),
        ),
        Method("tether/documentInfo", debug.document_info, debug.DocumentInfoParams, debug.DocumentInfo, runs="async"),
    ]
    if os.environ.get("TETHER_TEST_HOOKS") == "1":
        rows += [
            Method("tether/debug/raise", debug.debug_raise),
            Method("tether/debug/loopStats", debug.loop_stats, debug.LoopStatsParams, debug.LoopStats),
            Method(
                "tether/debug/raiseInNotification",
                debug.debug_raise_notification,
                debug.DebugParams,
                notification=True,
            ),
        ]
    return Feature("runtime", setup=_setup, methods=rows)


def _setup(server: TetherServer) -> TetherServer:
    server.on_initialized(document_sync.warm_converters_off_loop)
    return server
