"""A small asyncio HTTP/1.1 client for model endpoints: one POST, the whole body or its lines as they stream.

Why not a library: the server needs exactly this (JSON in, JSON or server-sent events out), cancellable at any
await, with no extra dependency. Every failure is an :class:`HttpError` with a one-line reason. An answer is
read up to ``max_bytes`` (``tether.limits.maxResponseBytes``) in all, so an endpoint that streams without end
cannot fill the memory. The TLS context (loading the CA bundle takes tens of milliseconds) is made once, in a
worker thread.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


class HttpError(Exception):
    """The endpoint gave no usable answer; the message says why in one line."""


#: Default for ``tether.limits.maxResponseBytes``.
DEFAULT_MAX_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Url:
    scheme: str
    host: str
    port: int
    path: str
    query: str = ""  # kept: endpoints such as ``...?api-version=...`` need it

    @classmethod
    def parse(cls, url: str) -> Url:
        try:
            parts = urlsplit(url)
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            raise HttpError(f"not an http(s) URL: {url!r} ({exc})") from exc
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise HttpError(f"not an http(s) URL: {url!r}")
        return cls(parts.scheme, parts.hostname, port, parts.path or "/", parts.query)

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def target(self) -> str:
        """The request target: the path and the query string."""
        return f"{self.path}?{self.query}" if self.query else self.path


class Response:
    """An open response: its status, then its body read whole or line by line."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        status: int,
        headers: dict[str, str],
        max_bytes: int = DEFAULT_MAX_BYTES,
    ):
        self.reader, self.writer, self.status, self.headers = reader, writer, status, headers
        self.chunked = headers.get("transfer-encoding", "").lower() == "chunked"
        self.max_bytes = max_bytes
        self._read = 0

    def _count(self, size: int) -> None:
        self._read += size
        if self._read > self.max_bytes:
            raise HttpError(f"the answer is larger than tether.limits.maxResponseBytes ({self.max_bytes} bytes)")

    async def body(self) -> bytes:
        if "content-length" in self.headers and not self.chunked:
            length = self.headers["content-length"]
            if not length.isdigit():
                raise HttpError(f"invalid Content-Length {length[:20]!r}")
            self._count(int(length))
            return await self.reader.readexactly(int(length))
        return b"".join([piece async for piece in self._pieces()])

    def _pieces(self) -> AsyncIterator[bytes]:
        return self._chunks() if self.chunked else self._raw()

    async def _chunks(self) -> AsyncIterator[bytes]:
        while True:
            head = (await self.reader.readline()).split(b";")[0].strip() or b"0"
            try:
                size = int(head, 16)
            except ValueError as exc:
                raise HttpError(f"invalid chunk size {head[:20]!r}") from exc
            if size == 0:
                await self.reader.readline()
                return
            self._count(size)
            yield await self.reader.readexactly(size)
            await self.reader.readline()

    async def lines(self) -> AsyncIterator[str]:
        """The body's lines as they arrive (server-sent events, NDJSON)."""
        pending = b""
        async for piece in self._pieces():
            pending += piece
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                yield line.decode("utf-8", errors="replace").rstrip("\r")
        if pending:
            yield pending.decode("utf-8", errors="replace")

    async def _raw(self) -> AsyncIterator[bytes]:
        while True:
            piece = await self.reader.read(65536)
            if not piece:
                return
            self._count(len(piece))
            yield piece

    def close(self) -> None:
        self.writer.close()


_tls: list[ssl.SSLContext] = []  # made once, on first use, off the loop


async def _tls_context() -> ssl.SSLContext:
    if not _tls:
        context = await asyncio.to_thread(ssl.create_default_context)
        if not _tls:
            _tls.append(context)
    return _tls[0]


async def open_post(
    url: Url, payload: dict[str, Any], headers: dict[str, str] | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> Response:
    """Send a JSON POST and read the status line and headers."""
    body = json.dumps(payload).encode()
    context = await _tls_context() if url.scheme == "https" else None
    try:
        reader, writer = await asyncio.open_connection(url.host, url.port, ssl=context)
    except OSError as exc:
        raise HttpError(f"{url.where}: {exc.__class__.__name__}: {exc}") from exc
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    head = (
        f"POST {url.target} HTTP/1.1\r\nHost: {url.where}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n{extra}Connection: close\r\n\r\n"
    )
    try:
        writer.write(head.encode("latin-1") + body)
        await writer.drain()
        status_line = await reader.readline()
        if not status_line:
            raise HttpError(f"{url.where} closed the connection without answering")
        parts = status_line.decode("latin-1").split(" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        found: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            if len(found) >= 100:
                raise HttpError(f"{url.where} sent more than 100 header lines")
            name, _, value = line.decode("latin-1").partition(":")
            found[name.strip().lower()] = value.strip()
    except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
        writer.close()
        raise HttpError(f"{url.where}: {exc.__class__.__name__}: {exc}") from exc
    return Response(reader, writer, status, found, max_bytes)


async def post_json(
    url: Url,
    payload: dict[str, Any],
    limit_s: float,
    headers: dict[str, str] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> bytes:
    """POST and return the body of a 200 answer within ``limit_s`` and ``max_bytes``."""

    async def run() -> bytes:
        response = await open_post(url, payload, headers, max_bytes)
        try:
            data = await response.body()
        finally:
            response.close()
        if response.status != 200:
            raise HttpError(f"HTTP {response.status or '?'} from the endpoint: {data[:80]!r}")
        return data

    try:
        return await asyncio.wait_for(run(), limit_s)
    except TimeoutError as exc:
        raise HttpError(f"no answer from {url.where} within {limit_s:g} s") from exc
    except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
        raise HttpError(f"{url.where}: {exc.__class__.__name__}: {exc}") from exc
