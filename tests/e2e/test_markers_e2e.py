"""Markers over stdio on a real SQLite file: create, list, update, delete, CodeLens, typing, files outside git."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, change_doc, git, open_doc, raw_request, server_config

__all__ = ["git"]  # imported from here by the other markers tests

SOURCE = "import os\n\ndef total(items):  # café 🚀\n    s = 0\n    for i in items:\n        s += i\n    return s\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=capabilities(), root_uri=workspace.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


def rng(sl: int, sc: int, el: int, ec: int) -> dict[str, Any]:
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


async def create(client: LanguageClient, uri: str, r: dict[str, Any], note: str, **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = await raw_request(
        client, "tether/markers/create", {"textDocument": {"uri": uri}, "range": r, "note": note, **extra}
    )
    return result


async def listed(client: LanguageClient, uri: str) -> list[dict[str, Any]]:
    result = await raw_request(client, "tether/markers/list", {"textDocument": {"uri": uri}})
    return list(result["markers"])


async def listed_until(
    client: LanguageClient, uri: str, until: Callable[[list[dict[str, Any]]], bool]
) -> list[dict[str, Any]]:
    """List until ``until`` holds, again after each ``tether/markers/didChange``, within 30 s. For answers
    the server gives at once and corrects later: after a commit or checkout it answers from the last synced
    locations and the recalculation ends with didChange (which may be for an earlier HEAD); after another
    process wrote to a shared SQLite file, a request waits at most a second for the check, and didChange
    follows when the check finds the write later."""
    async with asyncio.timeout(30):
        while True:
            changed = client.protocol.wait_for_notification("tether/markers/didChange")  # before listing: no race
            found = await listed(client, uri)
            if until(found):
                return found  # the waiter stays, harmless: resolved by a later didChange or dropped with the client
            await asyncio.wrap_future(changed)


async def test_create_edit_list_update_delete(client: LanguageClient, workspace: Path) -> None:
    uri = (workspace / "calc.py").as_uri()
    open_doc(client, uri, SOURCE)
    marker = await create(client, uri, rng(2, 0, 6, 12), "Sum could be sum(items)\nsecond line", kind="question")
    assert marker["status"] == "located"
    assert marker["range"] == rng(2, 0, 6, 12)
    assert marker["code"].startswith("def total(items):  # café 🚀") and marker["code"].endswith("return s")
    assert marker["kind"] == "question"
    assert marker["commitHashWhenCreated"] is None
    assert marker["createdAt"].endswith("Z")
    assert "missingReason" not in marker

    change_doc(client, uri, 2, "# a header line\n\n", (0, 0), (0, 0))  # two lines above
    (moved,) = await listed(client, uri)
    assert moved["range"] == rng(4, 0, 8, 12)
    assert moved["createdAt"] == marker["createdAt"]  # read back from the database, zone included
    assert moved["contentChanged"] is False

    change_doc(client, uri, 3, "    t = 0  # é\n", (5, 0), (6, 0))  # the block's first body line edited
    (edited,) = await listed(client, uri)
    assert edited["range"] == rng(4, 0, 8, 12)
    assert edited["contentChanged"] is True

    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses is not None
    assert [(lens.range.start.line, lens.command.title if lens.command else None) for lens in lenses] == [
        (4, "Sum could be sum(items)")
    ]

    updated = await raw_request(
        client, "tether/markers/update", {"id": marker["id"], "note": "renamed", "kind": "issue"}
    )
    assert (updated["note"], updated["kind"], updated["range"]) == ("renamed", "issue", rng(4, 0, 8, 12))
    placed = await raw_request(client, "tether/markers/update", {"id": marker["id"], "range": rng(0, 0, 0, 15)})
    assert placed["range"] == rng(0, 0, 0, 15)

    assert await raw_request(client, "tether/markers/delete", {"id": marker["id"]}) is None
    assert await listed(client, uri) == []
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/markers/delete", {"id": marker["id"]})
    assert info.value.code == -32803
    assert info.value.data == {"kind": "unknownMarker", "id": marker["id"]}


async def test_deleted_block_is_missing_and_listed_last(client: LanguageClient, workspace: Path) -> None:
    uri = (workspace / "calc.py").as_uri()
    open_doc(client, uri, SOURCE)
    gone = await create(client, uri, rng(2, 0, 6, 12), "the function")
    kept = await create(client, uri, rng(0, 0, 0, 9), "the import")
    change_doc(client, uri, 2, "import os\n")
    markers = await listed(client, uri)
    assert [m["id"] for m in markers] == [kept["id"], gone["id"]]
    assert markers[1]["status"] == "missing"
    assert markers[1]["range"] is None
    assert markers[1]["missingReason"] == "codeBlockDeleted"


async def test_files_that_are_not_open_are_read_from_disk(client: LanguageClient, workspace: Path) -> None:
    uri = (workspace / "calc.py").as_uri()
    marker = await create(client, uri, rng(6, 4, 6, 12), "return")
    (workspace / "calc.py").write_text("# new first line\n" + SOURCE, encoding="utf-8")
    (listed_marker,) = await listed(client, uri)
    assert listed_marker["id"] == marker["id"]
    assert listed_marker["range"] == rng(7, 4, 7, 12)


async def test_the_workspace_list_gives_every_file_with_markers(client: LanguageClient, workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "util.py").write_text("def double(x):\n    return x * 2\n", encoding="utf-8")
    calc, util = (workspace / "calc.py").as_uri(), (workspace / "pkg" / "util.py").as_uri()
    open_doc(client, calc, SOURCE)
    first = await create(client, calc, rng(2, 0, 6, 12), "total")
    second = await create(client, util, rng(0, 0, 1, 16), "double", kind="bookmark")
    change_doc(client, calc, 2, "# moved down\n", (0, 0), (0, 0))  # the open buffer counts, as for `list`
    everything = await raw_request(client, "tether/markers/listWorkspace", {})
    assert [f["uri"] for f in everything["files"]] == [calc, util]
    assert [m["id"] for m in everything["files"][0]["markers"]] == [first["id"]]
    assert everything["files"][0]["markers"][0]["range"] == rng(3, 0, 7, 12)
    assert everything["files"][1]["markers"][0]["kind"] == "bookmark"
    under = await raw_request(client, "tether/markers/listWorkspace", {"under": (workspace / "pkg").as_uri()})
    assert [m["id"] for f in under["files"] for m in f["markers"]] == [second["id"]]
    await raw_request(client, "tether/markers/delete", {"id": second["id"]})
    after = await raw_request(client, "tether/markers/listWorkspace", {})
    assert [f["uri"] for f in after["files"]] == [calc]  # a file whose markers are all deleted is not listed
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/markers/listWorkspace", {"under": "untitled:x"})
    assert info.value.code == -32602 and "under" in info.value.message


async def test_markers_survive_a_server_restart(workspace: Path) -> None:
    """The SQLite file keeps what was acknowledged (a second server finds it)."""
    from pytest_lsp import ClientServerConfig

    uri = (workspace / "calc.py").as_uri()
    for round_ in range(2):
        config: ClientServerConfig = server_config()
        client = await config.start()
        assert isinstance(client, LanguageClient)
        await client.initialize_session(
            types.InitializeParams(capabilities=capabilities(), root_uri=workspace.as_uri())
        )
        if round_ == 0:
            await create(client, uri, rng(0, 0, 0, 9), "persisted")
        else:
            assert [m["note"] for m in await listed(client, uri)] == ["persisted"]
        await client.shutdown_session()
        await client.stop()  # type: ignore[no-untyped-call]


@pytest.mark.parametrize(
    ("params", "code", "message"),
    [
        (
            {"range": {"start": {"line": 40, "character": 0}, "end": {"line": 41, "character": 0}}},
            -32602,
            "range: outside the document",
        ),
        (
            {"range": {"start": {"line": 3, "character": 0}, "end": {"line": 1, "character": 0}}},
            -32602,
            "range: the end comes before the start",
        ),
        ({"kind": "todo"}, -32602, "kind: expected one of comment, question, issue, bookmark"),
        ({"note": 5}, -32602, "note: expected a string"),
    ],
)
async def test_bad_input(
    client: LanguageClient, workspace: Path, params: dict[str, Any], code: int, message: str
) -> None:
    uri = (workspace / "calc.py").as_uri()
    base = {"textDocument": {"uri": uri}, "range": rng(0, 0, 0, 1), "note": "n"}
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/markers/create", {**base, **params})
    assert info.value.code == code
    assert info.value.message.startswith(message)
    assert await listed(client, uri) == []  # a failing request changes nothing


async def test_unknown_marker_and_unknown_file(client: LanguageClient, workspace: Path) -> None:
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/markers/update", {"id": "nope", "note": "x"})
    assert info.value.code == -32803
    with pytest.raises(JsonRpcException) as info:
        await create(client, (workspace / "missing.py").as_uri(), rng(0, 0, 0, 0), "x")
    assert info.value.code == -32602


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Ada Lovelace")
    (root / "calc.py").write_text(SOURCE, encoding="utf-8")
    git(root, "add", "calc.py")
    git(root, "commit", "-q", "-m", "init")
    return root


@pytest_lsp.fixture(config=server_config())
async def repo_client(lsp_client: LanguageClient, repo: Path):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def test_creation_backtracks_to_the_committed_text(repo_client: LanguageClient, repo: Path) -> None:
    client = repo_client
    uri = (repo / "calc.py").as_uri()
    head = git(repo, "rev-parse", "HEAD").strip()
    open_doc(client, uri, SOURCE)
    committed = await create(client, uri, rng(2, 0, 6, 12), "on committed code")
    assert committed["commitHashWhenCreated"] == head
    assert committed["author"] == "Ada Lovelace"
    change_doc(client, uri, 2, "def extra():\n    return 42\n", (7, 0), (7, 0))  # new code at the end
    fresh = await create(client, uri, rng(7, 0, 8, 13), "on new code")
    assert fresh["code"] == "def extra():\n    return 42"
    assert fresh["commitHashWhenCreated"] is None
    assert (repo / ".git" / "tether" / "tether.db").exists()  # the clone's own database


async def test_markers_outside_git_have_no_commit(client: LanguageClient, workspace: Path) -> None:
    uri = (workspace / "calc.py").as_uri()
    marker = await create(client, uri, rng(0, 0, 0, 9), "outside git")
    assert marker["commitHashWhenCreated"] is None


async def test_a_renamed_file_takes_its_markers_along(repo_client: LanguageClient, repo: Path) -> None:
    client = repo_client
    old_uri = (repo / "calc.py").as_uri()
    marker = await create(client, old_uri, rng(2, 0, 6, 12), "follow me")
    (repo / "lib").mkdir()
    git(repo, "mv", "calc.py", "lib/maths.py")
    text = (repo / "lib" / "maths.py").read_text(encoding="utf-8")
    (repo / "lib" / "maths.py").write_text("# moved here\n" + text.replace("s = 0", "s = 0  # start"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "move calc to lib/maths")
    new_uri = (repo / "lib" / "maths.py").as_uri()
    (followed,) = await listed(client, new_uri)
    assert followed["id"] == marker["id"]
    assert followed["uri"] == new_uri
    assert followed["range"] == rng(3, 0, 7, 12)
    assert await listed(client, old_uri) == []


async def test_a_staged_rename_is_followed_too(repo_client: LanguageClient, repo: Path) -> None:
    client = repo_client
    old_uri = (repo / "calc.py").as_uri()
    open_doc(client, old_uri, SOURCE + "def extra():\n    return 1\n", version=1)
    marker = await create(client, old_uri, rng(7, 0, 8, 12), "uncommitted code")
    assert marker["commitHashWhenCreated"] is None
    (repo / "calc.py").write_text(SOURCE + "def extra():\n    return 1\n", encoding="utf-8")
    git(repo, "add", "calc.py")
    git(repo, "mv", "calc.py", "renamed.py")
    (followed,) = await listed(client, (repo / "renamed.py").as_uri())
    assert followed["id"] == marker["id"]
    assert followed["range"] == rng(7, 0, 8, 12)


async def test_head_change_notifies_did_change(repo_client: LanguageClient, repo: Path) -> None:
    """A commit reported through the watched .git files → tether/markers/didChange with the repo's files."""
    import asyncio

    client = repo_client
    uri = (repo / "calc.py").as_uri()
    await create(client, uri, rng(2, 0, 6, 12), "watch")
    (repo / "other.py").write_text("x = 1\n", encoding="utf-8")
    git(repo, "add", "other.py")
    git(repo, "commit", "-q", "-m", "another commit")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(repo / ".git" / "HEAD").as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    params = await asyncio.wait_for(client.wait_for_notification("tether/markers/didChange"), 10)
    uris = params["uris"] if isinstance(params, dict) else params.uris
    assert list(uris) == [uri]


async def test_head_change_is_noticed_on_the_next_request_without_watchers(
    repo_client: LanguageClient, repo: Path
) -> None:
    import asyncio

    client = repo_client
    uri = (repo / "calc.py").as_uri()
    await create(client, uri, rng(2, 0, 6, 12), "watch")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
    waiter = asyncio.ensure_future(client.wait_for_notification("tether/markers/didChange"))
    await listed(client, uri)  # the per-request HEAD check
    params = await asyncio.wait_for(waiter, 10)
    uris = params["uris"] if isinstance(params, dict) else params.uris
    assert list(uris) == [uri]


def test_kill_9_in_the_middle_of_many_creates_loses_nothing_acknowledged(workspace: Path) -> None:
    """Every create that returned is in the database after a SIGKILL, and the file passes its integrity check."""
    import sqlite3
    import time

    from tests.helpers import server_env
    from tests.rawclient import RawServer

    data_home = workspace / "data"
    server = RawServer(env=server_env({"XDG_DATA_HOME": str(data_home)}))
    try:
        server.initialize(rootUri=workspace.as_uri())
        uri = (workspace / "calc.py").as_uri()
        total = 300
        for n in range(total):
            server.send(
                {
                    "id": 1000 + n,
                    "method": "tether/markers/create",
                    "params": {"textDocument": {"uri": uri}, "range": rng(2, 0, 6, 12), "note": f"note {n}"},
                }
            )
        acknowledged: list[str] = []
        deadline = time.monotonic() + 30
        while len(acknowledged) < 40 and time.monotonic() < deadline:
            message = server.wait_for(lambda m: isinstance(m.get("id"), int) and m["id"] >= 1000)
            acknowledged.append(message["result"]["id"])
        server.proc.kill()  # SIGKILL, mid-stream
        server.proc.wait(timeout=10)
        while not server.messages.empty():  # answers already written before the kill count too
            message = server.messages.get()
            if isinstance(message.get("id"), int) and message["id"] >= 1000 and "result" in message:
                acknowledged.append(message["result"]["id"])
    finally:
        server.close()
    (db_file,) = data_home.rglob("tether.db")
    with sqlite3.connect(db_file) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        stored = {row[0] for row in db.execute("SELECT id FROM tether_markers")}
    assert len(acknowledged) >= 40
    assert set(acknowledged) <= stored
    assert len(stored) < total  # it really died in the middle


async def test_a_locked_database_gives_a_clear_error_and_reads_keep_working(
    client: LanguageClient, workspace: Path
) -> None:
    import sqlite3

    uri = (workspace / "calc.py").as_uri()
    open_doc(client, uri, SOURCE)
    marker = await create(client, uri, rng(2, 0, 6, 12), "before the lock")
    (db_file,) = {
        Path(m.message.split("sqlite:///", 1)[1]) for m in client.log_messages if "storage: sqlite" in m.message
    }
    holder = sqlite3.connect(db_file, isolation_level=None, timeout=1)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(JsonRpcException) as info:
            await create(client, uri, rng(0, 0, 0, 9), "while locked")
        assert info.value.code == -32803
        assert "locked" in str(info.value.message)
        change_doc(client, uri, 2, "# top\n", (0, 0), (0, 0))
        (m,) = await listed(client, uri)  # reading still works while another process writes
        assert m["id"] == marker["id"]
        assert m["range"] == rng(3, 0, 7, 12)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(await listed(client, uri)) == 1  # the failed create left nothing behind


async def test_an_unreachable_database_names_the_reason_without_the_password(workspace: Path) -> None:
    from pytest_lsp import ClientServerConfig

    config: ClientServerConfig = server_config(
        TETHER_DATABASE_URL="postgresql+psycopg://tether:s3cret-pw@127.0.0.1:9/markers"
    )
    lsp: Any = await config.start()
    await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=workspace.as_uri()))
    try:
        uri = (workspace / "calc.py").as_uri()
        with pytest.raises(JsonRpcException) as info:
            await create(lsp, uri, rng(2, 0, 6, 12), "nowhere to go")
        assert info.value.code == -32803
        assert "s3cret-pw" not in str(info.value.message)
        assert "127.0.0.1" in str(info.value.message) or "connect" in str(info.value.message).lower()
        with pytest.raises(JsonRpcException):
            await listed(lsp, uri)
        # the server is still alive and serving other features
        result = await raw_request(lsp, "tether/listSelectors", {})
        assert result["selectors"]
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


async def test_when_the_database_fails_an_open_file_keeps_its_last_known_markers(workspace: Path) -> None:
    """The database breaks under a running server: it keeps serving the markers it has, read-only and carried
    through typing; a new marker is refused with the database's error; what was stored before is still there."""
    from pytest_lsp import ClientServerConfig

    db_file = workspace / "db" / "markers.db"
    config: ClientServerConfig = server_config(TETHER_DATABASE_URL=f"sqlite:///{db_file}")
    lsp: Any = await config.start()
    await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=workspace.as_uri()))
    try:
        uri = (workspace / "calc.py").as_uri()
        open_doc(lsp, uri, SOURCE)
        marker = await create(lsp, uri, rng(2, 0, 6, 12), "keep me")
        await listed(lsp, uri)
        # the database's files are overwritten in place (the server keeps its connections): not a database now
        saved = {part: part.read_bytes() for part in db_file.parent.iterdir()}
        for part in saved:
            part.write_bytes(b"this is not a database" * 100)
        change_doc(lsp, uri, 2, "# top\n", (0, 0), (0, 0))
        (m,) = await listed(lsp, uri)
        assert m["id"] == marker["id"]
        assert m["range"] == rng(3, 0, 7, 12)
        with pytest.raises(JsonRpcException) as info:
            await create(lsp, uri, rng(0, 0, 0, 9), "cannot be stored")
        assert info.value.code == -32803
        assert "not a database" in str(info.value.message)
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
    for part, data in saved.items():  # the disk comes back: what was acknowledged is there
        part.write_bytes(data)
    with __import__("sqlite3").connect(db_file) as db:
        assert db.execute("SELECT note FROM tether_markers").fetchall() == [("keep me",)]
