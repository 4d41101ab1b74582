"""Markers in files that commits rename or move, over stdio, in real git repositories made in temp dirs.

A marker belongs to the file its location at the current HEAD is in: through a commit, a checkout back and
forth, a rename and its undoing, a range of commits at once, an open buffer, and a teammate's server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.test_markers_e2e import SOURCE, create, git, listed, listed_until, repo, rng
from tests.helpers import capabilities, commit_all, git_move, open_doc, raw_request, server_config

__all__ = ["repo"]  # the git repository fixture, shared with test_markers_e2e

TOTAL = rng(2, 0, 6, 12)  # def total(...) in SOURCE


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient, repo: Path):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri()))
    yield
    await lsp_client.shutdown_session()


def head_changed(client: LanguageClient, repo: Path) -> None:
    """What an editor watching ``.git/HEAD`` sends after a commit or a checkout."""
    event = types.FileEvent(uri=(repo / ".git" / "HEAD").as_uri(), type=types.FileChangeType.Changed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[event]))


async def found_in(client: LanguageClient, repo: Path, path: str, marker_id: str) -> dict[str, Any]:
    """The marker listed in ``path`` once the server has caught up with HEAD."""
    uri = (repo / path).as_uri()
    (m,) = await listed_until(client, uri, lambda found: [x["id"] for x in found] == [marker_id])
    assert m["uri"] == uri
    return m


async def test_a_checkout_back_before_the_rename_finds_the_marker_in_the_old_file(
    client: LanguageClient, repo: Path
) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    marker = await create(client, (repo / "calc.py").as_uri(), TOTAL, "follow the file")
    git_move(repo, "calc.py", "src/pkg/calc.py")
    second = commit_all(repo, "move the package under src/")
    for commit, path, gone in ((second, "src/pkg/calc.py", "calc.py"), (first, "calc.py", "src/pkg/calc.py")) * 2:
        git(repo, "checkout", "-q", "--detach", commit)
        head_changed(client, repo)
        m = await found_in(client, repo, path, marker["id"])
        assert (m["status"], m["range"]) == ("located", TOTAL), commit
        assert await listed(client, (repo / gone).as_uri()) == []
        updated = await raw_request(client, "tether/markers/update", {"id": marker["id"], "note": f"at {commit}"})
        assert (updated["uri"], updated["range"], updated["note"]) == ((repo / path).as_uri(), TOTAL, f"at {commit}")
    await raw_request(client, "tether/markers/delete", {"id": marker["id"]})
    assert await listed(client, (repo / "src/pkg/calc.py").as_uri()) == []


async def test_a_file_renamed_and_back_keeps_its_markers(client: LanguageClient, repo: Path) -> None:
    marker = await create(client, (repo / "calc.py").as_uri(), TOTAL, "vendored, then not")
    for old, new in (("calc.py", "_vendor/calc.py"), ("_vendor/calc.py", "calc.py")):
        git_move(repo, old, new)
        commit_all(repo, f"{old} -> {new}")
        head_changed(client, repo)
        m = await found_in(client, repo, new, marker["id"])
        assert (m["status"], m["range"]) == ("located", TOTAL)
        assert await listed(client, (repo / old).as_uri()) == []


async def test_a_rename_with_edits_over_a_range_of_commits(client: LanguageClient, repo: Path) -> None:
    marker = await create(client, (repo / "calc.py").as_uri(), TOTAL, "renamed and edited")
    git_move(repo, "calc.py", "tests/test_calc.py")
    path = repo / "tests" / "test_calc.py"
    path.write_text('"""Moved into tests/."""\n' + SOURCE.replace("s = 0", "s = 0  # start"), encoding="utf-8")
    commit_all(repo, "move into tests/ with an edit")
    path.write_text("# header\n" + path.read_text(encoding="utf-8") + "\n\ndef more():\n    return 2\n")
    commit_all(repo, "more edits")
    head_changed(client, repo)  # two commits at once: the server sees only the range
    m = await found_in(client, repo, "tests/test_calc.py", marker["id"])
    assert (m["status"], m["range"]) == ("located", rng(4, 0, 8, 12))


async def test_an_open_file_renamed_by_a_commit_shows_its_markers_under_the_new_name(
    client: LanguageClient, repo: Path
) -> None:
    old_uri = (repo / "calc.py").as_uri()
    open_doc(client, old_uri, SOURCE)
    marker = await create(client, old_uri, TOTAL, "open while renamed")
    git_move(repo, "calc.py", "lib/calc_v2.py")
    commit_all(repo, "rename with a suffix")
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(old_uri)))
    new_uri = (repo / "lib" / "calc_v2.py").as_uri()
    open_doc(client, new_uri, SOURCE)
    head_changed(client, repo)
    m = await found_in(client, repo, "lib/calc_v2.py", marker["id"])
    assert (m["status"], m["range"]) == ("located", TOTAL)
    assert new_uri in {x["uri"] for x in await _workspace(client, repo)}


async def _workspace(client: LanguageClient, repo: Path) -> list[dict[str, Any]]:
    result = await raw_request(client, "tether/markers/listWorkspace", {"under": repo.as_uri()})
    return list(result["files"])


async def _start(config: ClientServerConfig, root: Path) -> Any:
    lsp: Any = await config.start()
    await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
    return lsp


@pytest.mark.postgres
async def test_a_teammates_markers_follow_a_rename_and_a_checkout_back(repo: Path, postgres_url: str) -> None:
    first_commit = git(repo, "rev-parse", "HEAD").strip()
    config = server_config(TETHER_DATABASE_URL=postgres_url)
    mine, theirs = await _start(config, repo), await _start(config, repo)
    try:
        marker = await create(theirs, (repo / "calc.py").as_uri(), TOTAL, "a teammate's note")
        git_move(repo, "calc.py", "pkg/calc.py")
        second = commit_all(repo, "move calc.py into pkg/")
        for lsp in (mine, theirs):
            head_changed(lsp, repo)
        for lsp in (mine, theirs):
            m = await found_in(lsp, repo, "pkg/calc.py", marker["id"])
            assert m["range"] == TOTAL
        git(repo, "checkout", "-q", "--detach", first_commit)
        head_changed(mine, repo)
        m = await found_in(mine, repo, "calc.py", marker["id"])
        assert m["range"] == TOTAL
        git(repo, "checkout", "-q", "--detach", second)
        head_changed(mine, repo)
        await found_in(mine, repo, "pkg/calc.py", marker["id"])
    finally:
        for lsp in (mine, theirs):
            await lsp.shutdown_session()
            await lsp.stop()
