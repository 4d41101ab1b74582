"""Reading LSP messages off a byte stream without ever going deaf, and turning bytes into messages.

Why not pygls' reader loop: it crashes on ``Content-Length: 99999999999999999999999`` (``OverflowError``),
reads an unbounded header line, and after one bad header stays alive without answering anything again; and
malformed JSON, non-objects and batches get no JSON-RPC reply at all. Here:

* a header block must carry a decimal ``Content-Length`` no larger than the message limit; anything else is
  a framing error, logged once with what was wrong, after which the reader **resynchronises** on the next
  ``Content-Length`` header line (it skips the bad message's bytes as lines, each bounded in length);
* a body is decoded here: invalid JSON or JSON nested too deeply gets ``-32700``, a batch or a non-object
  ``-32600``, both with ``id: null`` as JSON-RPC says, and the reader goes on;
* lone UTF-16 surrogates (``"\\ud800"`` escapes, which no UTF-8 text can hold) become U+FFFD everywhere in
  the message: one UTF-16 unit and one code point like the surrogate itself, so positions stay in step
  with the client's, and stored text is always valid UTF-8.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: The longest header line read as one line; a longer one is garbage (read and dropped in pieces).
MAX_HEADER_LINE = 8 * 1024

#: A Content-Length header, also at the end of a line that starts with the tail of a message whose declared
#: length was too short (so the reader picks up the next message instead of losing it).
_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*([^\r\n]*?)[ \t]*\r?\n$", re.I)
_SURROGATE = re.compile("[\ud800-\udfff]")
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class LineReader(Protocol):
    """What the loop needs of a stream: a bounded line, and exactly n bytes (short only at end of stream)."""

    def readline(self) -> Awaitable[bytes]: ...

    def read(self, n: int) -> Awaitable[bytes]: ...


class StdinReader:
    """stdin read with ``os.read`` in a daemon thread of its own, buffered here on the loop.

    Why ``os.read`` and not ``sys.stdin.buffer``: a daemon thread blocked inside a ``BufferedReader`` holds
    its lock, and the interpreter aborts at exit when it cannot take it; ``os.read`` holds no Python lock,
    so the process exits at once whatever the reader is doing.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._chunks: asyncio.Queue[bytes] | None = None
        self._eof = False

    def _start(self) -> asyncio.Queue[bytes]:
        loop = asyncio.get_running_loop()
        chunks: asyncio.Queue[bytes] = asyncio.Queue()

        def pump() -> None:
            while True:
                try:
                    chunk = os.read(self._fd, 1 << 16)
                except OSError as exc:  # a closed stdin is an end of stream
                    log.debug("stdin read failed: %s", exc)
                    chunk = b""
                loop.call_soon_threadsafe(chunks.put_nowait, chunk)
                if not chunk:
                    return

        threading.Thread(target=pump, name="stdin-read", daemon=True).start()
        return chunks

    async def _fill(self) -> None:
        if self._chunks is None:
            self._chunks = self._start()
        chunk = await self._chunks.get()
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True

    async def readline(self) -> bytes:
        while True:
            end = self._buffer.find(b"\n", 0, MAX_HEADER_LINE)
            if end >= 0 or len(self._buffer) >= MAX_HEADER_LINE or self._eof:
                size = end + 1 if end >= 0 else min(len(self._buffer), MAX_HEADER_LINE)
                line = bytes(self._buffer[:size])
                del self._buffer[:size]
                return line
            await self._fill()

    async def read(self, n: int) -> bytes:
        while len(self._buffer) < n and not self._eof:
            await self._fill()
        data = bytes(self._buffer[:n])
        del self._buffer[:n]
        return data


class StreamReaderAdapter:
    """An asyncio stream (TCP) with the same bounded-line behaviour."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def readline(self) -> bytes:
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial
        except asyncio.LimitOverrunError as exc:  # no newline within the limit: hand over a piece of garbage
            return await self._reader.read(max(exc.consumed, 1))

    async def read(self, n: int) -> bytes:
        try:
            return await self._reader.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial


class Framing:
    """The header state machine: yields bodies, reports framing errors, resynchronises after them."""

    def __init__(self, reader: LineReader, max_message_bytes: Callable[[], int]) -> None:
        self._reader = reader
        self._max = max_message_bytes
        self._lost = False  # skipping lines until the next Content-Length header

    async def next_body(self) -> bytes | None:
        """The next message body, or None at the end of the stream."""
        length: int | None = None
        problem: str | None = None
        while True:
            line = await self._reader.readline()
            if not line:
                return None
            match = _CONTENT_LENGTH.search(line)
            if self._lost:
                if match is None:
                    continue
                self._lost = False
                log.warning("resynchronised on the next Content-Length header")
            if line.strip() == b"":
                if length is not None and problem is None:
                    break
                problem = problem or "a header block without Content-Length"
                self._fail(problem)
                length, problem = None, None
                continue
            if not line.endswith(b"\n"):
                problem = problem or f"a header line longer than {MAX_HEADER_LINE} bytes"
                continue
            if match is not None:
                length, problem = self._length(match.group(1), problem)
        body = await self._reader.read(length)
        return body if len(body) == length else None

    def _length(self, raw: bytes, problem: str | None) -> tuple[int | None, str | None]:
        if not raw.isdigit():
            return None, problem or f"Content-Length {raw[:40]!r} is not a decimal number"
        if len(raw) > 12 or int(raw) > self._max():
            return None, problem or f"Content-Length {raw[:40].decode()} is over the limit of {self._max()} bytes"
        return int(raw), problem

    def _fail(self, problem: str) -> None:
        log.error("framing error: %s; skipping to the next Content-Length header", problem)
        self._lost = True


def scrub_surrogates(value: Any) -> Any:
    """Replace lone surrogates in every string of a decoded message (see the module docstring), in place for
    lists and objects. An explicit stack: a message can nest as deep as the JSON decoder allows, and a deep
    recursion here ended the process."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    stack = [value]
    while stack:
        container = stack.pop()
        if isinstance(container, list):
            for k, item in enumerate(container):
                if isinstance(item, str):
                    container[k] = _SURROGATE.sub("\ufffd", item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
        elif isinstance(container, dict):
            for key in [k for k in container if _SURROGATE.search(k)]:
                container[_SURROGATE.sub("\ufffd", key)] = container.pop(key)
            for key, item in container.items():
                if isinstance(item, str):
                    container[key] = _SURROGATE.sub("\ufffd", item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
    return value


def decode(body: bytes) -> tuple[dict[str, Any] | None, tuple[int, str] | None]:
    """A message object, or the JSON-RPC error (code, message) to answer with ``id: null``."""
    try:
        data = json.loads(body)
    except RecursionError:
        return None, (PARSE_ERROR, "Parse error: the message is nested too deeply")
    except (ValueError, UnicodeDecodeError) as exc:
        return None, (PARSE_ERROR, f"Parse error: {exc}")
    if isinstance(data, list):
        return None, (INVALID_REQUEST, "Invalid request: batches are not supported by LSP")
    if not isinstance(data, dict):
        return None, (INVALID_REQUEST, "Invalid request: a message must be a JSON object")
    if rb"\ud" in body or rb"\uD" in body:
        data = scrub_surrogates(data)
    return data, None


def invalid_envelope(data: dict[str, Any]) -> str | None:
    """Why a decoded object is not a JSON-RPC 2.0 message, or None."""
    if data.get("jsonrpc") != "2.0":
        return 'Invalid request: "jsonrpc" must be "2.0"'
    has_id = "id" in data
    msg_id = data.get("id")
    if has_id and (isinstance(msg_id, bool) or not isinstance(msg_id, (int, str))) and msg_id is not None:
        return "Invalid request: id must be an integer or a string"
    if "method" in data:
        if not isinstance(data["method"], str):
            return "Invalid request: method must be a string"
        if has_id and msg_id is None:
            return "Invalid request: a request's id must be an integer or a string"
        return None
    if not has_id or not ({"result", "error"} & data.keys()):
        return "Invalid request: neither a request, a notification nor a response"
    return None
