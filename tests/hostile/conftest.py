"""Hostile input against the real server process over stdio (tests/rawclient.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.rawclient import RawServer


@pytest.fixture
def raw() -> Iterator[RawServer]:
    server = RawServer("--log-level", "debug", env=None)
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
