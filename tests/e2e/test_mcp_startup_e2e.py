"""``tether-lsp mcp --root`` starting: ``initialize`` (or ``server/discover``) and ``tools/list`` are answered before
the MCP SDK, pydantic and the engines load (they take about a second to import), the official SDK client accepts
those answers and the session goes on as before; nothing is logged to stderr unless asked (agents' clients show
the server's stderr to their users)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, ClassVar

import pytest
from mcp import StdioServerParameters

from tests.helpers import TOOL_NAMES, server_env
from tests.mcpclient import McpClient
from tether_lsp import __version__
from tether_lsp.mcp import handshake
from tether_lsp.mcp.server import listing
from tether_lsp.mcp.tools import TOOLS

COMMAND = Path(sys.executable).parent / "tether-lsp"
GATE_FOLDER = Path(__file__).parent / "import_gate"
#: What answering initialize must not wait for: the SDK and its stack, and what the tools need.
SDK = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "starlette", "uvicorn", "httpx2")
HEAVY = (*SDK, "sqlalchemy", "psycopg", "tree_sitter", "tree_sitter_python", "tree_sitter_yaml", "rapidfuzz", "numpy")
DEADLINE = 60.0


def initialize(request_id: int | str = 1, version: str = "2025-06-18") -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


class Gate:
    """The FIFO a gated server waits on before its first import of a HEAVY package: it reads one byte from it. The
    test holds it open for reading and writing, so the byte can be written before or after the server waits, and
    the server's open never blocks."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "gate"
        os.mkfifo(self.path)
        self.fd = os.open(self.path, os.O_RDWR)
        self.opened = False

    def env(self) -> dict[str, str]:
        path = os.pathsep.join(filter(None, [str(GATE_FOLDER), os.environ.get("PYTHONPATH")]))
        gated = {"TETHER_TEST_IMPORT_GATE": str(self.path), "TETHER_TEST_GATED_IMPORTS": ",".join(HEAVY)}
        return server_env({"PYTHONPATH": path, **gated})

    def open(self) -> None:
        if not self.opened:
            os.write(self.fd, b"g")
            self.opened = True

    def close(self) -> None:
        os.close(self.fd)


class Raw:
    """``tether-lsp mcp`` driven one JSON-RPC line at a time; each answer awaited with a deadline."""

    started: ClassVar[list[Raw]] = []

    def __init__(self, root: Path, env: dict[str, str], *extra: str) -> None:
        Raw.started.append(self)
        self.proc = subprocess.Popen(
            [str(COMMAND), "mcp", "--root", str(root), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.proc.stdout is not None
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()

    def _pump(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, *messages: dict[str, Any] | str) -> None:
        assert self.proc.stdin is not None
        text = "".join((m if isinstance(m, str) else json.dumps(m)) + "\n" for m in messages)
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        line = self.lines.get(timeout=DEADLINE)
        assert line, f"the server ended: {self.close()}"
        message: dict[str, Any] = json.loads(line)
        return message

    def close(self) -> str:
        """End the session (stdin closed); the server's stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        stderr = self.proc.stderr.read().decode()
        assert self.proc.wait(DEADLINE) == 0, stderr
        return stderr


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    (folder / "app.py").write_text("def main():\n    return 1\n")
    return folder


@pytest.fixture
def gate(tmp_path: Path) -> Iterator[Gate]:
    gate = Gate(tmp_path)
    yield gate
    gate.open()  # a server of a failed test may still wait
    gate.close()


@pytest.fixture(autouse=True)
def no_server_left() -> Iterator[None]:
    yield
    for server in Raw.started:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    Raw.started.clear()


def test_initialize_and_the_tool_list_are_answered_before_the_sdk_and_the_engines_load(root: Path, gate: Gate) -> None:
    server = Raw(root, gate.env())
    server.send(initialize())
    answered = server.answer()  # the old code imported the SDK first: it waited at the gate
    assert answered == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "tether-lsp", "version": __version__},
            "instructions": handshake.instructions(str(root.resolve())),
        },
    }
    call = {"name": "outline", "arguments": {"path": "app.py"}}
    server.send(
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    )
    listed = server.answer()  # the call needs the SDK and the engines: it waits
    assert listed["id"] == 3
    assert listed["result"]["tools"] == [listing(t).model_dump(by_alias=True, exclude_none=True) for t in TOOLS]
    gate.open()
    called = server.answer()  # the SDK's second answers to initialize and tools/list are not sent: this is next
    assert called["id"] == 2
    assert [item["name"] for item in called["result"]["structuredContent"]["items"]] == ["main"]
    server.send({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
    assert server.answer() == {**listed, "id": 4}  # the SDK's own answer, now
    assert server.close() == ""  # no log line: the SDK's answers were those sent


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_starts_a_session_on_the_early_answer(root: Path, gate: Gate, mode: str) -> None:
    """The official client's handshake (auto: ``server/discover``, legacy: ``initialize``) and its tool list
    complete while the server's SDK import waits; then the tools work."""
    params = StdioServerParameters(command=str(COMMAND), args=["mcp", "--root", str(root)], env=gate.env())
    with McpClient(params, timeout=DEADLINE, mode=mode) as client:
        assert [t.name for t in client.tools()] == TOOL_NAMES
        gate.open()
        assert client.client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        assert client.client.server_info is not None and client.client.server_info.name == "tether-lsp"
        assert client.client.instructions == handshake.instructions(str(root.resolve()))
        assert client.ok("outline", {"path": "app.py"})["items"][0]["name"] == "main"


def test_a_first_line_that_is_not_initialize_is_answered_by_the_sdk(root: Path) -> None:
    server = Raw(root, server_env())
    server.send({"jsonrpc": "2.0", "id": "p", "method": "ping"}, initialize(7, "2024-11-05"))
    assert server.answer() == {"jsonrpc": "2.0", "id": "p", "result": {}}
    assert server.answer()["result"]["protocolVersion"] == "2024-11-05"
    server.send({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    assert [t["name"] for t in server.answer()["result"]["tools"]] == TOOL_NAMES
    assert server.close() == ""


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25", "2026-07-28", "1.0"])
def test_initialize_pipelined_with_requests_gets_one_answer_each(root: Path, version: str) -> None:
    server = Raw(root, server_env())
    server.send(
        initialize("init", version),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    )
    answers = [server.answer() for _ in range(3)]
    assert [a["id"] for a in answers] == ["init", 2, 3]
    assert answers[0]["result"]["protocolVersion"] == handshake.negotiated(version)
    assert len(answers[1]["result"]["tools"]) == len(TOOL_NAMES)
    assert server.close() == ""  # nothing more came: stdout ended after the three answers


def test_logs_reach_stderr_from_warnings_unless_asked(root: Path, tmp_path: Path) -> None:
    quiet = Raw(root, server_env())
    quiet.send(initialize())
    quiet.answer()
    assert quiet.close() == ""
    settings = tmp_path / "tether.json"
    settings.write_text(json.dumps({"tether": {"mcp": {"historyFiles": "many"}}}))
    warned = Raw(root, server_env(), "--settings", str(settings))
    warned.send(initialize())
    warned.answer()
    assert "WARNING" in warned.close()
    serving = f"INFO tether_lsp.mcp.cli: tether-lsp mcp: serving {root.resolve()}"
    told = Raw(root, server_env(), "--log-level", "info")
    told.send(initialize())
    told.answer()
    assert serving in told.close()
    log_file = tmp_path / "mcp.log"
    to_file = Raw(root, server_env(), "--log-file", str(log_file))
    to_file.send(initialize())
    to_file.answer()
    assert to_file.close() == ""
    assert serving in log_file.read_text()
