"""A small asyncio HTTP/1.1 client for model endpoints: one POST, the whole body or its lines as they stream.

Why not a library: the server needs exactly this (JSON in, JSON or server-sent events out), cancellable at any
await, with no extra dependency. Every failure is an :class:`HttpError` with a one-line reason.
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


@dataclass(frozen=True)
class Url:
    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, url: str) -> Url:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise HttpError(f"not an http(s) URL: {url!r}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return cls(parts.scheme, parts.hostname, port, parts.path or "/")

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"


class Response:
    """An open response: its status, then its body read whole or line by line."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status: int, headers: dict[str, str]
    ):
        self.reader, self.writer, self.status, self.headers = reader, writer, status, headers
        self.chunked = headers.get("transfer-encoding", "").lower() == "chunked"

    async def body(self) -> bytes:
        if self.chunked:
            return b"".join([piece async for piece in self._chunks()])
        if "content-length" in self.headers:
            return await self.reader.readexactly(int(self.headers["content-length"]))
        return await self.reader.read()

    async def _chunks(self) -> AsyncIterator[bytes]:
        while True:
            size = int((await self.reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await self.reader.readline()
                return
            yield await self.reader.readexactly(size)
            await self.reader.readline()

    async def lines(self) -> AsyncIterator[str]:
        """The body's lines as they arrive (server-sent events, NDJSON)."""
        pending = b""
        source = self._chunks() if self.chunked else self._raw()
        async for piece in source:
            pending += piece
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                yield line.decode("utf-8", errors="replace").rstrip("\r")
        if pending:
            yield pending.decode("utf-8", errors="replace")

    async def _raw(self) -> AsyncIterator[bytes]:
        while True:
            piece = await self.reader.read(4096)
            if not piece:
                return
            yield piece

    def close(self) -> None:
        self.writer.close()


async def open_post(url: Url, payload: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    """Send a JSON POST and read the status line and headers."""
    body = json.dumps(payload).encode()
    context = ssl.create_default_context() if url.scheme == "https" else None
    try:
        reader, writer = await asyncio.open_connection(url.host, url.port, ssl=context)
    except OSError as exc:
        raise HttpError(f"{url.where}: {exc.__class__.__name__}: {exc}") from exc
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    head = (
        f"POST {url.path} HTTP/1.1\r\nHost: {url.where}\r\nContent-Type: application/json\r\n"
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
            name, _, value = line.decode("latin-1").partition(":")
            found[name.strip().lower()] = value.strip()
    except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
        writer.close()
        raise HttpError(f"{url.where}: {exc.__class__.__name__}: {exc}") from exc
    return Response(reader, writer, status, found)


async def post_json(url: Url, payload: dict[str, Any], limit_s: float, headers: dict[str, str] | None = None) -> bytes:
    """POST and return the body of a 200 answer within ``limit_s``."""

    async def run() -> bytes:
        response = await open_post(url, payload, headers)
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
