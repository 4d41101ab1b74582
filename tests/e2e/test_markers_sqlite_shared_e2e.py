"""Two processes on one SQLite file: a language server with a document open and listed notices the markers
another process writes on that document (a second language server, the agents' front ``tether-lsp mcp``).
Its next ``list`` shows them, and ``tether/markers/didChange`` reaches its editor without any request (the
server checks SQLite's ``data_version`` every ``tether.markers.sqlitePollSeconds``). Each server finds the
database in ``.git/tether`` of the clone by itself."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from mcp import StdioServerParameters

from tests.helpers import capabilities, git, open_doc, raw_request, server_config, server_env
from tests.mcpclient import McpClient

COMMAND = Path(sys.executable).parent / "tether-lsp"
SOURCE = """def total(items):
    s = 0
    for i in items:
        s += i
    return s
"""
WAIT = 10  # seconds: a bound on waiting, never a pause


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "calc.py").write_text(SOURCE, encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "calc")
    return tmp_path


@asynccontextmanager
async def server(repo: Path, poll: float | None = None) -> AsyncIterator[Any]:
    options = {"tether": {"markers": {"sqlitePollSeconds": poll}}} if poll is not None else None
    lsp: Any = await server_config().start()
    try:
        await lsp.initialize_session(
            types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri(), initialization_options=options)
        )
        yield lsp
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


async def ids(lsp: Any, uri: str) -> list[str]:
    listed = await raw_request(lsp, "tether/markers/list", {"textDocument": {"uri": uri}})
    return [m["id"] for m in listed["markers"]]


def changed(lsp: Any, uri: str) -> asyncio.Task[Any]:
    """The next ``tether/markers/didChange`` naming ``uri`` (ask before the write that sends it)."""

    async def wait() -> Any:
        while True:
            params = await lsp.wait_for_notification("tether/markers/didChange")
            if uri in (params["uris"] if isinstance(params, dict) else params.uris):
                return params

    return asyncio.ensure_future(asyncio.wait_for(wait(), WAIT))


def rng(line: int, end_line: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": 0}, "end": {"line": end_line, "character": 12}}


async def test_another_servers_marker_reaches_an_open_document(repo: Path) -> None:
    uri = (repo / "calc.py").as_uri()
    async with server(repo, poll=0.2) as me, server(repo) as other:
        open_doc(me, uri, SOURCE)
        assert await ids(me, uri) == []  # listed: its markers are cached now
        arrived = changed(me, uri)
        params = {"textDocument": {"uri": uri}, "range": rng(1, 4), "note": "from the other window"}
        created = await raw_request(other, "tether/markers/create", params)
        await arrived  # no request was sent to this server meanwhile
        assert await ids(me, uri) == [created["id"]]

        gone = changed(me, uri)
        await raw_request(other, "tether/markers/delete", {"id": created["id"]})
        await gone
        assert await ids(me, uri) == []


async def test_the_next_list_sees_another_servers_writes_with_polling_off(repo: Path) -> None:
    uri = (repo / "calc.py").as_uri()
    async with server(repo, poll=0) as me, server(repo) as other:
        open_doc(me, uri, SOURCE)
        assert await ids(me, uri) == []
        params = {"textDocument": {"uri": uri}, "range": rng(1, 4), "note": "n"}
        created = await raw_request(other, "tether/markers/create", params)
        assert await ids(me, uri) == [created["id"]]
        await raw_request(other, "tether/markers/update", {"id": created["id"], "note": "changed"})
        listed = await raw_request(me, "tether/markers/list", {"textDocument": {"uri": uri}})
        assert [m["note"] for m in listed["markers"]] == ["changed"]
        await raw_request(other, "tether/markers/delete", {"id": created["id"]})
        assert await ids(me, uri) == []


async def test_an_agents_note_reaches_an_open_document(repo: Path) -> None:
    uri = (repo / "calc.py").as_uri()
    params = StdioServerParameters(command=str(COMMAND), args=["mcp", "--root", str(repo)], env=server_env())
    async with server(repo, poll=0.2) as me:
        open_doc(me, uri, SOURCE)
        assert await ids(me, uri) == []
        with McpClient(params) as agent:
            arrived = changed(me, uri)
            where = {"start": {"line": 2, "column": 1}, "end": {"line": 5, "column": 13}}
            arguments = {"path": "calc.py", "target": where, "text": "use sum()"}
            note = await asyncio.to_thread(agent.ok, "note_add", arguments)
            await arrived
            listed = await raw_request(me, "tether/markers/list", {"textDocument": {"uri": uri}})
            assert [(m["id"], m["note"], m["author"]) for m in listed["markers"]] == [
                (note["id"], "use sum()", "agent")
            ]

            gone = changed(me, uri)
            await asyncio.to_thread(agent.ok, "note_delete", {"id": note["id"]})
            await gone
            assert await ids(me, uri) == []
