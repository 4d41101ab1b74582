"""The markers state on a real clone and database, driven through a thread host as a front drives it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.handlers.markers.store import MIGRATIONS
from tether_lsp.mcp.settings import schema
from tether_lsp.server.thread_host import ThreadHost

from .test_state_service import clone


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, MarkersState, ThreadHost]]:
    root = clone(tmp_path)
    # the database a language server on the clone opens, with the markers' tables
    host = ThreadHost(schema().parse()[0], root, {"markers": lambda: MIGRATIONS})
    state = MarkersState(host)
    yield root, state, host
    state.close()
    host.close()
