"""A synchronous MCP client for tests: the SDK's own ``Client`` driven from a blocking portal (an event loop in a
thread of its own), so one server — in-process or a ``tether-lsp mcp`` process over stdio — serves a whole test
module and each test is a plain function."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import mcp_types as types
from anyio.from_thread import start_blocking_portal
from mcp import Client


class McpClient:
    """``with McpClient(server) as client: client.ok("outline", {"path": "a.py"})``."""

    def __init__(self, server: Any, timeout: float = 60, mode: str = "auto") -> None:
        """``mode``: the client's (``auto``: a ``server/discover`` probe first, ``legacy``: ``initialize``)."""
        self.server = server
        self.timeout = timeout
        self.mode = mode
        self._stack = ExitStack()

    def __enter__(self) -> McpClient:
        with self._stack.pop_all() as failed:  # closed if the handshake fails (the portal's thread included)
            portal = failed.enter_context(start_blocking_portal())
            self.portal = portal
            self.client: Client = failed.enter_context(
                portal.wrap_async_context_manager(
                    Client(self.server, read_timeout_seconds=self.timeout, mode=self.mode)
                )
            )
            self._stack = failed.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return self.portal.call(self.client.call_tool, name, arguments)

    def tools(self) -> list[types.Tool]:
        return self.portal.call(self.client.list_tools).tools

    def ok(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The structured answer of a call that must succeed."""
        result = self.call(name, arguments)
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    def text(self, name: str, arguments: dict[str, Any]) -> str:
        """The text rendering of a call that must succeed."""
        result = self.call(name, arguments)
        assert not result.is_error, result.content
        content = result.content[0]
        assert isinstance(content, types.TextContent)
        return content.text

    def refused(self, name: str, arguments: dict[str, Any]) -> str:
        """The message of a call that must be refused with ``isError``."""
        result = self.call(name, arguments)
        assert result.is_error, result.structured_content
        content = result.content[0]
        assert isinstance(content, types.TextContent)
        return content.text
