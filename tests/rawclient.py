"""A minimal synchronous JSON-RPC client over a server's stdio, for what pytest-lsp cannot send:
invalid JSON, requests after shutdown, exit without shutdown, a vanished parent process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from queue import Empty, Queue
from typing import Any

from tests.helpers import server_env


class RawServer:
    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tether_lsp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env or server_env(),
        )
        self.messages: Queue[dict[str, Any]] = Queue()
        self._next_id = 0
        #: A stdout line that is not LSP framing (stdout must carry only the protocol), if one came.
        self.garbage: bytes | None = None
        self.received = 0  # messages read off stdout
        self.stderr = b""
        self._stderr_grew = threading.Condition()
        self._threads = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._drain_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._stderr_grew:
                self.stderr += line
                self._stderr_grew.notify_all()

    def wait_for_stderr(self, needle: bytes, timeout: float = 10) -> bytes:
        """Until the server's log holds `needle`: stderr is read by its own thread, so a line logged before an
        answer on stdout may still be in the pipe when that answer arrives."""
        with self._stderr_grew:
            if not self._stderr_grew.wait_for(lambda: needle in self.stderr, timeout):
                raise TimeoutError(f"{needle!r} never appeared in the server's stderr")
            return self.stderr

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode(errors="replace").partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
                elif name.lower() != "content-type":
                    self.garbage = line
                    return
            if length is None:
                self.garbage = line
                return
            self.messages.put(json.loads(out.read(length)))
            self.received += 1

    def send_bytes(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send_raw(self, data: bytes) -> None:
        """Bytes as they are: framing and all (for framing errors)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_raw_json(self, message: dict[str, Any]) -> None:
        """A message whose strings may hold lone surrogates (json.dumps writes them as \\ud800 escapes)."""
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=True).encode("ascii"))

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def next_id(self) -> int:
        """A request id not used before on this connection."""
        self._next_id += 1
        return self._next_id

    def request(self, method: str, params: Any = None, timeout: float = 10) -> dict[str, Any]:
        msg_id = self.next_id()
        self.send({"id": msg_id, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def wait_for(self, predicate: Any, timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message from the server")
            try:
                message = self.messages.get(timeout=left)
            except Empty:
                continue
            if message.get("method") and "id" in message:  # a server -> client request: answer null
                self.send({"id": message["id"], "result": None})
            if predicate(message):
                return message

    def initialize(self, **params: Any) -> dict[str, Any]:
        result = self.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}, **params})
        self.notify("initialized", {})
        return result

    def wait_closed(self, timeout: float = 10) -> None:
        """Until the process has exited and its stdout and stderr are read to the end."""
        self.proc.wait(timeout=timeout)
        for thread in self._threads:
            thread.join(timeout)

    def close(self) -> int:
        if self.proc.poll() is None:
            self.proc.kill()
        return self.proc.wait(timeout=10)
