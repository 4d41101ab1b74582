"""Many files' markers relocated in the worker processes, asked from the worker thread a HEAD sync runs in.

The sync stays a worker thread's job (it reads git and the database, and in team mode holds its claims while it
computes); only the per-file work (:func:`.relocate.relocate_files`) goes to the worker processes, in batches, all
asked at once so that every process is busy. The thread waits without holding the interpreter, so the loop that
answers the editor runs meanwhile.

The processes are reached through the loop (:meth:`Host.run_in_process`). A thread must never wait for a loop that
has stopped (a server ending after a signal closes its workers without the loop): while it waits, the thread asks
the loop for a beat now and then, and when none comes for :data:`LOOP_GONE_S` it relocates what is left itself.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import Future
from functools import partial

from tether_lsp.server.errors import RequestFailed
from tether_lsp.server.host import Host

from .relocate import (
    FileDone,
    FileWork,
    Pending,
    Relocate,
    Relocated,
    Start,
    WireDone,
    from_wire,
    in_thread,
    relocate_wire,
    to_wire,
)

#: Files per call to a worker process: enough to make a call's round trip small beside its work (a file of 500
#: lines takes about 10 ms), few enough that the processes share a sync's files evenly.
FILES_PER_CALL = 8
#: How long the waiting thread sleeps between two looks at the loop.
BEAT_S = 1.0
#: The loop answering no beat for this long is taken for gone (the server is ending): the rest is done here.
LOOP_GONE_S = 10.0


def processes_of(host: Host) -> int:
    """How many worker processes the host has (``tether.limits.processes``; 0 in a front without that setting)."""
    limits = host.settings.named("limits")
    return int(limits.processes) if limits is not None else 0


def in_processes(host: Host) -> Relocate:
    """A :data:`~.relocate.Relocate` for worker threads that runs the files in the host's worker processes (in the
    calling thread when the host has none)."""

    def relocate(works: list[FileWork]) -> list[FileDone]:
        if not works or processes_of(host) <= 0:
            return in_thread(works)
        return _Calls(host, [works[k : k + FILES_PER_CALL] for k in range(0, len(works), FILES_PER_CALL)]).results()

    return relocate


def starting(host: Host) -> Start:
    """A :data:`~.relocate.Start` for worker threads: each batch of files goes to the host's worker processes at
    once, its answers waited for later (in the calling thread when the host has none)."""

    def start(works: list[FileWork]) -> Pending:
        if not works or processes_of(host) <= 0:
            return Relocated(in_thread(works))
        return _Calls(host, [works[k : k + FILES_PER_CALL] for k in range(0, len(works), FILES_PER_CALL)])

    return start


class _Calls:
    """The batches of one relocation, each a call to a worker process started on the loop, waited for here."""

    def __init__(self, host: Host, batches: list[list[FileWork]]) -> None:
        self.host = host
        self.batches = batches
        self.wire = [[to_wire(w) for w in batch] for batch in batches]  # here, not on the loop
        self.futures: list[Future[list[WireDone]]] = [Future() for _ in batches]
        self._beat = time.monotonic()
        self._lock = threading.Lock()
        host.call_on_loop(self._start)

    def _start(self) -> None:
        """Loop: every batch asked of the worker processes at once (the pool queues what it cannot run yet)."""
        self._answered()
        for batch, future in zip(self.wire, self.futures, strict=True):
            if future.set_running_or_notify_cancel():  # not taken back by a waiting thread that gave up on the loop
                task = asyncio.ensure_future(self.host.run_in_process(relocate_wire, batch))
                task.add_done_callback(partial(_settle, future))

    def _answered(self) -> None:
        with self._lock:
            self._beat = time.monotonic()

    def _silent_for(self) -> float:
        with self._lock:
            return time.monotonic() - self._beat

    def ready(self) -> bool:
        """Whether every batch has its answer (or failed): :meth:`results` waits no more."""
        return all(future.done() for future in self.futures)

    def results(self) -> list[FileDone]:
        """Worker thread: every batch's results in order (a failed call raises its error). The loop's silence is
        counted from now: a sync's pipeline may come back for these answers long after they were asked for."""
        self._answered()
        out: list[FileDone] = []
        for batch, future in zip(self.batches, self.futures, strict=True):
            out += self._wait(batch, future)
        return out

    def _wait(self, batch: list[FileWork], future: Future[list[WireDone]]) -> list[FileDone]:
        while True:
            try:
                return [from_wire(done) for done in future.result(timeout=BEAT_S)]
            except TimeoutError:
                if self._silent_for() > LOOP_GONE_S:
                    future.cancel()  # never started, or its answer would need the loop: done here instead
                    return in_thread(batch)
                self.host.call_on_loop(self._answered)


def _settle(future: Future[list[WireDone]], task: asyncio.Future[list[WireDone]]) -> None:
    """Loop: a worker process's answer (or failure) handed to the waiting thread."""
    if future.done():
        return
    if task.cancelled():  # the pool was closed under it: the server is ending
        future.set_exception(RequestFailed("the server is shutting down", "shuttingDown"))
    elif (error := task.exception()) is not None:
        future.set_exception(error)
    else:
        future.set_result(task.result())
