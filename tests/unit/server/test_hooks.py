"""Feature hooks: one failing never fails another, and work refused because the client already shut down is an
orderly end, not an error in the log (an editor that starts and stops the server at once saw a traceback)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest

from tether_lsp.server.errors import RequestFailed
from tether_lsp.server.hooks import Hooks


def run_initialized(*hooks: Callable[[object], Awaitable[None]]) -> list[str]:
    ran: list[str] = []
    registry: Hooks[object] = Hooks()
    for hook in hooks:
        registry.on_initialized(hook)

    async def last(_server: object) -> None:
        ran.append("last")

    registry.on_initialized(last)
    asyncio.run(registry.initialized(object()))
    return ran


def test_a_hook_refused_by_shutdown_logs_no_error(caplog: pytest.LogCaptureFixture) -> None:
    async def refused(_server: object) -> None:
        raise RequestFailed("the server is shutting down", "shuttingDown")

    with caplog.at_level(logging.DEBUG, logger="tether_lsp.server.hooks"):
        assert run_initialized(refused) == ["last"]
    assert [r.levelname for r in caplog.records] == ["DEBUG"]


def test_a_hook_that_fails_logs_its_traceback_and_the_next_runs(caplog: pytest.LogCaptureFixture) -> None:
    async def broken(_server: object) -> None:
        raise RuntimeError("boom")

    with caplog.at_level(logging.DEBUG, logger="tether_lsp.server.hooks"):
        assert run_initialized(broken) == ["last"]
    (record,) = caplog.records
    assert record.levelname == "ERROR" and record.exc_info is not None
