"""Attached mode: a real language server over stdio with ``tether.mcp.http.enabled``, and agents on its MCP
endpoint (the SDK's streamable HTTP client, raw HTTP requests, and ``tether-lsp mcp --attach`` driven by the SDK's
stdio client). The LSP client is a scripted editor (``EditorModel``): it holds unsaved text, answers
``workspace/applyEdit`` by applying the edit and sending the didChange, as editors do."""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import inspect
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from lsprotocol import types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pytest_lsp import LanguageClient

from tests.e2e import test_editors_e2e as editors
from tests.e2e.test_edits_e2e import EditorModel
from tests.helpers import git, plain, raw_request, server_config, server_env

COMMAND = Path(sys.executable).parent / "tether-lsp"
ON_DISK = """class Store:
    def get(self, key):
        return self.data[key]
"""
UNSAVED = """class Store:
    def get(self, key):
        return self.data.get(key)

    def put(self, key, value):
        self.data[key] = value
"""


def version_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class Session:
    lsp: LanguageClient
    root: Path
    state: Path
    editors: dict[str, EditorModel]
    #: Called with each workspace/applyEdit before the editor applies it (a test's editor does more).
    before_apply: list[Callable[[Any], Any]]

    def description(self) -> dict[str, Any]:
        (found,) = self.state.glob("*.json")
        return json.loads(found.read_text())

    @property
    def url(self) -> str:
        return str(self.description()["url"])

    @property
    def token(self) -> str:
        return Path(self.description()["token_file"]).read_text().strip()

    def open(self, name: str, text: str) -> EditorModel:
        model = EditorModel(self.lsp, (self.root / name).as_uri(), text)
        self.editors[model.uri] = model
        return model


def edit_capabilities() -> types.ClientCapabilities:
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(dynamic_registration=False),
        ),
    )


async def endpoint_log(lsp: LanguageClient, words: str, since: int = 0, timeout: float = 30) -> str:
    """The first log message the server sent that holds ``words`` (from the ``since``-th on; waiting for it)."""
    async with asyncio.timeout(timeout):
        while True:
            for message in lsp.log_messages[since:]:
                if words in message.message:
                    return message.message
            await lsp.wait_for_notification(types.WINDOW_LOG_MESSAGE)


@asynccontextmanager
async def language_server(
    tmp_path: Path, capabilities: types.ClientCapabilities | None = None, **env: str
) -> AsyncIterator[Session]:
    root, state = tmp_path / "project", tmp_path / "state"
    root.mkdir()
    git(root, "init", "-q")
    lsp: Any = await server_config(**env).start()
    session = Session(lsp, root, state, {}, [])

    @lsp.feature(types.WORKSPACE_APPLY_EDIT)
    async def apply_edit(params: Any) -> types.ApplyWorkspaceEditResult:
        for hook in list(session.before_apply):
            answer = hook(params)
            if inspect.isawaitable(answer):
                answer = await answer
            if answer is not None:
                return answer
        return session.editors[params.edit.document_changes[0].text_document.uri].apply(params)

    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or edit_capabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")],
            initialization_options={"mcp": {"http": {"enabled": True, "stateDir": str(state)}}},
        )
    )
    await endpoint_log(lsp, "MCP endpoint: serving on")
    try:
        yield session
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


@pytest.fixture
async def session(tmp_path: Path) -> AsyncIterator[Session]:
    async with language_server(tmp_path) as found:
        yield found


@asynccontextmanager
async def agent(session: Session, token: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token or session.token}"}
    transport = streamable_http_client(session.url, http_client=create_mcp_http_client(headers=headers))
    async with Client(transport, read_timeout_seconds=30) as client:
        yield client


def structured(result: mcp_types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def refusal(result: mcp_types.CallToolResult) -> str:
    assert result.is_error, result.structured_content
    content = result.content[0]
    assert isinstance(content, mcp_types.TextContent)
    return content.text


async def test_an_agent_lists_the_tools_and_reads_the_unsaved_buffer(session: Session) -> None:
    (session.root / "store.py").write_text(ON_DISK)
    editor = session.open("store.py", ON_DISK)
    editor.replace(0, len(ON_DISK), UNSAVED)  # typed, not saved
    async with agent(session) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        assert tools[:4] == ["outline", "select", "read", "edit"]
        read = structured(await client.call_tool("read", {"path": "store.py"}))
        assert read["parts"][0]["text"] == UNSAVED
        assert read["version"] == version_of(UNSAVED)
        outline = structured(await client.call_tool("outline", {"path": "store.py"}))
        assert [m["name"] for m in outline["items"][0]["children"]] == ["get", "put"]
        (session.root / "other.py").write_text(ON_DISK)  # not open: read from disk, as standalone
        other = structured(await client.call_tool("read", {"path": "other.py"}))
        assert (other["parts"][0]["text"], other["version"]) == (ON_DISK, version_of(ON_DISK))
    assert (session.root / "store.py").read_text() == ON_DISK


async def test_an_edit_goes_to_the_editor_as_apply_edit_not_to_disk(session: Session) -> None:
    (session.root / "store.py").write_text(ON_DISK)
    editor = session.open("store.py", ON_DISK)
    editor.replace(0, len(ON_DISK), UNSAVED)
    async with agent(session) as client:
        read = structured(await client.call_tool("read", {"path": "store.py"}))
        result = await client.call_tool(
            "edit",
            {
                "path": "store.py",
                "base_version": read["version"],
                "edits": [{"old_text": "self.data.get(key)", "new_text": "self.data.get(key, None)"}],
            },
        )
        answer = structured(result)
        wanted = UNSAVED.replace("self.data.get(key)", "self.data.get(key, None)")
        assert answer["written"] and answer["results"][0]["status"] == "applied"
        assert answer["version"] == version_of(wanted)
        # only the buffer holds it: the agent is told so, not that the file was written
        assert answer["unsaved"] is True
        (said,) = result.content
        assert isinstance(said, mcp_types.TextContent)
        assert (
            said.text.split("\n")[0] == f"store.py: applied in the editor (unsaved), now version {version_of(wanted)}"
        )
        (request,) = editor.applied
        (change,) = request["edit"]["documentChanges"]
        assert change["textDocument"] == {"uri": editor.uri, "version": 2}
        assert change["edits"] == [
            {
                "range": {"start": {"line": 2, "character": 30}, "end": {"line": 2, "character": 30}},
                "newText": ", None",
            }
        ] or change["edits"] == [
            {
                "range": {"start": {"line": 2, "character": 15}, "end": {"line": 2, "character": 33}},
                "newText": "self.data.get(key, None)",
            }
        ]
        assert editor.text == wanted
        again = structured(await client.call_tool("read", {"path": "store.py"}))
        assert (again["parts"][0]["text"], again["version"]) == (wanted, answer["version"])
    assert (session.root / "store.py").read_text() == ON_DISK  # nothing on disk: the buffer is unsaved


async def test_an_edit_is_placed_again_when_the_user_typed_before_it_arrived(session: Session) -> None:
    editor = session.open("store.py", UNSAVED)
    typed = "# typed while the agent's edit was on its way\n"

    refused: list[int] = []

    def user_types_first(params: Any) -> Any:
        session.before_apply.clear()
        refused.append(params.edit.document_changes[0].text_document.version)
        editor.replace(0, 0, typed)  # the editor's buffer is newer than the edit: it refuses it
        return types.ApplyWorkspaceEditResult(applied=False, failure_reason="document version mismatch")

    async with agent(session) as client:
        read = structured(await client.call_tool("read", {"path": "store.py"}))
        session.before_apply.append(user_types_first)
        answer = structured(
            await client.call_tool(
                "edit",
                {
                    "path": "store.py",
                    "base_version": read["version"],
                    "edits": [{"old_text": "self.data[key] = value", "new_text": "self.data[key] = str(value)"}],
                },
            )
        )
    assert answer["results"][0]["status"] == "rebased"
    assert editor.text == typed + UNSAVED.replace("self.data[key] = value", "self.data[key] = str(value)")
    assert refused == [1] and [r["edit"]["documentChanges"][0]["textDocument"]["version"] for r in editor.applied] == [
        2
    ]


TWINS = "a = 1\nx = 0\nb = 2\nx = 0\nc = 3\n"


async def wait_for_version(client: Client, path: str, text: str, timeout: float = 10) -> None:
    """Until the agent reads ``text`` in ``path`` (the editor's didChanges have reached the server)."""
    async with asyncio.timeout(timeout):
        while structured(await client.call_tool("read", {"path": path}))["version"] != version_of(text):
            pass  # each read is a round trip through the language server's loop


async def test_an_edit_is_carried_through_the_editors_exact_history_not_a_diff(session: Session) -> None:
    """The agent targets the second of two identical lines; the user deletes the first and types an identical
    line just before the target. A line diff of the two texts would take the typed line for the target; the
    document's recorded edits carry the target to the line it is now."""
    editor = session.open("twins.py", TWINS)
    async with agent(session) as client:
        read = structured(await client.call_tool("read", {"path": "twins.py"}))
        editor.replace(editor.offset(1, 0), editor.offset(2, 0), "")  # the first "x = 0" line goes
        editor.replace(editor.offset(2, 0), editor.offset(2, 0), "x = 0\n")  # typed just before the target
        now = "a = 1\nb = 2\nx = 0\nx = 0\nc = 3\n"
        await wait_for_version(client, "twins.py", now)
        target = {"start": {"line": 4, "column": 1}, "end": {"line": 4, "column": 6}}
        answer = structured(
            await client.call_tool(
                "edit",
                {
                    "path": "twins.py",
                    "base_version": read["version"],
                    "edits": [{"range": target, "new_text": "x = 9"}],
                },
            )
        )
    assert answer["results"][0]["status"] == "rebased"
    assert answer["results"][0]["range"] == {"start": {"line": 4, "column": 1}, "end": {"line": 4, "column": 6}}
    assert editor.text == "a = 1\nb = 2\nx = 0\nx = 9\nc = 3\n"


async def test_an_edit_on_a_version_the_history_no_longer_reaches_is_diffed_and_says_so(session: Session) -> None:
    """With a small history budget, a long line typed and removed pushes the version the agent read out of the
    document's history: the edit is carried by a line diff instead, and the answer says so."""
    http = {"enabled": True, "stateDir": str(session.state)}  # as started: the same endpoint keeps serving
    session.lsp.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"tether": {"limits": {"historyBytes": 65536}, "mcp": {"http": http}}}
        )
    )
    await raw_request(session.lsp, "tether/listSelectors", {})  # the settings are applied by now
    editor = session.open("store.py", UNSAVED)
    async with agent(session) as client:
        read = structured(await client.call_tool("read", {"path": "store.py"}))
        editor.replace(0, 0, "# " + "y" * 70000 + "\n")
        editor.replace(0, 70003, "# typed\n")
        await wait_for_version(client, "store.py", "# typed\n" + UNSAVED)
        result = await client.call_tool(
            "edit",
            {
                "path": "store.py",
                "base_version": read["version"],
                "edits": [{"old_text": "self.data[key] = value", "new_text": "self.data[key] = str(value)"}],
            },
        )
    answer = structured(result)
    assert answer["results"][0]["status"] == "rebased"
    assert editor.text == "# typed\n" + UNSAVED.replace("self.data[key] = value", "self.data[key] = str(value)")
    content = result.content[0]
    assert isinstance(content, mcp_types.TextContent)
    assert f"the editor's recorded history no longer reaches version {read['version']}" in content.text


async def test_a_refused_edit_is_reported_and_nothing_changes(session: Session) -> None:
    editor = session.open("store.py", UNSAVED)
    editor.refuse = True
    async with agent(session) as client:
        read = structured(await client.call_tool("read", {"path": "store.py"}))
        message = refusal(
            await client.call_tool(
                "edit",
                {
                    "path": "store.py",
                    "base_version": read["version"],
                    "edits": [{"old_text": "self.data[key] = value", "new_text": "pass"}],
                },
            )
        )
    assert "the editor refused the edit (refused by the test); nothing was changed" in message
    assert editor.text == UNSAVED


async def test_an_editor_that_takes_no_edits_is_named_and_nothing_changes(tmp_path: Path) -> None:
    async with language_server(tmp_path, capabilities=types.ClientCapabilities()) as session:
        editor = session.open("store.py", UNSAVED)
        async with agent(session) as client:
            read = structured(await client.call_tool("read", {"path": "store.py"}))
            message = refusal(
                await client.call_tool(
                    "edit",
                    {
                        "path": "store.py",
                        "base_version": read["version"],
                        "edits": [{"old_text": "self.data[key] = value", "new_text": "pass"}],
                    },
                )
            )
        assert "the editor refused the edit (the editor does not take edits from the server" in message
        assert editor.applied == [] and editor.text == UNSAVED


async def test_paths_outside_the_workspace_folders_are_refused(session: Session, tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 'x'\n")
    async with agent(session) as client:
        for path in ("../secret.py", str(secret)):
            message = refusal(await client.call_tool("read", {"path": path}))
            assert "outside the roots" in message and str(session.root) in message


async def test_the_lsp_loop_answers_while_an_agents_edit_waits_for_the_editor(session: Session) -> None:
    """The edit's applyEdit is held by the editor until the language server has answered another request: the
    LSP loop is never blocked by MCP work."""
    editor = session.open("store.py", UNSAVED)
    answered: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    async def ask_the_server_first(params: Any) -> None:
        session.before_apply.clear()
        answered.set_result(await raw_request(session.lsp, "tether/listSelectors", {}))
        # then the editor applies the edit (returning None: the editor model's answer)

    async with agent(session) as client:
        read = structured(await client.call_tool("read", {"path": "store.py"}))
        session.before_apply.append(ask_the_server_first)
        call = asyncio.ensure_future(
            client.call_tool(
                "edit",
                {
                    "path": "store.py",
                    "base_version": read["version"],
                    "edits": [{"old_text": "self.data[key] = value", "new_text": "pass"}],
                },
            )
        )
        selectors = await asyncio.wait_for(answered, 10)
        assert selectors
        assert structured(await call)["written"]
    assert editor.text == UNSAVED.replace("self.data[key] = value", "pass")


async def test_an_agents_note_is_a_marker_of_the_editors_server_at_once(session: Session) -> None:
    """Notes are the running server's own markers: an agent's note reaches the editor as tether/markers/didChange
    and is in its marker list, placed on the unsaved buffer; the editor's marker is in the agent's notes."""
    (session.root / "store.py").write_text(ON_DISK)
    editor = session.open("store.py", ON_DISK)
    editor.replace(0, len(ON_DISK), UNSAVED)  # put() exists only in the buffer
    heard: asyncio.Queue[Any] = asyncio.Queue()

    @session.lsp.feature("tether/markers/didChange")
    def did_change(params: Any) -> None:
        heard.put_nowait(params)

    put = {"start": {"line": 5, "column": 5}, "end": {"line": 6, "column": 31}}
    async with agent(session) as client:
        note = structured(await client.call_tool("note_add", {"path": "store.py", "target": put, "text": "why str?"}))
        assert (note["author"], note["state"], note["range"]) == ("agent", "fresh", put)
        changed = await asyncio.wait_for(heard.get(), 10)
        assert editor.uri in plain(changed)["uris"]
        (marker,) = (await raw_request(session.lsp, "tether/markers/list", {"textDocument": {"uri": editor.uri}}))[
            "markers"
        ]
        assert (marker["id"], marker["note"], marker["author"], marker["status"]) == (
            note["id"],
            "why str?",
            "agent",
            "located",
        )
        assert marker["range"] == {"start": {"line": 4, "character": 4}, "end": {"line": 5, "character": 30}}
        mine = await raw_request(
            session.lsp,
            "tether/markers/create",
            {"textDocument": {"uri": editor.uri}, "range": marker["range"], "note": "mine", "kind": "issue"},
        )
        listed = structured(await client.call_tool("notes", {"path": "store.py"}))["notes"]
        assert {n["id"]: n["text"] for n in listed} == {note["id"]: "why str?", mine["id"]: "mine"}


def raw_status(url: str, headers: dict[str, str]) -> int:
    """The status of a POST of an initialize request with exactly these headers (no Host added)."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        }
    )
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        for key, value in {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Content-Length": str(len(body)),
            **headers,
        }.items():
            connection.putheader(key, value)
        connection.endheaders(body.encode())
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


async def test_requests_without_the_token_or_from_elsewhere_are_refused(session: Session) -> None:
    url, token = session.url, session.token
    port = url.split(":")[2].split("/")[0]
    good = {"Host": f"127.0.0.1:{port}", "Authorization": f"Bearer {token}"}

    def status(**changes: str | None) -> int:
        headers = {k: v for k, v in {**good, **changes}.items() if v is not None}
        return raw_status(url, headers)

    assert await asyncio.to_thread(status, Authorization=None) == 401
    assert await asyncio.to_thread(status, Authorization="Bearer " + token[:-1] + "x") == 401
    assert await asyncio.to_thread(status, Authorization=token) == 401
    assert await asyncio.to_thread(status, Host="attacker.example:" + port) == 421
    assert await asyncio.to_thread(status, Host="127.0.0.1:1") == 421
    assert await asyncio.to_thread(status, Origin="http://attacker.example") == 403
    assert await asyncio.to_thread(status, Origin="http://127.0.0.1.attacker.example:" + port) == 403
    assert await asyncio.to_thread(status, Host=f"localhost:{port}", Origin="http://localhost:8080") == 200
    assert await asyncio.to_thread(status) == 200


async def test_the_session_files_are_the_users_alone_and_gone_at_shutdown(tmp_path: Path) -> None:
    async with language_server(tmp_path) as session:
        description = session.description()
        assert description["pid"] != os.getpid() and description["roots"] == [str(session.root.resolve())]
        for path in (Path(description["token_file"]), *session.state.glob("*.json")):
            assert path.stat().st_mode & 0o777 == 0o600
        assert session.state.stat().st_mode & 0o777 == 0o700
    assert list(session.state.iterdir()) == []  # the server removed them when the editor shut it down


async def test_settings_changes_stop_and_start_the_endpoint(session: Session) -> None:
    """Turned off while an agent is connected (its event stream open), the endpoint stops at once: its files
    are gone and its port refuses connections; turned on, it serves again."""
    first = session.url
    async with agent(session) as client:
        assert (await client.list_tools()).tools
        since = len(session.lsp.log_messages)
        session.lsp.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={
                    "tether": {"mcp": {"http": {"enabled": True, "stateDir": str(session.state), "editTimeout": 3}}}
                }
            )
        )
        await raw_request(session.lsp, "tether/listSelectors", {})  # the settings are applied by now
        assert (await client.list_tools()).tools  # the same endpoint: the edit timeout is read at each edit
        assert session.url == first and not [m for m in session.lsp.log_messages[since:] if "MCP endpoint" in m.message]
        session.lsp.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tether": {"mcp": {"http": {"enabled": False}}}})
        )
        await endpoint_log(session.lsp, f"MCP endpoint on {first} stopped")
        assert list(session.state.glob("*")) == []
        with pytest.raises(ConnectionRefusedError):
            await asyncio.to_thread(raw_status, first, {})
    since = len(session.lsp.log_messages)
    session.lsp.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"tether": {"mcp": {"http": {"enabled": True, "stateDir": str(session.state)}}}}
        )
    )
    await endpoint_log(session.lsp, "MCP endpoint: serving on", since)
    async with agent(session) as client:
        assert (await client.list_tools()).tools


async def test_the_attach_bridge_serves_the_session_over_stdio(session: Session, tmp_path: Path) -> None:
    editor = session.open("store.py", UNSAVED)
    inner = session.root / "pkg"
    inner.mkdir()
    params = StdioServerParameters(
        command=str(COMMAND),
        args=["mcp", "--attach", "--workspace", str(inner), "--state-dir", str(session.state)],
        env=server_env(),
        cwd=str(tmp_path),
    )
    async with Client(params, read_timeout_seconds=30) as client:
        read = structured(await client.call_tool("read", {"path": "store.py"}))
        assert read["version"] == version_of(UNSAVED)
        answer = structured(
            await client.call_tool(
                "edit",
                {
                    "path": "store.py",
                    "base_version": read["version"],
                    "edits": [{"old_text": "self.data[key] = value", "new_text": "pass"}],
                },
            )
        )
    assert answer["written"] and editor.text == UNSAVED.replace("self.data[key] = value", "pass")


async def test_attach_without_a_session_says_so(tmp_path: Path) -> None:
    """No live session: a clear message and status 2; the files of a server that died are removed."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    dead = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await dead.wait()
    (state / "session-dead.token").write_text("x\n")
    (state / "session-dead.json").write_text(
        json.dumps(
            {
                "pid": dead.pid,
                "roots": [str(tmp_path)],
                "url": "http://127.0.0.1:9/mcp",
                "token_file": str(state / "session-dead.token"),
            }
        )
    )
    process = await asyncio.create_subprocess_exec(
        str(COMMAND),
        "mcp",
        "--attach",
        "--workspace",
        str(tmp_path),
        "--state-dir",
        str(tmp_path / "state"),
        env=server_env(),
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 2
    assert b"no running Tether language server serves MCP" in err
    assert list(state.iterdir()) == []


nvim = editors.nvim  # the fixture: Neovim 0.7 and 0.11
NOTE = "agent: check the cache here"  # what tests/editors/mcp_agent.py pins


def test_an_agents_note_and_edit_land_in_neovim(tmp_path: Path, nvim: str) -> None:
    """An agent pins a note to the function through the endpoint: Neovim shows it at once (Tether's sign and the
    note at the end of the function's first line, drawn on the server's tether/markers/didChange alone) and
    :TetherMarkers lists it; the agent deletes it and it is gone from both. Then the user types a line at the top
    (unsaved); the agent edits the function below: the edit is in the buffer next to the typed line, nothing is on
    disk, and ``u`` takes back the agent's edit and only it."""
    root = editors.workspace(tmp_path)
    state = tmp_path / "state"
    settings = {"mcp": {"http": {"enabled": True, "stateDir": str(state)}}}
    agent_out = tmp_path / "agent.json"
    command = [nvim, "--headless", "--clean", "-c", f"luafile {editors.ROOT / 'tests/editors/nvim_mcp_attached.lua'}"]
    seen = editors.run(
        command,
        root,
        tmp_path / "out.json",
        "nvim",
        TETHER_SETTINGS=json.dumps(settings),
        TETHER_STATE=str(state),
        TETHER_AGENT=str(editors.ROOT / "tests" / "editors" / "mcp_agent.py"),
        TETHER_AGENT_OUT=str(agent_out),
    )
    assert "error" not in seen, seen.get("error")
    assert (seen["ready"], seen["endpoint"], seen["listed"]) == (True, True, True)
    agent_saw = json.loads(agent_out.read_text())
    assert (seen["note_added"], seen["note_deleted"], seen["agent_edited"]) == (True, True, True), agent_saw
    assert (seen["agent_done"], seen["agent_exit"]) == (True, 0)
    note = agent_saw["note_add"]
    assert (note["text"], note["author"], note["range"]) == (NOTE, "agent", agent_saw["outline_total"]["range"])
    # what the user sees: the sign and the note at the end of `def total(items):` (line 4), listed by :TetherMarkers
    screen = f"… def total(items):   … agent: {NOTE}"  # the sign column, the line, the author, the note
    assert seen["note_shown"] and seen["with_note"] == [{"line": 4, "text": f"  … agent: {NOTE}", "screen": screen}]
    assert seen["list_with_note"] == [{"lnum": 4, "text": f"[comment] agent: {NOTE}"}]
    # drawn on the server's tether/markers/didChange: no other re-read of the markers ran meanwhile
    to_note, refreshes = seen["refreshes_to_note"], seen["refreshes"]
    assert isinstance(to_note, list) and to_note and set(to_note) == {"didChange"}
    assert agent_saw["note_delete"] == {"deleted": True}
    assert seen["note_gone"] and seen["without_note"] == [] and seen["list_without_note"] == []
    assert isinstance(refreshes, list) and set(refreshes) == {"didChange"}
    typed = "import sys\n" + editors.SOURCE
    assert agent_saw["read"]["parts"][0]["text"] == typed  # the unsaved line, read from the editor
    assert agent_saw["edit"]["written"] is True, agent_saw["edit"]
    edited = typed.replace("        s += i\n", "        s += i * 2\n")
    assert seen["after_edit"] == edited.splitlines() and seen["modified"] is True
    assert seen["after_undo"] == typed.splitlines()
    assert (root / "calc.py").read_text() == editors.SOURCE
