"""The server's worker processes end with it: killed (SIGKILL, no chance to clean up) or shut down in order, no
process it started is left behind. Each process's end is awaited through a pidfd: no polling of the clock."""

from __future__ import annotations

import os
import select
import time
from pathlib import Path

from tests.helpers import server_env
from tests.rawclient import RawServer

#: A file large enough for its prompts to be found in a worker process.
PROMPTS = "".join(f'ANSWER_{k}_PROMPT = "You are assistant number {k}; answer in one sentence."\n' for k in range(600))


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, theirs, ...), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue  # gone meanwhile
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def ended_within(pids: set[int], timeout: float) -> set[int]:
    """Wait until every one of ``pids`` has ended (at most ``timeout`` seconds); those still running."""
    handles = {}
    for pid in pids:
        try:
            handles[os.pidfd_open(pid)] = pid
        except ProcessLookupError:
            continue  # ended already
    deadline = time.monotonic() + timeout
    try:
        while handles and (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select(list(handles), [], [], left)
            for fd in ready:
                os.close(fd)
                del handles[fd]
        return set(handles.values())
    finally:
        for fd in handles:
            os.close(fd)


def started_with_a_worker_process(tmp_path: Path) -> tuple[RawServer, set[int]]:
    """A server that found a large file's prompts (so its worker processes run), and the processes below it."""
    server = RawServer(env=server_env({"TETHER_DATABASE_URL": f"sqlite:///{tmp_path / 'tether.db'}"}))
    server.initialize(rootUri=tmp_path.as_uri())
    uri = (tmp_path / "agent.py").as_uri()
    server.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": PROMPTS}}
    )
    server.notify("tether/editor/didChangeActiveEditor", {"textDocument": {"uri": uri}})
    state = server.request("tether/playground/getState", {}, timeout=30)
    assert len(state["result"]["prompts"]) == 600
    below = descendants(server.proc.pid)
    # the fork server and the worker it forked (and multiprocessing's resource tracker)
    assert len(below) >= 2, below
    return server, below


def test_no_worker_process_outlives_a_killed_server(tmp_path: Path) -> None:
    server, below = started_with_a_worker_process(tmp_path)
    try:
        server.proc.kill()
        server.wait_closed()
        assert ended_within(below, timeout=15) == set()
    finally:
        server.close()


def test_shutdown_ends_every_worker_process(tmp_path: Path) -> None:
    server, below = started_with_a_worker_process(tmp_path)
    try:
        server.request("shutdown", None, timeout=20)
        server.notify("exit")
        assert server.proc.wait(timeout=20) == 0
        assert ended_within(below, timeout=15) == set()
    finally:
        server.close()


def test_the_worker_processes_start_after_initialized_not_before_the_first_answer(tmp_path: Path) -> None:
    server = RawServer("--log-level", "debug", env=server_env({"TETHER_DATABASE_URL": f"sqlite:///{tmp_path / 'db'}"}))
    try:
        server.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        assert descendants(server.proc.pid) == set()
        server.notify("initialized", {})
        server.wait_for_stderr(b"worker process(es) ready in", timeout=30)
        assert len(descendants(server.proc.pid)) >= 2
    finally:
        server.close()
