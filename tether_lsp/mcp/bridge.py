"""``tether-lsp mcp --attach``: an agent's stdio bridged to a running language server's MCP endpoint.

The session is found through the session files (:mod:`.discovery`): the one whose workspace holds
``--workspace`` (default: the current folder). Messages are pumped unchanged both ways between the SDK's stdio
server streams and its streamable HTTP client streams, which carry the session's bearer token; the protocol
version the endpoint answered ``initialize`` with is sent as the ``MCP-Protocol-Version`` header of what follows,
as the SDK's own client does.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.client.streamable_http import streamable_http_client
from mcp.server.stdio import stdio_server
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.message import ClientMessageMetadata, SessionMessage

from .discovery import Session

log = logging.getLogger(__name__)


async def bridge(session: Session) -> None:
    """Pump messages between stdin/stdout and ``session``'s endpoint until the agent closes stdin."""
    headers = {"Authorization": f"Bearer {session.token()}"}
    version: dict[str, str] = {}
    initialize_ids: set[Any] = set()
    async with (
        streamable_http_client(session.url, http_client=create_mcp_http_client(headers=headers)) as (
            from_endpoint,
            to_endpoint,
        ),
        stdio_server() as (from_agent, to_agent),
        to_agent,  # closed when the pumps end: each transport's writer ends then, and the bridge with them
        to_endpoint,
        anyio.create_task_group() as group,
    ):

        async def upstream() -> None:
            async for item in from_agent:
                if isinstance(item, Exception):
                    log.warning("a message from the agent could not be read: %s", item)
                    continue
                message = item.message
                if isinstance(message, types.JSONRPCRequest) and message.method == "initialize":
                    initialize_ids.add(message.id)
                    await to_endpoint.send(item)
                    continue
                metadata = ClientMessageMetadata(headers=dict(version)) if version else None
                await to_endpoint.send(SessionMessage(message, metadata=metadata))
            group.cancel_scope.cancel()  # the agent is gone

        async def downstream() -> None:
            async for item in from_endpoint:
                if isinstance(item, Exception):
                    log.warning("the endpoint's answer could not be read: %s", item)
                    continue
                message = item.message
                if isinstance(message, types.JSONRPCResponse) and message.id in initialize_ids:
                    initialize_ids.discard(message.id)
                    negotiated = message.result.get("protocolVersion") if isinstance(message.result, dict) else None
                    if isinstance(negotiated, str):
                        version[MCP_PROTOCOL_VERSION_HEADER] = negotiated
                await to_agent.send(SessionMessage(message))
            group.cancel_scope.cancel()  # the endpoint is gone (the editor closed)

        group.start_soon(upstream)
        group.start_soon(downstream)
