"""The client's first requests answered before the MCP SDK is imported (``tether-lsp mcp --root``).

Why: importing the SDK takes most of a second (its pydantic models of every protocol version are built at import),
and an agent's client waits for the answer to its first request before it lists the tools or shows the server as
ready. So the command reads stdin itself, in a thread, while the SDK and the tools' engines import, and answers
the first line when it opens a session: ``initialize`` (the handshake of the protocol up to 2025-11-25, what most
clients send) or ``server/discover`` with a 2026-07-28 envelope (the SDK's own Python client probes with it);
then ``tools/list`` of that session. The answers are what the SDK's server answers: the server's name, version,
capabilities and instructions, for ``initialize`` the protocol version negotiated as the SDK negotiates it (the
client's when the handshake knows it, else the newest), and the tool table (:mod:`.tools`, whose adapters load at
their first call). A test compares them with the SDK's for every version the SDK knows.

Nothing else changes: every line read is handed to the SDK once it is imported (:func:`.server.handed_over`), in
order, and the SDK answers it; its answers to the requests answered here are not sent (they are compared with
the first, and a difference is logged as an error). Lines are read a byte at a time and reading stops between two
lines, so nothing else leaves the pipe before the SDK's transport reads it. A first line that opens no session
this way (a ping, a malformed request, another version) gets no early answer and ends the reading: the SDK answers
it as before, once imported.

This module imports nothing of the SDK or of the engines.
"""

from __future__ import annotations

import io
import json
import os
import select
import sys
import threading
from collections.abc import Mapping
from typing import Any, NamedTuple

from tether_lsp import __version__

from .tools import TOOLS, Tool

#: The protocol versions the SDK negotiates through ``initialize``, oldest to newest, and those whose requests each
#: carry their envelope (``mcp_types.version``'s ``HANDSHAKE_PROTOCOL_VERSIONS`` and ``MODERN_PROTOCOL_VERSIONS``;
#: tests/unit/mcp/test_handshake.py fails when the SDK's lists differ).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
#: The reserved ``_meta`` keys of a 2026-07-28 envelope.
ENVELOPE = "io.modelcontextprotocol/"
#: What the SDK adds to a 2026-07-28 result of a listing (its cache hints, besides the ``serverInfo`` stamp).
MODERN_RESULT: Mapping[str, Any] = {"cacheScope": "private", "ttlMs": 0, "resultType": "complete"}
#: Whether stdin can be waited on together with a wake-up pipe (``select``); elsewhere only the first line is read.
READS_ON = sys.platform != "win32"
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
        **MODERN_RESULT,
        "_meta": {f"{ENVELOPE}serverInfo": server_info()},
    }


class Session(NamedTuple):
    """The session a first request answered here opened: its era and protocol version."""

    modern: bool
    version: str


def opening(message: Any, roots: str) -> tuple[Json, Session] | None:
    """The result of a first request that opens a session, and the session; None: the SDK answers it."""
    if not request(message):
        return None
    params = message.get("params")
    if message["method"] == "initialize" and isinstance(params, dict) and opens_handshake(params):
        result = initialize_result(params, roots)
        return result, Session(False, result["protocolVersion"])
    if message["method"] == "server/discover" and isinstance(params, dict) and opens_modern(params):
        return discover_result(roots), Session(True, params["_meta"][f"{ENVELOPE}protocolVersion"])
    return None


def tool_json(tool: Tool) -> Json:
    """A tool as ``tools/list`` shows it (what :func:`.server.listing` gives the SDK)."""
    hints = {
        "readOnlyHint": tool.read_only,
        "destructiveHint": tool.writes,
        "idempotentHint": tool.read_only,
        "openWorldHint": tool.open_world,
    }
    return {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.input_schema(),
        "annotations": hints,
    }


def tools_result(message: Any, session: Session) -> Json | None:
    """The result of a ``tools/list`` request in ``session``, or None (another request, a page asked for, an envelope
    of the other era): the SDK answers it."""
    if not request(message) or message["method"] != "tools/list":
        return None
    params = message.get("params", {})
    if not isinstance(params, dict) or not set(params) <= {"_meta"}:
        return None
    meta = params.get("_meta", {})
    if session.modern:
        if not opens_modern(params) or meta[f"{ENVELOPE}protocolVersion"] != session.version:
            return None
    elif not isinstance(meta, dict) or any(key.startswith(ENVELOPE) for key in meta):
        return None
    tools = [tool_json(tool) for tool in TOOLS]
    if not session.modern:
        return {"tools": tools}
    return {"tools": tools, **MODERN_RESULT, "_meta": {f"{ENVELOPE}serverInfo": server_info()}}


def request(message: Any) -> bool:
    """A JSON-RPC request (not a notification, not a batch) with an id the SDK takes as it is."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        return False
    request_id = message.get("id")
    return isinstance(request_id, (int, str)) and not isinstance(request_id, bool)


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


class EarlyAnswers:
    """Reads stdin's lines in a thread until :meth:`stop`: answers the first when it opens a session, then that
    session's ``tools/list``; keeps every line read for the SDK (:attr:`consumed`)."""

    def __init__(self, roots: str, stdin: int = 0, stdout: int = 1) -> None:
        self.roots = roots
        self.stdin, self.stdout = stdin, stdout
        #: The bytes read (whole lines, but for the end of input): the SDK's transport never saw them.
        self.consumed = bytearray()
        #: The ids and results of the requests answered here, in order.
        self.answered: list[tuple[int | str, Json]] = []
        self._wake_read, self._wake = os.pipe()
        self._thread = threading.Thread(target=self._run, name="tether-mcp-early-answers", daemon=True)

    def start(self) -> EarlyAnswers:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop reading between two lines and wait for it: then the SDK's transport may take stdin and stdout."""
        os.write(self._wake, b"!")
        self._thread.join()
        os.close(self._wake)
        os.close(self._wake_read)

    def lines(self) -> list[str]:
        """The consumed bytes as the SDK's stdio transport splits and decodes them."""
        return split(bytes(self.consumed))

    def _run(self) -> None:
        session: Session | None = None
        while True:
            line = read_line(self.stdin, self._wake_read if READS_ON else None)
            if line is None:
                return
            self.consumed += line
            if not line.endswith(b"\n"):
                return  # the end of input
            message = parse(line)
            if session is None:
                opened = opening(message, self.roots)
                if opened is None:
                    return  # the SDK answers it, and whatever follows
                result, session = opened
            else:
                found = tools_result(message, session)
                if found is None:
                    continue
                result = found
            self._send(message["id"], result)
            if not READS_ON:
                return

    def _send(self, request_id: int | str, result: Json) -> None:
        answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
        write_all(self.stdout, (json.dumps(answer, ensure_ascii=False, separators=(",", ":")) + "\n").encode())
        self.answered.append((request_id, result))


def split(data: bytes) -> list[str]:
    """Lines as the SDK's stdio transport reads them (UTF-8 with replacement, universal newlines)."""
    return list(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace"))


def parse(line: bytes) -> Any:
    """The JSON value of one line, or None (not one line to the SDK, not JSON)."""
    texts = split(line)
    if len(texts) != 1:
        return None
    try:
        return json.loads(texts[0])
    except ValueError:
        return None


def read_line(fd: int, wake: int | None) -> bytes | None:
    """Bytes up to and including the next newline (or to the end of input), read one at a time so that the rest
    stays in the pipe for the SDK's transport; None when ``wake`` is readable before a line starts."""
    got = bytearray()
    while True:
        if not got and wake is not None and wake in select.select([fd, wake], [], [])[0]:
            return None
        try:
            byte = os.read(fd, 1)
        except OSError:
            return bytes(got)
        got += byte
        if byte in (b"", b"\n"):
            return bytes(got)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
