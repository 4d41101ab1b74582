"""The client's first request answered before the MCP SDK is imported (``tether-lsp mcp --root``).

Why: importing the SDK takes most of a second (its pydantic models of every protocol version are built at import),
and an agent's client waits for the answer to its first request before it lists the tools or shows the server as
ready. So the command reads the first line of stdin itself, in a thread, while the SDK and the tools import, and
answers it when it opens a session: ``initialize`` (the handshake of the protocol up to 2025-11-25, what most
clients send) or ``server/discover`` with a 2026-07-28 envelope (the SDK's own Python client probes with it). The
answer is what the SDK's server answers: the server's name, version, capabilities and instructions, and for
``initialize`` the protocol version negotiated as the SDK negotiates it (the client's when the handshake knows it,
else the newest). A test compares both answers for every version the SDK knows.

Nothing else changes: the line is handed to the SDK once it is imported (:func:`.server.serve_stdio`), which
answers it again; that second answer is not sent (it is compared with the first, and a difference is logged as
an error). The line is read a byte at a time, so nothing after it leaves the pipe before the SDK's transport
reads it. A first line that opens no session this way (a ping, a malformed request, another version) gets no
early answer: the SDK answers it as before, once imported.

This module imports nothing of the SDK, of the engines or of the tools.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Mapping
from typing import Any

from tether_lsp import __version__

#: The protocol versions the SDK negotiates through ``initialize``, oldest to newest, and those whose requests each
#: carry their envelope (``mcp_types.version``'s ``HANDSHAKE_PROTOCOL_VERSIONS`` and ``MODERN_PROTOCOL_VERSIONS``;
#: tests/unit/mcp/test_handshake.py fails when the SDK's lists differ).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
#: The reserved ``_meta`` keys of a 2026-07-28 envelope.
ENVELOPE = "io.modelcontextprotocol/"
SERVER_NAME = "tether-lsp"
#: What :func:`.server.build`'s server declares: tools, whose list never changes.
CAPABILITIES: Mapping[str, Any] = {"tools": {"listChanged": False}}

Json = dict[str, Any]


def instructions(roots: str) -> str:
    """What the server tells agents in its ``initialize`` answer (``roots``: the roots, described)."""
    return (
        f"Tether reads and edits the Python and YAML files (and other UTF-8 text files) under {roots}. Use outline "
        "or select to find code by structure, read for exact text and the file's version, then edit with that "
        "version as base_version: edits are placed even if the file changed since, or refused, never guessed. "
        "prompts lists a file's LLM prompts with the ids the editors' playground uses; run_prompt runs one. "
        "notes and note_add read and pin notes on code: the markers people see in their editors."
    )


def negotiated(requested: str) -> str:
    """The protocol version the server answers: the client's when the handshake knows it, else the newest."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def server_info() -> Json:
    return {"name": SERVER_NAME, "version": __version__}


def capabilities() -> Json:
    """A copy of :data:`CAPABILITIES` (an answer is the caller's to change)."""
    return {name: dict(value) for name, value in CAPABILITIES.items()}


def initialize_result(params: Json, roots: str) -> Json:
    """The ``initialize`` result the SDK's server gives for these (well-formed) parameters."""
    return {
        "protocolVersion": negotiated(params["protocolVersion"]),
        "capabilities": capabilities(),
        "serverInfo": server_info(),
        "instructions": instructions(roots),
    }


def discover_result(roots: str) -> Json:
    """The ``server/discover`` result the SDK's server gives to a well-formed 2026-07-28 request."""
    return {
        "supportedVersions": list(MODERN_VERSIONS),
        "capabilities": capabilities(),
        "instructions": instructions(roots),
        "cacheScope": "private",
        "ttlMs": 0,
        "resultType": "complete",
        "_meta": {f"{ENVELOPE}serverInfo": server_info()},
    }


def early_result(message: Any, roots: str) -> Json | None:
    """The result of a first request that opens a session, or None: the SDK answers it."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None
    params = message.get("params")
    if message.get("method") == "initialize" and isinstance(params, dict) and opens_handshake(params):
        return initialize_result(params, roots)
    if message.get("method") == "server/discover" and isinstance(params, dict) and opens_modern(params):
        return discover_result(roots)
    return None


def opens_handshake(params: Json) -> bool:
    """``initialize`` parameters with what the SDK requires (it checks the rest)."""
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and implementation(params.get("clientInfo"))
    )


def opens_modern(params: Json) -> bool:
    """``server/discover`` parameters that are only a whole 2026-07-28 envelope."""
    meta = params.get("_meta")
    if set(params) != {"_meta"} or not isinstance(meta, dict):
        return False
    return (
        meta.get(f"{ENVELOPE}protocolVersion") in MODERN_VERSIONS
        and implementation(meta.get(f"{ENVELOPE}clientInfo"))
        and isinstance(meta.get(f"{ENVELOPE}clientCapabilities"), dict)
    )


def implementation(info: Any) -> bool:
    return isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)


class FirstLine:
    """Reads stdin's first line in a thread and answers it when it opens a session; :meth:`join` hands over."""

    def __init__(self, roots: str, stdin: int = 0, stdout: int = 1) -> None:
        self.roots = roots
        self.stdin, self.stdout = stdin, stdout
        #: The bytes read (the first line, or less at end of input): the SDK's transport never saw them.
        self.consumed = b""
        #: The id and result of the request answered here, or None.
        self.answered: tuple[int | str, Json] | None = None
        self._thread = threading.Thread(target=self._run, name="tether-mcp-first-line", daemon=True)

    def start(self) -> FirstLine:
        self._thread.start()
        return self

    def join(self) -> None:
        """Wait until the first line is read and answered (or stdin ended), before the SDK's transport takes
        stdin and stdout."""
        self._thread.join()

    def lines(self) -> list[str]:
        """The consumed bytes as the SDK's stdio transport splits and decodes them."""
        return list(io.TextIOWrapper(io.BytesIO(self.consumed), encoding="utf-8", errors="replace"))

    def _run(self) -> None:
        self.consumed = read_line(self.stdin)
        lines = self.lines()
        if len(lines) != 1:
            return
        try:
            message = json.loads(lines[0])
        except ValueError:
            return
        result = early_result(message, self.roots)
        if result is None:
            return
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        write_all(self.stdout, (json.dumps(answer, ensure_ascii=False, separators=(",", ":")) + "\n").encode())
        self.answered = (message["id"], result)


def read_line(fd: int) -> bytes:
    """Bytes up to and including the first newline (or to the end of input), read one at a time so that the rest
    stays in the pipe for the SDK's transport (an ``initialize`` line is a few hundred bytes)."""
    got = bytearray()
    while True:
        try:
            byte = os.read(fd, 1)
        except OSError:
            break
        if not byte:
            break
        got += byte
        if byte == b"\n":
            break
    return bytes(got)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
