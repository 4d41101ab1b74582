"""The first request answered before the SDK loads (:mod:`tether_lsp.mcp.handshake`) gets the answer the SDK's own
server gives: for ``initialize`` at every protocol version the SDK knows (and one it does not), and for a
2026-07-28 ``server/discover``; what does not open a session is left to the SDK."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage
from mcp_types import version as sdk_versions

from tether_lsp.mcp import handshake
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.server import build

CLIENT = {"name": "test", "version": "1"}
VERSIONS = [*sdk_versions.KNOWN_PROTOCOL_VERSIONS, "2099-01-01", "1"]


def initialize(version: str, **extra: Any) -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": {"roots": {"listChanged": True}}, "clientInfo": CLIENT}
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {**params, **extra}}


def discover(version: str = "2026-07-28") -> dict[str, Any]:
    meta = {
        f"{handshake.ENVELOPE}protocolVersion": version,
        f"{handshake.ENVELOPE}clientInfo": CLIENT,
        f"{handshake.ENVELOPE}clientCapabilities": {},
    }
    return {"jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": {"_meta": meta}}


def sdk_answer(context: Context, request: dict[str, Any]) -> dict[str, Any]:
    """What the SDK's server (built as the command builds it) answers as its first message."""

    async def run() -> dict[str, Any]:
        server = build(context)
        to_server, reads = anyio.create_memory_object_stream[SessionMessage | Exception](1)
        writes, from_server = anyio.create_memory_object_stream[SessionMessage](1)
        async with anyio.create_task_group() as group:
            group.start_soon(server.run, reads, writes, server.create_initialization_options())
            await to_server.send(SessionMessage(types.jsonrpc_message_adapter.validate_python(request)))
            answer = await from_server.receive()
            to_server.close()
        dumped: dict[str, Any] = answer.message.model_dump(by_alias=True, exclude_unset=True, mode="json")
        return dumped

    return anyio.run(run)


def test_the_versions_are_the_sdks() -> None:
    assert handshake.HANDSHAKE_VERSIONS == sdk_versions.HANDSHAKE_PROTOCOL_VERSIONS
    assert handshake.MODERN_VERSIONS == sdk_versions.MODERN_PROTOCOL_VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_initialize_gets_the_sdks_answer(version: str, tmp_path: Path) -> None:
    context = Context([tmp_path])
    request = initialize(version)
    early = handshake.early_result(request, context.files.roots.describe())
    assert early is not None
    assert sdk_answer(context, request) == {"jsonrpc": "2.0", "id": 1, "result": early}


def test_discover_gets_the_sdks_answer(tmp_path: Path) -> None:
    context = Context([tmp_path])
    request = discover()
    early = handshake.early_result(request, context.files.roots.describe())
    assert early is not None
    assert sdk_answer(context, request) == {"jsonrpc": "2.0", "id": "d", "result": early}


@pytest.mark.parametrize(
    "request_",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "initialize", "params": initialize("2025-06-18")["params"]},  # a notification
        {**initialize("2025-06-18"), "id": True},
        {**initialize("2025-06-18"), "id": 1.5},
        {**initialize("2025-06-18"), "jsonrpc": "1.0"},
        initialize("2025-06-18", clientInfo={"name": "no version"}),
        initialize("2025-06-18", capabilities=None),
        initialize("2025-06-18", protocolVersion=20250618),
        discover("2025-11-25"),  # a discover at a handshake version: the SDK says what it supports
        {**discover(), "params": {"_meta": {f"{handshake.ENVELOPE}protocolVersion": "2026-07-28"}}},
        {**discover(), "params": {**discover()["params"], "cursor": "x"}},
        [initialize("2025-06-18")],  # a batch
        "initialize",
    ],
)
def test_what_opens_no_session_is_left_to_the_sdk(request_: Any) -> None:
    assert handshake.early_result(request_, "/r") is None
