"""Attached mode's endpoint: the MCP server of :mod:`.server` over streamable HTTP on 127.0.0.1, run by uvicorn on
a thread and event loop of its own inside the language server's process (loaded only when
``tether.mcp.http.enabled`` is true: the SDK, Starlette and uvicorn are imported on that thread).

Every request passes :class:`Guard` first, then the SDK's own transport checks:

* ``Host`` must be ``127.0.0.1:PORT`` or ``localhost:PORT`` (this port): anything else is refused with 421, so a
  web page whose name was re-pointed at 127.0.0.1 (DNS rebinding) cannot reach the endpoint;
* ``Origin``, when a browser sends one, must be a loopback origin (``http://127.0.0.1:*``, ``http://localhost:*``,
  ``http://[::1]:*``, or https): anything else is refused with 403;
* ``Authorization: Bearer TOKEN`` must carry this session's token (``secrets.token_urlsafe(32)``, written in a file
  only the user can read, :mod:`.discovery`): without it, 401.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from . import discovery
from .context import Context
from .server import build

log = logging.getLogger(__name__)

PATH = "/mcp"
#: Seconds requests under way (a tool call waiting for the editor) get to finish when the endpoint stops.
GRACE = 2
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")


def loopback_origin(origin: str) -> bool:
    """``http(s)://`` a loopback name, any port."""
    try:
        parts = urlsplit(origin)
        host = parts.hostname or ""
        _ = parts.port  # a malformed port raises
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and host in LOOPBACK_NAMES and not parts.path.strip("/")


class Guard:
    """Host, Origin and bearer-token checks in front of the MCP app (see the module docstring)."""

    def __init__(self, app: ASGIApp, port: int, token: str) -> None:
        self.app = app
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[bytes, list[bytes]] = {}
        for key, value in scope["headers"]:
            headers.setdefault(key.lower(), []).append(value)
        host = headers.get(b"host", [])
        origin = headers.get(b"origin", [])
        token = headers.get(b"authorization", [])
        if len(host) != 1 or host[0].decode("latin-1").lower() not in self.hosts:
            await _refuse(send, 421, "Host must be 127.0.0.1 or localhost with this endpoint's port")
        elif len(origin) > 1 or (origin and not loopback_origin(origin[0].decode("latin-1"))):
            await _refuse(send, 403, "Origin must be absent or a loopback origin")
        elif len(token) != 1 or not hmac.compare_digest(token[0], self.expected):
            await _refuse(
                send, 401, "a bearer token is needed: the session file's token (tether-lsp mcp --attach uses it)"
            )
        else:
            await self.app(scope, receive, send)


async def _refuse(send: Send, status: int, message: str) -> None:
    """A refusal as a JSON-RPC error body (MCP clients show its message) with its HTTP status."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="tether"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Endpoint:
    """One run of the endpoint: a bound socket, its session files, uvicorn on its own thread and loop."""

    def __init__(
        self,
        context: Context,
        port: int,
        state_dir: Path,
        max_request_bytes: int,
        roots: Callable[[], list[Path]],
    ) -> None:
        self.context = context
        self.token = secrets.token_urlsafe(32)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self.sock.bind(("127.0.0.1", port))
            self.sock.listen(64)
        except OSError:
            self.sock.close()
            raise
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}{PATH}"
        name = f"session-{os.getpid()}-{self.port}"
        self.files = discovery.publish(state_dir, name, os.getpid(), roots(), self.url, self.token)
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"127.0.0.1:{self.port}", f"localhost:{self.port}"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
        app = build(context).streamable_http_app(
            streamable_http_path=PATH,
            transport_security=security,
            max_request_body_size=max_request_bytes,
            host="127.0.0.1",
        )
        self.app = Guard(app, self.port, self.token)
        config = uvicorn.Config(
            self.app,
            lifespan="on",
            log_config=None,
            access_log=False,
            loop="asyncio",
            http="h11",
            ws="none",
            timeout_graceful_shutdown=GRACE,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, name="tether-mcp-http", daemon=True)

    def start(self) -> None:
        self.thread.start()
        log.info("MCP endpoint: serving on %s (session file %s)", self.url, self.files[0])

    def _run(self) -> None:
        try:
            asyncio.run(self.server.serve(sockets=[self.sock]))
        except Exception:
            log.exception("MCP endpoint on %s failed", self.url)
        finally:
            self.sock.close()
            discovery.withdraw(*self.files)

    def stop(self, wait: float | None = None) -> bool:
        """Stop serving (thread-safe: uvicorn looks at the flag); ``wait``: seconds to wait for the thread.
        Returns whether it has stopped (its session files are removed either way)."""
        self.server.should_exit = True
        discovery.withdraw(*self.files)  # no new agent finds it from now on
        if wait is not None and self.thread.is_alive():
            self.thread.join(wait)
        return not self.thread.is_alive()
