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

    def __init__(self, events: Path, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.events = events
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WRAPPER, str(events)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env({"XDG_CACHE_HOME": str(cwd / "cache"), **(env or {})}),
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


GATE_FOLDER = Path(__file__).parent / "import_gate"
#: A file whose functions every kind of definition holds: plain, async, decorated, methods, nested, in classes.
DEFINITIONS = "".join(
    f"def f{i}(a):\n    def inner():\n        return a\n    return inner\n\n"
    f"@decorated({i})\nasync def g{i}():\n    pass\n\n"
    f"class C{i}:\n    def m(self):\n        return {i}  # é 🚀\n\n    @property\n    def p(self): return 1\n\n"
    for i in range(300)
)


def test_a_fresh_documents_first_selection_is_answered_while_numpy_cannot_load(tmp_path: Path) -> None:
    """numpy is left out of start-up (it loads in a worker after ``initialized``); the first kind selection of a
    newly opened file does not wait for it: here numpy's import is held at a gate (``import_gate``) and the answer
    still comes, equal to the one the document's index gives afterwards. Before, the first selection built the
    index and scanned it with numpy, and waited at the gate."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    gate_fd = os.open(gate, os.O_RDWR)  # held open: the server's open of the FIFO never blocks
    path = os.pathsep.join(filter(None, [str(GATE_FOLDER), os.environ.get("PYTHONPATH")]))
    gated = {"PYTHONPATH": path, "TETHER_TEST_IMPORT_GATE": str(gate), "TETHER_TEST_GATED_IMPORTS": "numpy"}
    server = Server(tmp_path / "events.txt", tmp_path, gated)
    try:
        hello: dict[str, Any] = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
        server.send({"id": 1, "method": "initialize", "params": hello})
        server.answer(1)
        server.send({"method": "initialized", "params": {}})
        uri = (tmp_path / "defs.py").as_uri()
        document = {"uri": uri, "languageId": "python", "version": 1, "text": DEFINITIONS}
        server.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})

        def select(request_id: int, selector: str, cursors: list[int]) -> dict[str, Any]:
            asked = {"uri": uri, "selector": selector, "args": [], "cursorNodeIds": cursors}
            server.send({"id": request_id, "method": "tether/applySelector", "params": asked})
            return dict(server.answer(request_id)["result"])

        first = select(2, "selectFunctions", [])
        assert len(first["ranges"]) == 300 * 5
        assert "import numpy" not in server.events_so_far()
        assert select(3, "selectChildren", [])["ranges"]  # builds the document's index
        assert select(4, "selectFunctions", []) == first  # now from the index
    finally:
        os.write(gate_fd, b"g")  # numpy may load now (the server waits for its worker threads as it shuts down)
        try:
            server.close()
        finally:
            os.close(gate_fd)
            if server.proc.poll() is None:
                server.proc.kill()
