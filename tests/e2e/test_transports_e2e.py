"""Notifications that workers cause reach the client over every transport (stdio, TCP, WebSocket): a HEAD
change recalculated in a worker, a teammate's marker arriving through PostgreSQL's NOTIFY, and a task that
streams its changes. Only the event loop writes to the protocol, so each transport sees them alike."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter

from tests.e2e.test_edits_e2e import EditorModel
from tests.e2e.test_markers_e2e import SOURCE, git, rng
from tests.e2e.test_tasks_e2e import CALC, RESPONSE
from tests.fakemodel import Answer, RunningModel
from tests.helpers import free_port, server_env
from tether_lsp.server.lspclient import make_client, plain, raw_request

TRANSPORTS = ["stdio", "tcp", "ws"]


class Session:
    """A pygls client over one transport, recording every notification it receives."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.received: list[tuple[str, Any]] = []
        self.arrived = asyncio.Condition()
        self.tasks: set[asyncio.Future[Any]] = set()
        #: For TCP and WebSocket, where the test starts the server: its port, then its exit code and stderr.
        self.port = 0
        self.returncode: int | None = None
        self.stderr = b""

    async def wait_for(self, method: str, where: Any = lambda _p: True, timeout: float = 30) -> Any:
        async with self.arrived:
            found = await asyncio.wait_for(
                self.arrived.wait_for(lambda: next((p for m, p in self.received if m == method and where(p)), None)),
                timeout,
            )
        return found


@asynccontextmanager
async def session(transport: str, root: Path, env: dict[str, str] | None = None, **init: Any) -> AsyncIterator[Session]:
    client = make_client("transport-test")
    me = Session(client)
    for method in ("tether/markers/didChange", "tether/edits/didUpdate", "$/progress"):

        def record(params: Any, method: str = method) -> None:
            async def note() -> None:
                async with me.arrived:
                    value = get_converter().unstructure(params) if attrs.has(type(params)) else plain(params)
                    me.received.append((method, value))
                    me.arrived.notify_all()

            task = asyncio.ensure_future(note())
            me.tasks.add(task)
            task.add_done_callback(me.tasks.discard)

        client.feature(method)(record)

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def progress_create(_params: Any) -> None:
        return None

    environment = server_env(env)
    proc: asyncio.subprocess.Process | None = None
    drain: asyncio.Future[Any] | None = None
    if transport == "stdio":
        await client.start_io(sys.executable, "-m", "tether_lsp", env=environment)
    else:
        port = me.port = free_port()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tether_lsp",
            f"--{transport}",
            "--port",
            str(port),
            env=environment,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stderr is not None
        while b"serving on" not in (line := await asyncio.wait_for(proc.stderr.readline(), 30)):
            assert line, "the server exited before listening"
        drain = asyncio.ensure_future(proc.stderr.read())  # keep the pipe from filling up
        if transport == "tcp":
            await client.start_tcp("127.0.0.1", port)
        else:
            await client.start_ws("127.0.0.1", port)
    try:
        capabilities = types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True))
        await client.initialize_async(
            types.InitializeParams(
                capabilities=capabilities, root_uri=root.as_uri(), initialization_options=init or None
            )
        )
        client.initialized(types.InitializedParams())
        yield me
        await asyncio.wait_for(client.shutdown_async(None), 30)
        client.exit(None)
    finally:
        await client.stop()  # type: ignore[no-untyped-call]
        if proc is not None:
            try:
                me.returncode = await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
        if drain is not None:
            me.stderr = await drain


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "calc.py").write_text(SOURCE, encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "calc")
    return tmp_path


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_head_change_is_notified(transport: str, repo: Path) -> None:
    async with session(transport, repo) as me:
        uri = (repo / "calc.py").as_uri()
        params = {"textDocument": {"uri": uri}, "range": rng(2, 0, 6, 12), "note": "n"}
        await raw_request(me.client, "tether/markers/create", params)
        (repo / "calc.py").write_text("# top\n" + SOURCE, encoding="utf-8")
        git(repo, "commit", "-q", "-am", "top")
        await raw_request(me.client, "tether/markers/list", {"textDocument": {"uri": uri}})  # notices HEAD
        changed = await me.wait_for("tether/markers/didChange", lambda p: uri in p["uris"])
        assert changed["uris"] == [uri]
        (marker,) = (await raw_request(me.client, "tether/markers/list", {"textDocument": {"uri": uri}}))["markers"]
        assert marker["range"] == rng(3, 0, 7, 12)


@pytest.mark.postgres
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_teammates_marker_is_notified(transport: str, repo: Path, postgres_url: str) -> None:
    env = {"TETHER_DATABASE_URL": postgres_url}
    uri = (repo / "calc.py").as_uri()
    async with session(transport, repo, env) as me, session("stdio", repo, env) as teammate:
        await raw_request(me.client, "tether/markers/list", {"textDocument": {"uri": uri}})
        created: dict[str, Any] = {}
        for _ in range(50):  # the first NOTIFY may go out before this server's LISTEN is connected: send more
            params = {"textDocument": {"uri": uri}, "range": rng(2, 0, 6, 12), "note": "from a teammate"}
            created = await raw_request(teammate.client, "tether/markers/create", params)
            try:
                await me.wait_for("tether/markers/didChange", lambda p: uri in p["uris"], timeout=0.5)
                break
            except TimeoutError:
                continue
        seen = (await raw_request(me.client, "tether/markers/list", {"textDocument": {"uri": uri}}))["markers"]
        assert created["id"] in {m["id"] for m in seen}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_streamed_task_is_notified(transport: str, tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text("def double(x):\n    return x * 2\n", encoding="utf-8")
    pieces = [RESPONSE[k : k + 7] for k in range(0, len(RESPONSE), 7)]
    with RunningModel(Answer(chunks=pieces)) as model:
        async with session(transport, tmp_path, tasks={"endpoint": model.url("/v1")}) as me:
            calc = EditorModel(me.client, (tmp_path / "calc.py").as_uri(), CALC)

            @me.client.feature(types.WORKSPACE_APPLY_EDIT)
            def apply_edit(params: Any) -> types.ApplyWorkspaceEditResult:
                first = params.edit.document_changes[0]
                if getattr(getattr(first, "text_document", None), "uri", None) == calc.uri:
                    return calc.apply(params)
                return types.ApplyWorkspaceEditResult(applied=True)

            line = CALC.split("\n").index(next(x for x in CALC.split("\n") if "@run" in x))
            result = await raw_request(
                me.client,
                "tether/tasks/run",
                {"textDocument": {"uri": calc.uri}, "position": {"line": line, "character": 0}},
            )
            assert result["edits"][0]["status"] == "applied"
            assert "return sum(items)" in calc.text
            assert any(m == "tether/edits/didUpdate" for m, _ in me.received)
            ends = [p["value"] for m, p in me.received if m == "$/progress" and p["value"]["kind"] == "end"]
            assert ends and ends[-1]["message"] == "done"


@pytest.mark.parametrize("transport", ["tcp", "ws"])
async def test_exit_ends_the_server_cleanly(transport: str, tmp_path: Path) -> None:
    """shutdown then exit over a socket: exit code 0 and nothing logged as an error (no traceback)."""
    async with session(transport, tmp_path) as me:
        uri = (tmp_path / "a.py").as_uri()
        me.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="python", version=1, text="a\n")
            )
        )
        assert (await raw_request(me.client, "tether/documentInfo", {"textDocument": {"uri": uri}}))["bytes"] == 2
    assert me.returncode == 0
    assert b"Traceback" not in me.stderr and b" ERROR " not in me.stderr, me.stderr.decode()


@pytest.mark.parametrize("transport", ["tcp", "ws"])
async def test_a_second_connection_is_refused_and_the_first_keeps_its_session(transport: str, tmp_path: Path) -> None:
    """One client per server: a second connection is closed at once, and answers still reach the first."""
    async with session(transport, tmp_path) as me:
        if transport == "tcp":
            reader, writer = await asyncio.open_connection("127.0.0.1", me.port)
            try:
                assert await asyncio.wait_for(reader.read(), 10) == b""  # closed by the server
            finally:
                writer.close()
        else:
            from websockets.asyncio.client import connect
            from websockets.exceptions import ConnectionClosed

            async with connect(f"ws://127.0.0.1:{me.port}") as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
        uri = (tmp_path / "a.py").as_uri()
        me.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="python", version=1, text="a\n")
            )
        )
        info = await asyncio.wait_for(raw_request(me.client, "tether/documentInfo", {"textDocument": {"uri": uri}}), 10)
        assert info["bytes"] == 2  # the answer reached the first client, not the second
    assert me.returncode == 0
    assert b"refused a second connection" in me.stderr
