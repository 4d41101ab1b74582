"""In-process tests build servers that are never shut down: the log handler such a server puts on the root
logger (forwarding Tether's records to a client it no longer has) goes with the test, so a later test's log
capture sees only its own records."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from tether_lsp.server.logs import ClientLogHandler


@pytest.fixture(autouse=True)
def no_client_log_handler_outlives_its_test() -> Iterator[None]:
    yield
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, ClientLogHandler)]:
        root.removeHandler(handler)
