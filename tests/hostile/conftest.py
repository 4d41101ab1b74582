"""Hostile input against the real server process over stdio (tests/rawclient.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import server_env
from tests.rawclient import RawServer


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawServer]:
    """A server with a data folder of its own: hostile tests store markers of huge lines, which in the shared test
    home piled up run after run (every list of those files read them all) and were shared by concurrent workers."""
    server = RawServer("--log-level", "debug", env=server_env(tmp_home=tmp_path))
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def ready(raw: RawServer) -> RawServer:
    raw.initialize()
    return raw


def assert_alive(server: RawServer) -> None:
    """The server still answers, and answers the right thing."""
    answer = server.request("tether/listSelectors", {})
    assert "result" in answer and answer["result"]["selectors"], answer
    assert server.proc.poll() is None
