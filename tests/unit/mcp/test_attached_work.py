"""Attached mode leaves the language server's interpreter to the editor: an agent's ``outline`` of a large open
buffer is made in the server's worker process (the same items, ids and prompt ids as one made in the tool's own
thread), and the tools read an open buffer through the server's own parse instead of parsing it again.

A language server runs in this process (its loop, its documents, its worker processes); the front is built as
the endpoint builds it (:func:`~tether_lsp.mcp.attached_lsp.attachment.attached_context`) and each tool runs in a
thread, as the endpoint runs it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.workspace import Workspace

from benchmarks.corpus import python_file
from tether_lsp.compose import create_server
from tether_lsp.mcp.attached_lsp.attachment import attached_context
from tether_lsp.mcp.attached_lsp.editor_link import EditorLink
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.outline import PROCESS_MIN_BYTES, outline
from tether_lsp.mcp.tools import table
from tether_lsp.server.app import TetherServer
from tether_lsp.server.document_sync import did_change, did_open

PROMPT = 'SYSTEM_PROMPT = "You are a concise support assistant for a café."\n\n'
LARGE = PROMPT + python_file(600)
select = table()["select"].answer


@asynccontextmanager
async def attached(root: Path, processes: int = 1) -> AsyncIterator[tuple[TetherServer, Context]]:
    server = create_server()  # every feature's settings, as in the editor's server
    server.workspace_root = root
    # what the editor's initialize gives: the workspace folder the front's roots follow
    server.protocol._workspace = Workspace(root.as_uri(), workspace_folders=[types.WorkspaceFolder(root.as_uri(), "r")])
    server.workers.bind_loop(asyncio.get_running_loop())
    server.settings = server.settings_schema.parse({"limits": {"processes": processes}})[0]
    server.protocol.notify = lambda method, params=None: None  # type: ignore[method-assign]
    link = EditorLink(server, asyncio.get_running_loop(), lambda: 5.0)
    context = attached_context(link, server.settings)
    try:
        yield server, context
    finally:
        await asyncio.to_thread(context.close)
        await asyncio.to_thread(server.close_down)


def opened(server: TetherServer, uri: str, text: str) -> None:
    did_open(server, types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))


def relative(items: list[dict[str, Any]], base: int) -> list[dict[str, Any]]:
    """The items with each node id made relative to its version's first id, and without prompt ids (each front's
    database gives its own)."""
    out = []
    for item in items:
        item = {**item, "node_id": item["node_id"] - base, "children": relative(item.get("children", []), base)}
        if item["kind"] == "prompt":
            assert item.pop("prompt_id")
        out.append(item)
    return out


async def test_a_large_buffers_outline_is_made_in_a_worker_process_as_the_thread_makes_it(tmp_path: Path) -> None:
    assert len(LARGE.encode()) >= PROCESS_MIN_BYTES
    (tmp_path / "big.py").write_text("x = 1\n")  # on disk: something else; the agent reads the buffer
    uri = (tmp_path / "big.py").as_uri()
    async with attached(tmp_path) as (server, context):
        opened(server, uri, LARGE)
        answer = (await asyncio.to_thread(outline, context, path="big.py")).structured
        assert context.outlined_in in server.processes.pids() and context.outlined_in != os.getpid()
        assert context.trees.parses == 0  # nothing parsed in the language server's interpreter for it
        assert server.syntax.parse_counts.get(uri, 0) == 0
        # a parse of the same version here gets the ids the outline gave
        base = (await asyncio.to_thread(lambda: context.trees.parsed(context.load("big.py")))).ids.base
    elsewhere = tmp_path / "standalone"
    elsewhere.mkdir()
    (elsewhere / "big.py").write_text(LARGE)
    standalone = Context([elsewhere])
    try:
        expected = outline(standalone, path="big.py").structured
        expected_base = standalone.trees.parsed(standalone.load("big.py")).ids.base
    finally:
        standalone.close()
    assert standalone.outlined_in is None  # made in its own thread
    assert expected["version"] == answer["version"]
    assert answer["items"][0]["kind"] == "prompt" and answer["items"][0]["name"] == "SYSTEM_PROMPT"
    assert relative(answer["items"], base) == relative(expected["items"], expected_base)


async def test_node_ids_of_a_worker_outline_name_the_same_nodes_for_select(tmp_path: Path) -> None:
    uri = (tmp_path / "big.py").as_uri()
    async with attached(tmp_path) as (server, context):
        opened(server, uri, LARGE)
        items = (await asyncio.to_thread(outline, context, path="big.py")).structured["items"]
        first_class = next(i for i in items if i["kind"] == "class")
        found = await asyncio.to_thread(
            select, context, {"path": "big.py", "selectors": ["selectMethods"], "from": [first_class["node_id"]]}
        )
        methods = [m for m in first_class["children"] if m["kind"] == "method"]
        assert [m["node_id"] for m in found.structured["matches"]] == [m["node_id"] for m in methods]


async def test_tools_read_an_open_buffer_through_the_servers_own_parse(tmp_path: Path) -> None:
    uri = (tmp_path / "small.py").as_uri()
    (tmp_path / "small.py").write_text("def on_disk():\n    pass\n")
    async with attached(tmp_path) as (server, context):
        opened(server, uri, "def f():\n    return 1\n")
        did_change(
            server,
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=2, uri=uri),
                [types.TextDocumentContentChangeWholeDocument(text="def g():\n    return 2\n\ndef h():\n    pass\n")],
            ),
        )
        snapshot = server.syntax.get(uri)
        assert snapshot is not None and snapshot.tree is not None  # the editor's requests had the server parse it
        assert server.syntax.parse_counts[uri] == 1
        found = await asyncio.to_thread(select, context, {"path": "small.py", "selectors": ["selectFunctions"]})
        assert [m["text"].split("(")[0] for m in found.structured["matches"]] == ["def g", "def h"]
        assert context.trees.parses == 0  # before: the front parsed the buffer a second time
        assert server.syntax.parse_counts[uri] == 1
        found = await asyncio.to_thread(select, context, {"path": "small.py", "selectors": ["selectFunctions"]})
        assert context.trees.parses == 0
