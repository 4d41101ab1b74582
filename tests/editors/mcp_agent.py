"""An agent for the editor tests: ``python mcp_agent.py STATE_DIR PATH OLD NEW OUT``, once it reads a line on
stdin (started early, it has its imports done by then), connects to the language server's MCP endpoint described
in STATE_DIR (its session file's url and token) with the MCP SDK's streamable HTTP client, reads PATH, replaces
OLD by NEW with the version it read as base_version, and writes both answers to OUT as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(state: str, path: str, old: str, new: str, out: str) -> None:
    await anyio.to_thread.run_sync(sys.stdin.readline)  # the editor says go
    (session,) = (json.loads(found.read_text()) for found in Path(state).glob("*.json"))
    token = Path(session["token_file"]).read_text().strip()
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    seen: dict[str, Any] = {}
    async with Client(streamable_http_client(session["url"], http_client=http), read_timeout_seconds=30) as client:
        read = await client.call_tool("read", {"path": path})
        seen["read"] = read.structured_content
        assert isinstance(read.structured_content, dict), read.content
        edit = await client.call_tool(
            "edit",
            {
                "path": path,
                "base_version": read.structured_content["version"],
                "edits": [{"old_text": old, "new_text": new}],
            },
        )
        seen["edit"] = edit.structured_content if not edit.is_error else {"error": str(edit.content)}
    Path(out).write_text(json.dumps(seen), encoding="utf-8")


if __name__ == "__main__":
    state, path, old, new, out = sys.argv[1:6]
    anyio.run(main, state, path, old, new, out)
