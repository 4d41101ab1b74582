"""Worker processes for heavy, pure work: what would hold the interpreter, and so the event loop, too long.

Why processes and not threads: tree-sitter holds the GIL for a whole parse, and a walk over a large tree is Python
code that holds it in 5 ms slices, so a worker *thread* doing that work stalls the loop that answers the editor. A
child process has an interpreter of its own. What runs there is a top-level function whose arguments and result
are plain picklable values (a tree does not pickle: the child parses the text itself).

* Started by the first call, or in the background soon after the editor said ``initialized`` (never before the
  first answer), with ``tether.limits.processes`` children; 0 runs the same calls in a worker thread (debugging).
* Started by a fork server (``spawn`` where there is none), never by ``fork``: the server has threads. The fork
  server imports :data:`PRELOAD` once, so a child starts by forking a process that already has the parser.
* A child that dies (a crash, killed) breaks the pool: a new one is started and the call tried once more in it
  (the call may have died of another's crash); a second death answers -32803 ``workerProcessDied``. The server
  goes on either way.
* Each child watches the process that made it and ends when that is gone: no orphan after the server is killed.
  :meth:`Processes.close` ends them at shutdown.
* A cancelled call that no child has taken yet never runs.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import BrokenExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import RequestFailed

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.context import BaseContext

log = logging.getLogger(__name__)
R = TypeVar("R")

#: Imported by the fork server, so that every child has them before its first job: the parser and grammars.
PRELOAD = ("tether_lsp.server.syntax",)
#: How often a child looks whether the server that made it is still there (how long an orphan may live).
WATCH_PARENT_S = 0.25
#: How long after ``initialized`` the pool starts when nothing asked for it sooner: the editor's first requests
#: (the first file's parse, its markers) have the cores to themselves; a call before then starts it at once.
WARM_AFTER_S = 1.0
#: Tries in a new pool after a child died under a call.
RETRIES = 1
#: How long :meth:`Processes.close` lets the children finish their job before it kills them.
CLOSE_WAIT_S = 2.0


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0)) if affinity is not None else os.cpu_count() or 1)


class Processes:
    """A lazily started pool of worker processes, and the calls that run in it.

    ``size`` is read when the pool starts and at each call (a new size restarts the pool; 0 runs calls through
    ``in_thread``); ``tree_bytes`` (``tether.limits.processTreeBytes``) at each call, which puts it in force where
    the call runs (:func:`.process_trees.keep_at_most`).
    """

    def __init__(
        self,
        size: Callable[[], int],
        in_thread: Callable[..., Awaitable[Any]],
        preload: Sequence[str] = PRELOAD,
        tree_bytes: Callable[[], int] | None = None,
    ) -> None:
        self._size = size
        self._tree_bytes = tree_bytes
        self._in_thread = in_thread
        self._preload = tuple(preload)
        #: What each new child imports before it is counted ready (``preload`` and the modules of calls so far).
        self._modules: dict[str, None] = dict.fromkeys(self._preload)
        self._pool: ProcessPoolExecutor | None = None
        self._pool_size = 0
        self._lock = threading.Lock()  # the pool's state (held briefly: the loop takes it too)
        self._starting = threading.Lock()  # one start at a time (worker threads only: it waits for the children)
        self.closed = False
        #: How long the last pool took from its start until every child had run its first job (seconds).
        self.started_in: float | None = None

    def size(self) -> int:
        """Children to run: the setting, at most the cores this process may use (the work is CPU-bound: more
        children than cores only take turns, each costing its memory)."""
        return min(self._size(), usable_cores())

    async def run(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` in a worker process (a worker thread when the size is 0), awaited on the caller's loop.

        Cancelling the await cancels the call when no child has taken it yet; one already running finishes and
        its result is dropped.
        """
        if self.closed:
            raise _shutting_down()
        size = self.size()
        budget = self._tree_bytes() if self._tree_bytes is not None else None
        if size <= 0:
            self._drop_idle()
            return await self._in_thread(_call, budget, fn, *args)  # type: ignore[no-any-return]
        self._modules.setdefault(fn.__module__, None)
        for attempt in range(RETRIES + 1):
            try:
                return await self._once(size, _call, budget, fn, *args)
            except BrokenExecutor:
                if self.closed:
                    raise _shutting_down() from None
                if attempt == RETRIES:
                    raise RequestFailed(
                        f"a worker process ended unexpectedly while running {fn.__qualname__} "
                        f"(tried {RETRIES + 1} times)",
                        "workerProcessDied",
                    ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _once(self, size: int, fn: Callable[..., R], *args: Any) -> R:
        """One try in the pool of ``size`` children; BrokenExecutor when a child died (the pool is dropped)."""
        pool = self._pool
        try:
            if pool is None or self._pool_size != size:
                pool = await asyncio.to_thread(self._start, size)
            future = pool.submit(fn, *args)
        except BrokenExecutor:  # a child died before this call (or while the pool started)
            if pool is not None:
                self._replace(pool, "a worker process ended unexpectedly")
            raise
        except RuntimeError:  # closed meanwhile: the pool (or the loop's thread pool) takes nothing more
            if self.closed:
                raise _shutting_down() from None
            raise
        try:
            return await asyncio.wrap_future(future)
        except BrokenExecutor:
            self._replace(pool, "a worker process ended unexpectedly")
            raise
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self.closed and future.cancelled() and task is not None and not task.cancelling():
                raise _shutting_down() from None  # the pool dropped the call as it closed
            raise

    async def warm(self) -> None:
        """Start the pool and let every child import what it needs, in a thread (the loop never waits)."""
        size = self.size()
        if not self.closed and size > 0 and (self._pool is None or self._pool_size != size):
            await asyncio.to_thread(self._start, size)

    def pids(self) -> list[int]:
        """The children's process ids (tests, diagnostics)."""
        pool = self._pool
        processes = getattr(pool, "_processes", None) or {}
        return [p.pid for p in list(processes.values()) if p.pid is not None]

    def _start(self, size: int) -> ProcessPoolExecutor:
        """Worker thread: the running pool when it has ``size`` children, else a new one, warmed."""
        with self._starting:
            with self._lock:
                if self.closed:
                    raise _shutting_down()
                if self._pool is not None and self._pool_size == size:
                    return self._pool
                old, self._pool = self._pool, None
            if old is not None:
                old.shutdown(wait=False)  # a new size: the old children finish what they were given, then end
            started = time.perf_counter()
            pool = _new_pool(size, self._preload)
            try:
                warming = [pool.submit(_import_all, tuple(self._modules)) for _ in range(size)]
                for future in warming:
                    future.result()
            except BaseException:
                _end(pool)
                raise
            with self._lock:
                if not self.closed:
                    self._pool, self._pool_size = pool, size
            if self._pool is not pool:  # closed while it started
                _end(pool)
                raise _shutting_down()
            self.started_in = time.perf_counter() - started
            log.debug("%d worker process(es) ready in %.0f ms", size, self.started_in * 1000)
            return pool

    def _drop_idle(self) -> None:
        """The size became 0: the children finish what they were given, then end."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)

    def _replace(self, pool: ProcessPoolExecutor, why: str) -> None:
        """A broken pool is dropped (the next call starts a new one)."""
        with self._lock:
            if self._pool is not pool:
                return  # another call replaced it already
            self._pool = None
        log.warning("%s: starting a new one", why)
        pool.shutdown(wait=False)  # its calls have failed already; this ends its threads

    def close(self) -> None:
        """Refuse new calls and end the children: each may finish its job within ``CLOSE_WAIT_S``, then it is
        killed. Blocks; safe to call more than once."""
        with self._lock:
            self.closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            _end(pool)


def _new_pool(size: int, preload: Sequence[str]) -> ProcessPoolExecutor:
    import multiprocessing  # here: start-up does not pay for multiprocessing's modules
    from concurrent.futures import ProcessPoolExecutor

    if "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload(list(preload))
        context: BaseContext = forkserver
    else:  # pragma: no cover - Windows
        context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(size, context, initializer=_watch_parent, initargs=(os.getpid(),))


def _end(pool: ProcessPoolExecutor) -> None:
    """Cancel what no child has taken, let each child finish its job within ``CLOSE_WAIT_S``, then kill it."""
    # the executor has no way to end its children before Python 3.14 (terminate_workers): its own table
    children = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + CLOSE_WAIT_S
    for child in children:
        child.join(max(0.0, deadline - time.monotonic()))
    for child in children:
        if child.is_alive():
            child.kill()
            child.join(CLOSE_WAIT_S)
    pool.shutdown(wait=True)


def _shutting_down() -> RequestFailed:
    return RequestFailed("the server is shutting down", "shuttingDown")


def _call(tree_bytes: int | None, fn: Callable[..., R], *args: Any) -> R:
    """Where a call runs (a child, or a worker thread at size 0): the server's budget of kept trees put in force
    there, then ``fn(*args)``."""
    if tree_bytes is not None:
        from . import process_trees  # the child has it (the fork server preloads the parser); not at start-up

        process_trees.keep_at_most(tree_bytes)
    return fn(*args)


def _import_all(modules: Sequence[str]) -> int:
    """Child: import what the calls will need (its first job); its process id."""
    for name in modules:
        importlib.import_module(name)
    return os.getpid()


def _watch_parent(server_pid: int) -> None:
    """Child, as it starts: its standard output becomes its standard error (the server's standard output is the
    protocol, which only the server's loop writes: a stray print or a library's message in a child would break
    the client's framing); and end this process when the server that made it is gone (killed, crashed), whether
    the child's parent is the server or the fork server (which ends with the server)."""
    sys.stdout.flush()
    os.dup2(2, 1)
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(WATCH_PARENT_S)
            if os.getppid() != parent or not _alive(server_pid):
                os._exit(0)

    threading.Thread(target=watch, name="tether-watch-parent", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a process of another user took the number
        return False
    return True
