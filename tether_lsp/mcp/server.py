"""The MCP SDK glue (the only module that imports ``mcp``): ``tools/list`` from the tool table, ``tools/call``
checked against the tool's declared arguments and run where its row says: in a worker thread, one call at a
time, or on the event loop (``run_prompt``: its model call holds no lock, the answer's pieces go out as
progress notifications when the client asked for them). The answer is structured content with a short text,
every refusal ``isError: true`` with the message naming the argument and why. Over stdio, the first requests may
have been answered before this module loaded (:mod:`.handshake`): :func:`handed_over` passes them to the SDK
again and keeps the SDK's second answers off stdout."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.models import InitializationOptions
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from tether_lsp import __version__
from tether_lsp.server.errors import TetherError

from . import handshake
from .context import Answer, Context
from .run_prompt import Progress
from .tools import TOOLS, Tool, table

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream

log = logging.getLogger(__name__)


def instructions(context: Context) -> str:
    return handshake.instructions(context.files.roots.describe())


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
        handshake.SERVER_NAME,
        version=__version__,
        instructions=instructions(context),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(context: Context, early: handshake.EarlyAnswers | None = None) -> None:
    """Serve MCP over stdin/stdout until the client closes them; ``early``: the lines read (some answered) before the
    SDK was imported (:mod:`.handshake`), handed to the SDK ahead of stdin."""
    server = build(context)
    options = server.create_initialization_options()
    async with stdio_server() as (read_stream, write_stream):
        if early is None:
            await server.run(read_stream, write_stream, options)
        else:
            await handed_over(early, server, options, read_stream, write_stream)


async def handed_over(
    early: handshake.EarlyAnswers,
    server: Server[Any],
    options: InitializationOptions,
    read_stream: ReadStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
) -> None:
    """Run ``server`` on the transport's streams with the lines read before it ahead of what stdin sends next, and
    without its second answers to the requests answered early (each compared with the first)."""
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    written = anyio.Event()

    async def inbound() -> None:
        async with read_stream, to_server:
            try:
                for line in early.lines():
                    await to_server.send(replayed(line))
                async for item in read_stream:
                    await to_server.send(item)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # the server stopped reading

    async def outbound() -> None:
        pending = list(early.answered)
        async with write_stream, from_server:
            async for item in from_server:
                sent = next((i for i, (request_id, _) in enumerate(pending) if answers(item.message, request_id)), None)
                if sent is not None:
                    compare(item.message, pending.pop(sent)[1])
                    continue
                await write_stream.send(item)
        written.set()

    async with anyio.create_task_group() as group:
        group.start_soon(inbound)
        group.start_soon(outbound)
        await server.run(server_reads, server_writes, options)
        await written.wait()  # every answer is on stdout
        group.cancel_scope.cancel()


def replayed(line: str) -> SessionMessage | Exception:
    """A line read before the SDK was imported, as the SDK's stdio transport would have passed it on."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except Exception as exc:
        return exc


def answers(message: types.JSONRPCMessage, request_id: int | str) -> bool:
    return (
        isinstance(message, (types.JSONRPCResponse, types.JSONRPCError))
        and type(message.id) is type(request_id)
        and message.id == request_id
    )


def compare(message: types.JSONRPCMessage, sent: dict[str, Any]) -> None:
    """The SDK's answer to the request answered early must be the one sent: a difference is a bug in
    :mod:`.handshake`."""
    if isinstance(message, types.JSONRPCResponse) and message.result == sent:
        return
    log.error(
        "a request was answered before the MCP SDK loaded with %s, but the SDK answers %s",
        json.dumps(sent),
        message.model_dump_json(by_alias=True, exclude_unset=True),
    )
