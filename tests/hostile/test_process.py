"""The process: signals and a vanished editor end it through the shutdown path (nothing pending is lost);
internal errors never leak a traceback; the TCP transport resynchronises like stdio."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import free_port, server_env, wait_until_serving
from tests.hostile.conftest import assert_alive
from tests.rawclient import RawServer

A = "You are a helpful assistant that answers questions about the menu of the café."
B = "Summarize the following support ticket in three short bullet points for the team."


def prompts(*pairs: tuple[str, str]) -> str:
    return "".join(f'{name} = "{text}"\n\n' for name, text in pairs)


def playground_ids(server: RawServer, root: Path, text: str) -> list[str]:
    uri = (root / "p.py").as_uri()
    (root / "p.py").write_text(text)
    server.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}
    )
    server.notify(
        "tether/editor/didChangeActiveEditor", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
    )
    state = server.request("tether/playground/getState", {})["result"]
    return [p["promptId"] for p in state["prompts"]]


def start(root: Path, **extra: str) -> RawServer:
    env = server_env({"TETHER_DATABASE_URL": f"sqlite:///{root / 'db' / 'tether.db'}", **extra})
    return RawServer("--log-level", "debug", env=env)


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "parent-gone"])
def test_the_process_exits_and_flushes_what_was_pending(tmp_path: Path, how: str) -> None:
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    server = start(tmp_path)
    try:
        server.initialize(rootUri=tmp_path.as_uri(), processId=parent.pid)
        a, b = playground_ids(server, tmp_path, prompts(("A_PROMPT", A), ("B_PROMPT", B)))
        if how == "parent-gone":
            parent.kill()
            parent.wait()
        else:
            server.proc.send_signal(getattr(signal, how))
        assert server.proc.wait(timeout=20) == 0  # an orderly end (the watcher polls every 2 s)
    finally:
        parent.kill()
        server.close()
    again = start(tmp_path)
    try:
        again.initialize(rootUri=tmp_path.as_uri())
        # the map written at exit (not 0.5 s later) keeps the ids: reordered prompts are still recognised
        assert playground_ids(again, tmp_path, prompts(("B_PROMPT", B), ("A_PROMPT", A))) == [b, a]
    finally:
        again.close()


def test_an_internal_error_reaches_the_client_without_its_traceback(tmp_path: Path) -> None:
    server = RawServer(env=server_env({"TETHER_TEST_HOOKS": "1"}))
    try:
        server.initialize()
        error = server.request("tether/debug/raise", {})["error"]
        assert error["code"] == -32603
        assert error["data"] == {"kind": "internal"}
        assert "Traceback" not in json.dumps(error) and ".py" not in json.dumps(error)
        assert_alive(server)
    finally:
        server.close()


def test_tcp_resynchronises_after_a_framing_error() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether_lsp", "--tcp", "--port", str(port)], env=server_env(), stderr=subprocess.PIPE
    )
    try:
        wait_until_serving(proc)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        stream = sock.makefile("rwb")

        def send(message: dict[str, object]) -> None:
            data = json.dumps({"jsonrpc": "2.0", **message}).encode()
            stream.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            stream.flush()

        def answer(msg_id: int) -> dict[str, object]:
            while True:  # skip the server's notifications (log messages)
                length = 0
                while (line := stream.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                message = json.loads(stream.read(length))
                if message.get("id") == msg_id:
                    return message

        send({"id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}})
        assert "result" in answer(1)
        stream.write(b"Content-Length: 99999999999999999999999\r\n\r\n{}" + b"X" * 70_000 + b"\r\n")
        send({"id": 2, "method": "tether/listSelectors", "params": {}})
        assert "result" in answer(2)
        sock.close()
    finally:
        proc.kill()
        proc.wait(timeout=10)
