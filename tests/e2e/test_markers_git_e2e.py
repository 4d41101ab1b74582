"""Markers across commits, branches and files, over stdio, in real git repositories made in temp dirs."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.test_markers_e2e import SOURCE, create, git, listed, listed_until, repo, rng
from tests.helpers import capabilities, change_doc, commit_all, open_doc, server_config
from tether_lsp.handlers.markers.store import ALGORITHM_VERSION

__all__ = ["repo"]  # the git repository fixture, shared with test_markers_e2e


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient, repo: Path):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri()))
    yield
    await lsp_client.shutdown_session()


def stored_rows(repo: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(repo / ".git" / "tether" / "tether.db") as db:
        return db.execute(
            "SELECT commit_hash, derived_from, algorithm_version, line_start, line_end"
            " FROM tether_marker_locations ORDER BY line_start"
        ).fetchall()


async def test_a_commit_stores_the_location_at_the_new_head(client: LanguageClient, repo: Path) -> None:
    uri = (repo / "calc.py").as_uri()
    first = git(repo, "rev-parse", "HEAD").strip()
    marker = await create(client, uri, rng(2, 0, 6, 12), "total")
    (repo / "calc.py").write_text("# header\n# more\n" + SOURCE, encoding="utf-8")
    second = commit_all(repo, "header")
    (listed_marker,) = await listed_until(
        client, uri, lambda _: (second, first, ALGORITHM_VERSION, 5, 9) in stored_rows(repo)
    )
    assert listed_marker["id"] == marker["id"]
    assert listed_marker["range"] == rng(4, 0, 8, 12)
    assert listed_marker["commitHashWhenCreated"] == first
    rows = stored_rows(repo)
    assert (first, first, ALGORITHM_VERSION, 3, 7) in rows  # the creation commit's location
    assert (second, first, ALGORITHM_VERSION, 5, 9) in rows  # computed once at the new HEAD, derived from the first


async def test_checkout_another_branch_and_back(client: LanguageClient, repo: Path) -> None:
    uri = (repo / "calc.py").as_uri()
    await create(client, uri, rng(2, 0, 6, 12), "total")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "calc.py").write_text("A = 1\nB = 2\nC = 3\n" + SOURCE, encoding="utf-8")
    commit_all(repo, "three lines above")
    for branch, line in (("feature", 5), ("main", 2), ("feature", 5), ("main", 2)):
        git(repo, "checkout", "-q", branch)
        (m,) = await listed(client, uri)
        assert m["range"] == rng(line, 0, line + 4, 12), branch
    assert len({row[0] for row in stored_rows(repo)}) == 2  # one stored location per commit, reused


async def test_a_function_moved_to_another_file_in_one_commit(client: LanguageClient, repo: Path) -> None:
    calc, helpers = repo / "calc.py", repo / "helpers.py"
    marker = await create(client, calc.as_uri(), rng(2, 0, 6, 12), "follow the function")
    body = SOURCE.split("\n", 2)[2]  # the def total(...) block
    calc.write_text("import os\n", encoding="utf-8")
    helpers.write_text('"""Helpers."""\n\nimport math\n\n' + body, encoding="utf-8")
    commit_all(repo, "move total() to helpers.py")
    (moved,) = await listed_until(client, helpers.as_uri(), lambda found: len(found) == 1)
    assert moved["id"] == marker["id"]
    assert moved["uri"] == helpers.as_uri()
    assert moved["range"] == rng(4, 0, 8, 12)
    assert moved["status"] == "located"
    assert await listed(client, calc.as_uri()) == []


async def test_a_block_of_a_deleted_file_is_reported_deleted(client: LanguageClient, repo: Path) -> None:
    calc = repo / "calc.py"
    marker = await create(client, calc.as_uri(), rng(2, 0, 6, 12), "in a file that goes away")
    git(repo, "rm", "-q", "calc.py")
    commit_all(repo, "remove calc.py")
    (m,) = await listed_until(client, calc.as_uri(), lambda found: found[0]["status"] == "missing")
    assert m["id"] == marker["id"]
    assert m["range"] is None
    assert m["missingReason"] == "codeBlockDeleted"


async def test_a_marker_on_uncommitted_code_becomes_committed(client: LanguageClient, repo: Path) -> None:
    calc = repo / "calc.py"
    calc.write_text(SOURCE + "\ndef extra():\n    return 42\n", encoding="utf-8")
    marker = await create(client, calc.as_uri(), rng(8, 0, 9, 13), "new code")
    assert marker["commitHashWhenCreated"] is None
    calc.write_text("# top\n" + calc.read_text(encoding="utf-8"), encoding="utf-8")  # and edited on disk
    (m,) = await listed(client, calc.as_uri())
    assert m["range"] == rng(9, 0, 10, 13)
    head = commit_all(repo, "extra")
    (m,) = await listed_until(client, calc.as_uri(), lambda found: found[0]["commitHashWhenCreated"] == head)
    assert m["commitHashWhenCreated"] == head  # flushed: now a stored location at that commit
    assert m["range"] == rng(9, 0, 10, 13)
    with sqlite3.connect(repo / ".git" / "tether" / "tether.db") as db:
        assert db.execute("SELECT count(*) FROM tether_marker_uncommitted").fetchone() == (0,)


async def test_a_partly_committed_block_stays_uncommitted(client: LanguageClient, repo: Path) -> None:
    calc = repo / "calc.py"
    calc.write_text(SOURCE + "\ndef extra():\n    return 42\n", encoding="utf-8")
    marker = await create(client, calc.as_uri(), rng(8, 0, 9, 13), "new code")
    git(repo, "commit", "-q", "--allow-empty", "-m", "nothing of it")
    (m,) = await listed(client, calc.as_uri())
    assert m["id"] == marker["id"]
    assert m["commitHashWhenCreated"] is None
    assert m["range"] == rng(8, 0, 9, 13)


async def test_typing_moves_markers_like_decorations(client: LanguageClient, repo: Path) -> None:
    """Exact didChange edits carry buffer locations; a save recomputes from the commit: same answer."""
    uri = (repo / "calc.py").as_uri()
    open_doc(client, uri, SOURCE)
    await create(client, uri, rng(2, 0, 6, 12), "total")
    await listed(client, uri)
    change_doc(client, uri, 2, "# one\n# two\n", (0, 0), (0, 0))  # above: shifts
    change_doc(client, uri, 3, "    # inside\n", (6, 0), (6, 0))  # interior: end moves
    change_doc(client, uri, 4, "value", (9, 11), (9, 12))  # end line, before the end: `return value`
    (typed,) = await listed(client, uri)
    assert typed["range"] == rng(4, 0, 9, 16)
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    (saved,) = await listed(client, uri)
    assert saved["range"] == typed["range"]
    change_doc(client, uri, 5, "x = 1; ", (4, 0), (4, 0))  # inserted exactly at the start: outside
    (after,) = await listed(client, uri)
    assert after["range"] == rng(4, 7, 9, 16)
    assert after["contentChanged"] is True


async def test_git_missing_markers_work_as_outside_git(tmp_path: Path, repo: Path) -> None:
    """No git on PATH: markers still work (from their stored contents), with one warning in the log."""
    config = server_config(PATH="/nonexistent")
    lsp: Any = await config.start()
    await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri()))
    try:
        uri = (repo / "calc.py").as_uri()
        marker = await create(lsp, uri, rng(2, 0, 6, 12), "no git")
        assert marker["commitHashWhenCreated"] is None
        (repo / "calc.py").write_text("# top\n" + SOURCE, encoding="utf-8")
        (m,) = await listed(lsp, uri)
        assert m["range"] == rng(3, 0, 7, 12)
        warnings = [m.message for m in lsp.log_messages if "git is not installed" in m.message]
        assert len(warnings) == 1
        assert not [m for m in lsp.log_messages if "corrupt" in m.message]
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


async def test_a_corrupt_repository_is_treated_as_outside_git(tmp_path: Path) -> None:
    root = tmp_path / "broken"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("garbage\n", encoding="utf-8")
    (root / "calc.py").write_text(SOURCE, encoding="utf-8")
    config = server_config()
    lsp: Any = await config.start()
    await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
    try:
        uri = (root / "calc.py").as_uri()
        marker = await create(lsp, uri, rng(2, 0, 6, 12), "broken repo")
        assert marker["commitHashWhenCreated"] is None
        (root / "calc.py").write_text("# top\n" + SOURCE, encoding="utf-8")
        (m,) = await listed(lsp, uri)
        assert m["range"] == rng(3, 0, 7, 12)
        warnings = [m.message for m in lsp.log_messages if "corrupt repository" in m.message]
        assert len(warnings) == 1
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


async def _start(config: ClientServerConfig, root: Path) -> Any:
    lsp: Any = await config.start()
    await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
    return lsp


@pytest.mark.postgres
async def test_a_second_server_on_the_same_postgresql_sees_markers_and_gets_did_change(
    repo: Path, postgres_url: str
) -> None:
    config = server_config(TETHER_DATABASE_URL=postgres_url)
    first, second = await _start(config, repo), await _start(config, repo)
    try:
        uri = (repo / "calc.py").as_uri()
        await listed(second, uri)
        await listening(second)  # the second one says when its LISTEN is connected
        waiter = asyncio.ensure_future(second.wait_for_notification("tether/markers/didChange"))
        marker = await create(first, uri, rng(2, 0, 6, 12), "from the first server")
        params = await asyncio.wait_for(waiter, 10)
        uris = params["uris"] if isinstance(params, dict) else params.uris
        assert list(uris) == [uri]
        (seen,) = await listed(second, uri)
        assert seen["id"] == marker["id"]
        assert seen["range"] == rng(2, 0, 6, 12)
        # uncommitted locations stay local: the second server only finds the block by its code
        (repo / "calc.py").write_text(SOURCE + "\ndef extra():\n    return 42\n", encoding="utf-8")
        fresh = await create(first, uri, rng(8, 0, 9, 13), "uncommitted")
        assert fresh["commitHashWhenCreated"] is None
        assert _local_rows(repo) == 1  # in the local SQLite file beside the shared database
    finally:
        for lsp in (first, second):
            await lsp.shutdown_session()
            await lsp.stop()


async def listening(lsp: Any, times: int = 1) -> None:
    """Until the server has said ``times`` times that its LISTEN is connected."""
    async with asyncio.timeout(30):
        while True:
            logged = lsp.protocol.wait_for_notification("window/logMessage")  # before looking: no race
            if sum("listening for other servers" in m.message for m in lsp.log_messages) >= times:
                return
            await asyncio.wrap_future(logged)


@pytest.mark.postgres
async def test_listen_follows_a_changed_database_url(repo: Path, postgres_url: str, other_postgres_url: str) -> None:
    first: Any = await server_config().start()
    await first.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=repo.as_uri(),
            initialization_options={"tether": {"database": {"url": postgres_url}}},
        )
    )
    teammate = await _start(server_config(TETHER_DATABASE_URL=other_postgres_url), repo)
    try:
        uri = (repo / "calc.py").as_uri()
        await listed(first, uri)
        await listening(first)
        first.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tether": {"database": {"url": other_postgres_url}}})
        )
        await listening(first, times=2)  # now on the other database
        waiter = asyncio.ensure_future(first.wait_for_notification("tether/markers/didChange"))
        await create(teammate, uri, rng(2, 0, 6, 12), "on the new database")
        params = await asyncio.wait_for(waiter, 10)
        assert list(params["uris"] if isinstance(params, dict) else params.uris) == [uri]
    finally:
        for lsp in (first, teammate):
            await lsp.shutdown_session()
            await lsp.stop()


def _local_rows(repo: Path) -> int:
    with sqlite3.connect(repo / ".git" / "tether" / "tether.db") as db:
        return int(db.execute("SELECT count(*) FROM tether_marker_uncommitted").fetchone()[0])


async def test_a_committed_marker_follows_a_staged_rename_then_its_commit(client: LanguageClient, repo: Path) -> None:
    marker = await create(client, (repo / "calc.py").as_uri(), rng(2, 0, 6, 12), "committed code")
    git(repo, "mv", "calc.py", "renamed.py")
    new_uri = (repo / "renamed.py").as_uri()
    (m,) = await listed(client, new_uri)
    assert (m["id"], m["range"]) == (marker["id"], rng(2, 0, 6, 12))
    git(repo, "commit", "-q", "-m", "rename")
    (m,) = await listed(client, new_uri)
    assert (m["id"], m["uri"], m["range"]) == (marker["id"], new_uri, rng(2, 0, 6, 12))
    assert await listed(client, (repo / "calc.py").as_uri()) == []
