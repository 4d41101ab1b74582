"""The rule that the event loop never blocks, checked where blocking work happens.

Git, the database and file reads call :func:`assert_off_loop` first. In normal use it costs one lookup and
does nothing; with ``TETHER_ASSERT_OFF_LOOP=1`` in the environment (set for every server the tests start)
it raises when called on a thread that runs an event loop, so the whole suite proves that no handler does
such work on the loop.
"""

from __future__ import annotations

import asyncio
import os

_CHECK = os.environ.get("TETHER_ASSERT_OFF_LOOP") == "1"


class BlockingOnLoop(RuntimeError):
    """Blocking work was started on the event loop's thread."""


def assert_off_loop(what: str) -> None:
    if not _CHECK:
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return  # no loop runs on this thread: a worker, a script, a test
    raise BlockingOnLoop(f"{what} on the event loop")
