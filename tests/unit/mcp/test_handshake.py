"""The first requests answered before the SDK loads (:mod:`tether_lsp.mcp.handshake`) get the answers the SDK's own
server gives: ``initialize`` at every protocol version the SDK knows (and ones it does not), a 2026-07-28
``server/discover``, and ``tools/list`` after each; what does not open a session, or another request, is left to
the SDK."""

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
from tether_lsp.mcp.tools import TOOLS

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


def tools_list(request_id: int | str = 2, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", **({"params": params} if params else {})}


def sdk_answers(context: Context, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    """What the SDK's server (built as the command builds it) answers to these messages, one answer per request."""

    async def run() -> list[dict[str, Any]]:
        server = build(context)
        to_server, reads = anyio.create_memory_object_stream[SessionMessage | Exception](len(messages))
        writes, from_server = anyio.create_memory_object_stream[SessionMessage](len(messages))
        answers = []
        async with anyio.create_task_group() as group:
            group.start_soon(server.run, reads, writes, server.create_initialization_options())
            for message in messages:
                await to_server.send(SessionMessage(types.jsonrpc_message_adapter.validate_python(message)))
            for _ in [m for m in messages if "id" in m]:
                answer = await from_server.receive()
                answers.append(answer.message.model_dump(by_alias=True, exclude_unset=True, mode="json"))
            to_server.close()
        return answers

    return anyio.run(run)


def early_answers(roots: str, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    """What :mod:`~tether_lsp.mcp.handshake` answers: the first message, then the tool list."""
    opened = handshake.opening(messages[0], roots)
    assert opened is not None
    result, session = opened
    answers = [{"jsonrpc": "2.0", "id": messages[0]["id"], "result": result}]
    for message in messages[1:]:
        listed = handshake.tools_result(message, session)
        if listed is not None:
            answers.append({"jsonrpc": "2.0", "id": message["id"], "result": listed})
    return answers


def test_the_versions_are_the_sdks() -> None:
    assert handshake.HANDSHAKE_VERSIONS == sdk_versions.HANDSHAKE_PROTOCOL_VERSIONS
    assert handshake.MODERN_VERSIONS == sdk_versions.MODERN_PROTOCOL_VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_initialize_and_the_tool_list_get_the_sdks_answers(version: str, tmp_path: Path) -> None:
    context = Context([tmp_path])
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    messages = (initialize(version), initialized, tools_list(2), tools_list("3", _meta={"progressToken": 1}))
    early = early_answers(context.files.roots.describe(), *messages)
    assert [a["id"] for a in early] == [1, 2, "3"]
    assert sdk_answers(context, *messages) == early


def test_discover_and_the_tool_list_get_the_sdks_answers(tmp_path: Path) -> None:
    context = Context([tmp_path])
    messages = (discover(), tools_list(2, **discover()["params"]))
    early = early_answers(context.files.roots.describe(), *messages)
    assert [a["id"] for a in early] == ["d", 2]
    assert sdk_answers(context, *messages) == early


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
        tools_list(),
        [initialize("2025-06-18")],  # a batch
        "initialize",
    ],
)
def test_what_opens_no_session_is_left_to_the_sdk(request_: Any) -> None:
    assert handshake.opening(request_, "/r") is None


LEGACY = handshake.Session(False, "2025-06-18")
MODERN = handshake.Session(True, "2026-07-28")


@pytest.mark.parametrize(
    ("session", "request_"),
    [
        (LEGACY, {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        (LEGACY, {"jsonrpc": "2.0", "method": "tools/list"}),  # a notification
        (LEGACY, tools_list(cursor="next")),  # a page: the SDK says what it makes of it
        (LEGACY, {**tools_list(), "params": []}),
        (LEGACY, tools_list(**discover()["params"])),  # an envelope on a handshake session: refused by the SDK
        (MODERN, tools_list()),  # no envelope on a 2026-07-28 session
        (MODERN, tools_list(**discover("2025-11-25")["params"])),
        (MODERN, {**tools_list(**discover()["params"]), "id": None}),
    ],
)
def test_other_requests_are_left_to_the_sdk(session: handshake.Session, request_: Any) -> None:
    assert handshake.tools_result(request_, session) is None


def test_the_tool_list_is_the_tables() -> None:
    listed = handshake.tools_result(tools_list(), LEGACY)
    assert listed is not None and [t["name"] for t in listed["tools"]] == [t.name for t in TOOLS]
