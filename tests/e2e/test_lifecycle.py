"""Start, initialize, shut down, exit — over real stdio; no orphaned process in any of the ways it ends."""

from __future__ import annotations

import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, server_config, wait_until_serving
from tests.rawclient import RawServer


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient):
    yield


async def test_initialize_shutdown_exit_leaves_no_process(client: LanguageClient) -> None:
    result = await client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    assert result.server_info is not None and result.server_info.name == "tether-lsp"
    sync = result.capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental
    assert sync.save == types.SaveOptions(include_text=True)
    assert result.capabilities.selection_range_provider
    await client.shutdown_session()  # returns once the server process has exited


def test_shutdown_then_exit_exits_with_0() -> None:
    server = RawServer()
    server.initialize()
    assert server.request("shutdown")["result"] is None
    server.notify("exit")
    assert server.proc.wait(timeout=10) == 0


def test_exit_without_shutdown_exits_with_1() -> None:
    server = RawServer()
    server.initialize()
    server.notify("exit")
    assert server.proc.wait(timeout=10) == 1


def test_closed_stdin_without_shutdown_ends_the_server_with_1() -> None:
    """The client left without ``shutdown``: an abnormal end, as ``exit`` without it."""
    server = RawServer()
    server.initialize()
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.proc.wait(timeout=10) == 1


def test_closed_stdin_after_shutdown_ends_the_server_with_0() -> None:
    server = RawServer()
    server.initialize()
    assert server.request("shutdown")["result"] is None
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.proc.wait(timeout=10) == 0


def test_requests_after_shutdown_are_refused_not_ignored() -> None:
    server = RawServer()
    server.initialize()
    assert server.request("shutdown")["result"] is None
    reply = server.request("textDocument/selectionRange", {"textDocument": {"uri": "file:///a.py"}, "positions": []})
    assert reply["error"]["code"] == -32600
    server.notify("exit")
    assert server.proc.wait(timeout=10) == 0


def test_server_exits_when_its_parent_process_dies() -> None:
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    server = RawServer()
    try:
        server.initialize(processId=parent.pid)
        parent.kill()
        parent.wait()
        assert server.proc.wait(timeout=15) == 0
    finally:
        server.close()


def test_logs_go_to_stderr_and_stdout_carries_only_protocol() -> None:
    server = RawServer("--log-level", "debug")
    server.initialize()
    server.request("shutdown")
    server.notify("exit")
    server.wait_closed()
    assert b"position encoding" in server.stderr  # our log line went to stderr
    assert server.garbage is None  # every stdout line was LSP framing
    assert server.received >= 2  # and they parsed: the initialize answer, the shutdown answer, log messages


def test_version_flag() -> None:
    out = subprocess.run([sys.executable, "-m", "tether_lsp", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("tether-lsp ")


@pytest.mark.parametrize("flag", ["--tcp", "--ws"])
def test_tcp_and_websocket_transports(flag: str) -> None:
    import asyncio
    import json
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "tether_lsp", flag, "--port", str(port)], stderr=subprocess.PIPE)
    try:
        wait_until_serving(proc)
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)  # the first connection is the session
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        }
        if flag == "--tcp":
            with conn:
                body = json.dumps(init).encode()
                conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                data = b""
                reply: dict[str, object] = {}
                while reply.get("id") != 1:
                    while b"\r\n\r\n" not in data:
                        chunk = conn.recv(65536)
                        assert chunk, "connection closed before the initialize result"
                        data += chunk
                    header, _, data = data.partition(b"\r\n\r\n")
                    length = int(header.split(b"\r\n")[0].split(b":")[1])
                    while len(data) < length:
                        data += conn.recv(65536)
                    reply, data = json.loads(data[:length]), data[length:]
        else:
            conn.close()  # the WebSocket server serves each connection on its own
            from websockets.asyncio.client import connect

            async def talk() -> dict[str, object]:
                async with connect(f"ws://127.0.0.1:{port}") as ws:
                    await ws.send(json.dumps(init))
                    while True:
                        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                        if message.get("id") == 1:
                            return dict(message)

            reply = asyncio.run(talk())
        result = reply["result"]
        assert isinstance(result, dict) and result["serverInfo"]["name"] == "tether-lsp"
    finally:
        proc.kill()
        proc.wait(timeout=10)
