"""One language server alone on its SQLite file: its own writes are not "another process". A rename commit moves
an open document's marker in a worker of this server; the SQLite watch (``handlers/markers/sqlite_watch.py``)
then sees ``data_version`` changed (the worker's connection committed), and it must not log that another process
changed the markers nor tell the editor a second time."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.e2e.test_markers_e2e import SOURCE, create, listed, repo, rng
from tests.e2e.test_markers_renames_e2e import found_in, head_changed
from tests.e2e.test_markers_sqlite_shared_e2e import server
from tests.helpers import capabilities, commit_all, git_move, open_doc, raw_request, server_config

__all__ = ["repo"]


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient, repo: Path):
    options = {"tether": {"markers": {"sqlitePollSeconds": 0.05}}}  # the watch checks all the time
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri(), initialization_options=options)
    )
    yield
    await lsp_client.shutdown_session()


async def test_a_rename_commit_with_one_server_is_not_another_process(client: LanguageClient, repo: Path) -> None:
    old_uri, new_uri = (repo / "calc.py").as_uri(), (repo / "lib" / "calc_v2.py").as_uri()
    open_doc(client, old_uri, SOURCE)
    marker = await create(client, old_uri, rng(2, 0, 6, 12), "renamed by a commit")
    git_move(repo, "calc.py", "lib/calc_v2.py")
    commit_all(repo, "rename")
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(old_uri)))
    open_doc(client, new_uri, SOURCE)
    head_changed(client, repo)
    await found_in(client, repo, "lib/calc_v2.py", marker["id"])
    # each list first waits for the watch's check: after these, it has compared what the rename commit wrote
    assert [m["id"] for m in await listed(client, new_uri)] == [marker["id"]]
    assert [m["id"] for m in await listed(client, new_uri)] == [marker["id"]]
    said = [m.message for m in client.log_messages if "another process" in m.message]
    assert said == [], said


async def test_another_servers_write_is_still_another_process(repo: Path) -> None:
    """The other side: a second server's marker on the open document is logged as another process's."""
    uri = (repo / "calc.py").as_uri()
    async with server(repo, poll=0) as me, server(repo) as other:
        open_doc(me, uri, SOURCE)
        await create(me, uri, rng(2, 0, 6, 12), "mine")  # this server writes, then lists
        assert len(await listed(me, uri)) == 1
        params = {"textDocument": {"uri": uri}, "range": rng(3, 0, 3, 9), "note": "from the other window"}
        await raw_request(other, "tether/markers/create", params)
        assert len(await listed(me, uri)) == 2  # the list's check found it
        said = [m.message for m in me.log_messages if "another process" in m.message]
        assert said == [
            "tether_lsp.handlers.markers.sqlite_watch: markers: another process changed the markers of 1 open document(s)"
        ], said
