"""Team mode while the shared PostgreSQL goes away and comes back: the user is told once that it is away (a
warning naming why) and once that it is back, and teammates' changes arrive again after it.

The test runs its own PostgreSQL cluster (stopping the session's would take it from the other tests)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.conftest import PostgresServer, _pg_bindir
from tests.e2e.test_markers_e2e import create, listed, repo, rng
from tests.e2e.test_markers_git_e2e import _start, listening
from tests.helpers import server_config

__all__ = ["repo"]  # the fixture


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    bindir = _pg_bindir()
    if bindir is None:
        pytest.fail("PostgreSQL is not installed (run `make test`, which installs Debian's postgresql)")
    server = PostgresServer(bindir)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def pg_ctl(server: PostgresServer, action: str) -> None:
    """Stop (fast) or start again the test's own cluster, on its port."""
    data, logfile = str(server.dir / "data"), str(server.dir / "log")
    opts = f"-p {server.port} -k {server.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
    args = ("-m", "fast", "stop") if action == "stop" else ("-l", logfile, "-o", opts, "start")
    done = server._run(str(server.bindir / "pg_ctl"), "-D", data, "-w", *args)
    assert done.returncode == 0, done.stderr


async def shown(lsp: Any, words: str, since: int) -> types.ShowMessageParams:
    """The first window/showMessage from the ``since``-th on holding ``words`` (waiting for it)."""
    async with asyncio.timeout(30):
        while True:
            arrived = lsp.protocol.wait_for_notification("window/showMessage")  # before looking: no race
            for message in lsp.messages[since:]:
                if words in message.message:
                    return message
            await asyncio.wrap_future(arrived)


@pytest.mark.postgres
async def test_the_user_is_told_when_the_team_database_goes_away_and_comes_back(
    repo: Path, own_postgres: PostgresServer
) -> None:
    url = own_postgres.url
    first = await _start(server_config(TETHER_DATABASE_URL=url), repo)
    teammate = await _start(server_config(TETHER_DATABASE_URL=url), repo)
    try:
        uri = (repo / "calc.py").as_uri()
        await listed(first, uri)
        await listening(first)
        before = len(first.messages)
        pg_ctl(own_postgres, "stop")
        away = await shown(first, "cannot be reached", before)
        assert away.type == types.MessageType.Warning
        assert "Connection refused" in away.message or "server closed" in away.message, away.message
        assert "tether@" not in away.message  # the database URL is not shown
        pg_ctl(own_postgres, "start")
        back = await shown(first, "reachable again", before)
        assert back.type == types.MessageType.Info
        assert sum("cannot be reached" in m.message for m in first.messages[before:]) == 1  # once, not per retry
        waiter = asyncio.ensure_future(first.wait_for_notification("tether/markers/didChange"))
        await create(teammate, uri, rng(2, 0, 6, 12), "after the outage")
        params = await asyncio.wait_for(waiter, 15)
        assert list(params["uris"] if isinstance(params, dict) else params.uris) == [uri]
    finally:
        for lsp in (first, teammate):
            await lsp.shutdown_session()
            await lsp.stop()
