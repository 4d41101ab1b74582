"""The server's real start-up, as an editor starts it over stdio: what runs before ``initialize`` is answered.

A wrapper runs ``tether-lsp``'s own ``main`` with an audit hook that notes the first import of each package, a
``gc`` callback that notes each cyclic collection and a stdout that notes each write, in the order they happen, in
a file: "before initialize is answered" means before the server wrote its first message, whatever the timing.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import server_env

#: Packages initialize must not wait for (each is loaded by the first request that needs it, or never): the
#: grammars, and tempfile, which a grammar package (through importlib.resources) or platformdirs would bring.
HEAVY: tuple[str, ...] = ("sqlalchemy", "psycopg", "numpy", "rapidfuzz", "regex")
HEAVY += ("mcp", "httpx", "starlette", "uvicorn", "anyio")
HEAVY += ("tree_sitter_python", "tree_sitter_yaml", "tempfile", "platformdirs")

WRAPPER = """
import gc, sys
events = open(sys.argv[1], "w", buffering=1)
seen = set()

def imported(event, args):
    if event == "import" and isinstance(args[0], str):
        top = args[0].partition(".")[0]
        if top not in seen:
            seen.add(top)
            events.write(f"import {top}\\n")

def collected(phase, info):
    if phase == "start":
        events.write(f"gc {info['generation']}\\n")

class Noted:  # the stdout buffer the server writes its messages to
    def __init__(self, buffer):
        self._buffer = buffer

    def write(self, data):
        events.write("wrote\\n")
        return self._buffer.write(data)

    def __getattr__(self, name):
        return getattr(self._buffer, name)

class Out:
    def __init__(self, out):
        self._out, self.buffer = out, Noted(out.buffer)

    def __getattr__(self, name):
        return getattr(self._out, name)

sys.addaudithook(imported)
import tether_lsp.__main__ as entry  # compiled and run as `python -m tether_lsp` runs it: it turns collection off
gc.callbacks.append(collected)
sys.stdout = Out(sys.stdout)
sys.exit(entry.main(["--log-level", "warning"]))
"""

DEADLINE = 60.0


class Server:
    """A server started through the wrapper, spoken to in raw JSON-RPC."""

    def __init__(self, events: Path, cwd: Path) -> None:
        self.events = events
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WRAPPER, str(events)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env({"XDG_CACHE_HOME": str(cwd / "cache")}),
            cwd=cwd,
        )
        self._buffer = b""

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _more(self, deadline: float) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 1 << 16) if ready else b""
        if not chunk:
            raise AssertionError("the server sent nothing more before the deadline (or exited)")
        self._buffer += chunk

    def answer(self, request_id: int) -> dict[str, Any]:
        """The answer to ``request_id``; requests from the server are answered with null (no configuration)."""
        deadline = time.monotonic() + DEADLINE
        while True:
            while b"\r\n\r\n" not in self._buffer:
                self._more(deadline)
            header, _, rest = self._buffer.partition(b"\r\n\r\n")
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            while len(rest) < length:
                self._more(deadline)
                header, _, rest = self._buffer.partition(b"\r\n\r\n")
            message, self._buffer = json.loads(rest[:length]), rest[length:]
            if message.get("id") == request_id and "method" not in message:
                return dict(message)
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})

    def events_so_far(self) -> list[str]:
        return self.events.read_text().splitlines()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.send({"id": 99, "method": "shutdown"})
            self.answer(99)
            self.send({"method": "exit"})
        self.proc.wait(30)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(tmp_path / "events.txt", tmp_path)
    try:
        yield started
    finally:
        if started.proc.poll() is None:
            try:
                started.close()
            finally:
                if started.proc.poll() is None:
                    started.proc.kill()


def test_initialize_is_answered_before_any_collection_and_any_heavy_import(server: Server, tmp_path: Path) -> None:
    """No cyclic collection walks the heap while the server starts (they were ~8% of its start-up), and nothing
    initialize does not need is imported; once initialize is answered, collection runs again."""
    server.send(
        {
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
        }
    )
    assert "capabilities" in server.answer(1)["result"]
    events = server.events_so_far()
    before = events[: events.index("wrote")]
    assert [e for e in before if e.startswith("gc ")] == []
    assert [e for e in before if e.removeprefix("import ") in HEAVY] == []
    assert "import pygls" in before  # the hook saw the start-up's imports

    server.send({"method": "initialized", "params": {}})
    uri = (tmp_path / "m.py").as_uri()
    text = "".join(f"def f{i}(a, b):\n    return [a, b, {{'k': ({i}, a)}}]\n\n" for i in range(400))
    server.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        }
    )
    params = {"uri": uri, "selector": "selectFunctions", "args": [], "cursorNodeIds": []}
    server.send({"id": 2, "method": "tether/applySelector", "params": params})
    assert len(server.answer(2)["result"]["ranges"]) == 400
    server.close()
    after = server.events_so_far()[len(before) :]
    assert "gc 0" in after  # the youngest generation collected as objects were made: collection is on again
    assert "import tree_sitter_python" in after
    assert "import tree_sitter_yaml" not in after  # no YAML document: its grammar is never loaded
