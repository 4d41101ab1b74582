"""``tether-lsp mcp --attach`` as a process: it ends when the agent closes its stdin (the SDK's stdio client
kills a server that does not end in time; other clients wait, and a bridge left running holds its session)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.e2e.test_mcp_attached_e2e import Session, session  # noqa: F401 - the fixture, a language server
from tests.helpers import server_env

COMMAND = Path(sys.executable).parent / "tether-lsp"
DEADLINE = 60.0


async def test_the_bridge_ends_when_the_agent_closes_stdin(session: Session) -> None:  # noqa: F811
    proc = await asyncio.create_subprocess_exec(
        str(COMMAND),
        *("mcp", "--attach", "--workspace", str(session.root), "--state-dir", str(session.state)),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    proc.stdin.write(
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}) + "\n").encode()
    )
    await proc.stdin.drain()
    try:
        answer = json.loads(await asyncio.wait_for(proc.stdout.readline(), DEADLINE))
        assert answer["result"]["serverInfo"]["name"] == "tether-lsp"
        proc.stdin.close()
        assert await asyncio.wait_for(proc.wait(), DEADLINE) == 0  # the old bridge kept waiting on its transports
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
