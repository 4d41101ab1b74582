"""The worker pool and the way back to the event loop (docs/architecture.md, "The event loop and the workers").

Blocking work (git, the database, files, heavy engines) runs in a thread pool, never on the loop; workers
touch loop-owned state only through :meth:`Workers.call_on_loop`; background work the loop starts is kept
alive and its failure logged by :meth:`Workers.spawn`. Kept apart from the server so that this one job, and
its shutdown, reads in one place.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from .errors import RequestFailed, is_shutting_down

log = logging.getLogger(__name__)

R = TypeVar("R")


class Workers:
    """The thread pool (made on first use, sized then) and the loop it reports back to."""

    def __init__(self, size: Callable[[], int]) -> None:
        self._size = size
        self._pool: ThreadPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._background: set[asyncio.Future[Any]] = set()  # loop only: work started by spawn()
        #: Set once the server closes down: new work is refused as ``shuttingDown``.
        self.closed = False

    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R:
        """Run ``fn(*args)`` in the worker pool and await its result on the loop.

        Cancelling the awaiting request (``$/cancelRequest``) stops the wait; a job already running finishes
        in its thread and its result is dropped.
        """
        loop = asyncio.get_running_loop()
        if self.closed:
            raise RequestFailed("the server is shutting down", "shuttingDown")
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self._size(), thread_name_prefix="tether-worker")
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args))

    async def settled(self) -> None:
        """Loop: wait until the background work started so far (and what it starts meanwhile) has ended."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    def spawn(self, work: Awaitable[Any], what: str) -> None:
        """Loop: run ``work`` in the background, kept alive until done; a failure is logged, never lost."""
        task = asyncio.ensure_future(work)
        self._background.add(task)

        def done(finished: asyncio.Future[Any]) -> None:
            self._background.discard(finished)
            if finished.cancelled() or (exc := finished.exception()) is None:
                return
            if is_shutting_down(exc):
                log.debug("%s: stopped by the shutdown", what)  # an orderly end, nothing to tell the client
            else:
                log.warning("%s failed: %s", what, exc)

        task.add_done_callback(done)

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the event loop: at once when called there, else handed over from a worker.

        The one way for worker threads to touch loop-owned state or write to the protocol.
        """
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            fn(*args)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(fn, *args)

    def close(self) -> None:
        """Refuse new work, then wait for the jobs already running (queued ones are cancelled). Blocks."""
        self.closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
