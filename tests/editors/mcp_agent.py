"""An agent for the editor tests: ``python mcp_agent.py STATE_DIR PATH OLD NEW OUT``. Started early (it has its
imports done by the time it is told to act), it connects to the language server's MCP endpoint described in
STATE_DIR (its session file's url and token) with the MCP SDK's streamable HTTP client, then acts on each line it
reads on stdin until EOF:

- ``edit``: reads PATH and replaces OLD by NEW with the version it read as base_version;
- ``note``: pins ``NOTE`` to the function named ``total`` (its node id from ``outline``) with ``note_add``;
- ``delete``: deletes that note with ``note_delete``.

After each step it writes every answer so far to OUT as JSON, then prints the step's name on stdout."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

NOTE = "agent: check the cache here"


def answer(result: Any) -> Any:
    return result.structured_content if not result.is_error else {"error": str(result.content)}


async def main(state: str, path: str, old: str, new: str, out: str) -> None:
    step = (await anyio.to_thread.run_sync(sys.stdin.readline)).strip()  # the editor says what to do
    (session,) = (json.loads(found.read_text()) for found in Path(state).glob("*.json"))
    token = Path(session["token_file"]).read_text().strip()
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    seen: dict[str, Any] = {}
    async with Client(streamable_http_client(session["url"], http_client=http), read_timeout_seconds=30) as client:
        while step:
            if step == "edit":
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
                seen["edit"] = answer(edit)
            elif step == "note":
                outline = await client.call_tool("outline", {"path": path})
                assert isinstance(outline.structured_content, dict), outline.content
                (total,) = (i for i in outline.structured_content["items"] if i["name"] == "total")
                seen["outline_total"] = total
                note = await client.call_tool("note_add", {"path": path, "target": total["node_id"], "text": NOTE})
                seen["note_add"] = answer(note)
            elif step == "delete":
                deleted = await client.call_tool("note_delete", {"id": seen["note_add"]["id"]})
                seen["note_delete"] = answer(deleted)
            else:
                seen.setdefault("unknown", []).append(step)
            Path(out).write_text(json.dumps(seen), encoding="utf-8")
            print(step, flush=True)
            step = (await anyio.to_thread.run_sync(sys.stdin.readline)).strip()


if __name__ == "__main__":
    state, path, old, new, out = sys.argv[1:6]
    anyio.run(main, state, path, old, new, out)
