"""Loop stall of the language server while an agent asks for the ``outline`` of a 143 KB file open in the editor
(attached mode: the MCP endpoint runs inside the language server's process, ``tether.mcp.http.enabled``).

The editor opens the file (a generated Python file of 143 KB, also on disk) and types into a comment line in its
middle, asking ``tether/documentInfo`` after every 10th character (the typist of :mod:`benchmarks.stall_common`);
meanwhile an agent connected with the MCP SDK's streamable HTTP client calls ``outline`` on that file again and
again, each call on the buffer as typed so far. Printed: the LSP loop's worst stall, the typing latency, and the
outline calls' duration (p50).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.corpus import python_file
from benchmarks.stall_common import Typist, ask, open_file, reset_stall, start_watched, stop_server, worst_stall_ms
from benchmarks.syntax import pct

SIZE = 143_000
CALLS = 8


def file_of_size(size: int) -> tuple[str, int]:
    """A generated Python file of about ``size`` bytes with a comment line opened in its middle, and that line."""
    lines = 1000
    while len(python_file(lines).encode()) < size:
        lines += 25
    out = python_file(lines).split("\n")
    middle = len(out) // 2
    out.insert(middle, "# ")
    return "\n".join(out), middle


async def endpoint(state: Path, seconds: float = 60) -> tuple[str, str]:
    """The endpoint's url and token, once the language server has published its session file."""
    from tether_lsp.mcp import discovery

    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        found = await asyncio.to_thread(lambda: discovery.sessions(state) if state.exists() else [])
        if found:
            return found[0].url, found[0].token()
        await asyncio.sleep(0.02)  # the session file appears once uvicorn listens; nothing tells the client
    raise TimeoutError(f"no MCP session file in {state} after {seconds} s")


async def outline_calls(url: str, token: str, path: str, calls: int) -> list[float]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    transport = streamable_http_client(
        url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    )
    times = []
    async with Client(transport, read_timeout_seconds=60) as agent:
        for _ in range(calls):
            started = time.perf_counter()
            result = await agent.call_tool("outline", {"path": path})
            times.append((time.perf_counter() - started) * 1000)
            if result.is_error:
                raise RuntimeError(f"outline failed: {result.content}")
    return times


async def attached_outline(calls: int = CALLS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root, state = Path(tmp) / "project", Path(tmp) / "state"
        root.mkdir()
        text, line = file_of_size(SIZE)
        (root / "big.py").write_text(text, encoding="utf-8")
        init = {"mcp": {"http": {"enabled": True, "stateDir": str(state)}}}
        client = await start_watched(root, init=init)
        try:
            url, token = await endpoint(state)
            uri = (root / "big.py").as_uri()
            open_file(client, uri, "python", text)
            await ask(client, "tether/documentInfo", {"textDocument": {"uri": uri}})
            typist = Typist(client, uri, line)
            await reset_stall(client)
            typist.start()
            times = await outline_calls(url, token, "big.py", calls)
            await typist.stop()
            stall = await worst_stall_ms(client)
        finally:
            await stop_server(client)
    return {
        **typist.figures(),
        "bytes": len(text.encode()),
        "worst_stall_ms": stall,
        "outline_p50_ms": pct(times, 50),
        "outline_max_ms": max(times),
    }
