"""The MCP SDK glue (the only module that imports ``mcp``): ``tools/list`` from the tool table, ``tools/call``
checked against the tool's declared arguments and run where its row says: in a worker thread, one call at a
time, or on the event loop (``run_prompt``: its model call holds no lock, the answer's pieces go out as
progress notifications when the client asked for them). The answer is structured content with a short text,
every refusal ``isError: true`` with the message naming the argument and why."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from tether_lsp import __version__
from tether_lsp.server.errors import TetherError

from .context import Answer, Context
from .run_prompt import Progress
from .tools import TOOLS, Tool, table

log = logging.getLogger(__name__)


def instructions(context: Context) -> str:
    roots = context.files.roots.describe()
    return (
        f"Tether reads and edits the Python and YAML files (and other UTF-8 text files) under {roots}. Use outline "
        "or select to find code by structure, read for exact text and the file's version, then edit with that "
        "version as base_version: edits are placed even if the file changed since, or refused, never guessed. "
        "prompts lists a file's LLM prompts with the ids the editors' playground uses; run_prompt runs one. "
        "notes and note_add read and pin notes on code: the markers people see in their editors."
    )


def error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def call(context: Context, tool: Tool, arguments: Mapping[str, Any] | None) -> types.CallToolResult:
    """Run a worker tool's call to its end (in a worker thread, holding the context's lock)."""
    try:
        answer = tool.answer(context, arguments or {})
    except Exception as exc:
        return failed(tool, exc)
    return sized(context, answer)


async def call_async(
    context: Context, tool: Tool, arguments: Mapping[str, Any] | None, progress: Progress | None
) -> types.CallToolResult:
    """Run an async tool's call on the loop (its adapter takes the context's lock itself for its work on
    files)."""
    try:
        answer = await tool.run(context, progress, **tool.arguments(arguments or {}, context.limits))
    except Exception as exc:
        return failed(tool, exc)
    return sized(context, answer)


def unknown(name: str) -> types.CallToolResult:
    return error(f"name: unknown tool {name!r} (tools: {', '.join(t.name for t in TOOLS)})")


def failed(tool: Tool, exc: Exception) -> types.CallToolResult:
    """A refusal (the message names the argument), or an internal error logged with its traceback."""
    if isinstance(exc, TetherError):
        return error(exc.message)
    log.error("tool %s failed", tool.name, exc_info=exc)
    return error(f"{tool.name} failed with an internal error (the server's log has the details)")


def sized(context: Context, answer: Answer) -> types.CallToolResult:
    """The answer, or a refusal when it is over ``tether.mcp.maxResponseBytes``."""
    size = len(json.dumps(answer.structured, ensure_ascii=False).encode("utf-8")) + len(answer.text.encode("utf-8"))
    limit = context.mcp.maxResponseBytes
    if size > limit:
        return error(
            f"the answer would be {size} bytes, over tether.mcp.maxResponseBytes ({limit}): ask for less (read "
            "parts by node id or range, narrow the selector chain, outline a smaller file)"
        )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=answer.text)], structured_content=answer.structured
    )


def listing(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=tool.writes,
            idempotent_hint=tool.read_only,
            open_world_hint=tool.open_world,
        ),
    )


def build(context: Context) -> Server[Any]:
    """An MCP server over ``context`` (not yet running)."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[listing(tool) for tool in TOOLS])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = table().get(params.name)
        if tool is None:
            return unknown(params.name)
        if tool.runs == "async":

            async def progress(done: float, message: str) -> None:
                await ctx.session.report_progress(done, None, message)

            return await call_async(context, tool, params.arguments, progress)

        def work() -> types.CallToolResult:
            with context.lock:
                return call(context, tool, params.arguments)

        return await anyio.to_thread.run_sync(work)

    return Server(
        "tether-lsp",
        version=__version__,
        instructions=instructions(context),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(context: Context) -> None:
    """Serve MCP over stdin/stdout until the client closes them."""
    server = build(context)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
