"""The worker processes (server/processes.py) with real children: where a call runs, a child that dies, a call
cancelled before a child took it, the size 0 that runs calls in a thread, and no child left after close.

Children block on a named pipe the test writes to when it wants them to go on: nothing here waits on the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.helpers import server_env
from tests.unit.server.process_probe import pid_and_modules, stdout_is_stderr
from tether_lsp.server.errors import RequestFailed
from tether_lsp.server.processes import Processes


def die_unless(marker: str) -> int:
    """Child: dies the first time (leaving ``marker``), answers its process id the next."""
    if not os.path.exists(marker):
        Path(marker).touch()
        os._exit(3)
    return os.getpid()


def die() -> None:
    os._exit(3)


def wait_on(fifo: str) -> int:
    """Child: blocks until the test writes to ``fifo``."""
    with open(fifo) as reading:
        reading.read()
    return os.getpid()


def leave(marker: str) -> None:
    Path(marker).touch()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
async def processes() -> AsyncIterator[Processes]:
    pool = Processes(lambda: 1, asyncio.to_thread)
    yield pool
    await asyncio.to_thread(pool.close)


async def test_a_call_runs_in_a_child_that_imported_only_what_it_needs(processes: Processes) -> None:
    pid, modules = await processes.run(pid_and_modules)
    assert pid != os.getpid() and pid in processes.pids()
    assert "tree_sitter" in modules  # the fork server's preload: the parser is there before the first job
    heavy = {"sqlalchemy", "numpy", "pygls", "lsprotocol.types", "httpx", "mcp", "tether_lsp.compose"}
    assert heavy.isdisjoint(modules)
    assert processes.started_in is not None


async def test_a_child_writes_nothing_to_the_servers_standard_output(processes: Processes) -> None:
    """The server's standard output is the protocol: a child's prints go to standard error."""
    assert not os.path.samestat(os.fstat(1), os.fstat(2))  # here they differ (pytest captures each apart)
    assert await processes.run(stdout_is_stderr)


async def test_size_zero_runs_the_call_in_a_thread_of_this_process() -> None:
    pool = Processes(lambda: 0, asyncio.to_thread)
    pid, _modules = await pool.run(pid_and_modules)
    assert pid == os.getpid() and pool.pids() == []


async def test_a_child_that_dies_is_replaced_and_the_call_tried_again(processes: Processes, tmp_path: Path) -> None:
    first = await processes.run(os.getpid)
    marker = tmp_path / "died"
    answered = await processes.run(die_unless, str(marker))
    assert marker.exists()  # it did die once
    assert answered != first and processes.pids() == [answered]


async def test_a_call_that_kills_every_child_answers_an_error_and_the_next_call_runs(processes: Processes) -> None:
    with pytest.raises(RequestFailed) as failed:
        await processes.run(die)
    assert failed.value.data["kind"] == "workerProcessDied"
    assert "die" in failed.value.message and "ended unexpectedly" in failed.value.message
    assert await processes.run(os.getpid) in processes.pids()


async def test_a_cancelled_call_no_child_took_never_runs(processes: Processes, tmp_path: Path) -> None:
    fifo = tmp_path / "go"
    os.mkfifo(fifo)
    await processes.warm()
    blocker = asyncio.ensure_future(processes.run(wait_on, str(fifo)))
    # the one child holds the blocker and at most two more calls wait in the queue to the children (its size):
    # the last call is still the pool's own, cancellable
    markers = [tmp_path / f"call-{i}" for i in range(4)]
    calls = [asyncio.ensure_future(processes.run(leave, str(m))) for m in markers]
    await asyncio.sleep(0)  # one turn of the loop: every call handed to the pool (no clock involved)
    calls[-1].cancel()
    await asyncio.to_thread(fifo.write_text, "go")
    assert await blocker in processes.pids()
    await asyncio.gather(*calls[:-1])
    with pytest.raises(asyncio.CancelledError):
        await calls[-1]
    assert [m.exists() for m in markers] == [True, True, True, False]


async def test_close_ends_every_child_and_refuses_new_calls(processes: Processes) -> None:
    await processes.warm()
    children = processes.pids()
    assert children and all(alive(pid) for pid in children)
    await asyncio.to_thread(processes.close)
    assert not any(alive(pid) for pid in children)
    with pytest.raises(RequestFailed) as refused:
        await processes.run(os.getpid)
    assert refused.value.data["kind"] == "shuttingDown"


async def test_a_new_size_starts_a_new_pool_and_size_zero_lets_the_children_go() -> None:
    size = [1]
    pool = Processes(lambda: size[0], asyncio.to_thread)
    try:
        await pool.warm()
        assert len(pool.pids()) == 1
        size[0] = 2
        await pool.warm()
        children = pool.pids()
        assert len(children) == 2
        size[0] = 0
        assert await pool.run(os.getpid) == os.getpid()
        assert pool.pids() == []
        await asyncio.to_thread(ended, children)
    finally:
        await asyncio.to_thread(pool.close)


def ended(pids: list[int]) -> None:
    """Wait for each process (a child of this one) to end."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def test_building_the_server_imports_nothing_of_multiprocessing() -> None:
    probe = (
        "import sys; from tether_lsp.compose import create_server; create_server(); "
        "print(sorted(m for m in sys.modules if m.startswith(('multiprocessing', 'concurrent.futures.process'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=server_env())
    assert out.stdout.strip() == "[]"


async def test_the_default_runs_two_children_and_never_more_than_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """A HEAD change relocates its files in the children: two on a machine with two cores or more (one child did
    the whole of it while the other core waited), never more children than cores (they would only take turns)."""
    from tether_lsp.server.settings import LimitSettings

    assert LimitSettings().processes == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert Processes(lambda: LimitSettings().processes, asyncio.to_thread).size() == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    pool = Processes(lambda: LimitSettings().processes, asyncio.to_thread)
    try:
        assert pool.size() == 2
        await pool.warm()
        assert len(pool.pids()) == 2
    finally:
        await asyncio.to_thread(pool.close)
