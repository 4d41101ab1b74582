"""A file moved by a commit, with an editor that does not watch ``.git/HEAD`` (no didChangeWatchedFiles).

The server must notice the new HEAD on the request itself, so ``list`` answers at that HEAD
at once, whichever file is asked first, and a checkout back brings the marker back to the old file. Nothing
here waits for ``tether/markers/didChange``: every answer is asserted on the first ask.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.e2e.test_editors_e2e import SOURCE as EDITOR_SOURCE
from tests.e2e.test_editors_e2e import nvim
from tests.e2e.test_markers_e2e import SOURCE, create, git, listed, repo, rng
from tests.e2e.test_nvim_client_e2e import session as nvim_session
from tests.helpers import capabilities, commit_all, git_move, open_doc, raw_request, server_config

__all__ = ["nvim", "repo"]  # fixtures: Neovim 0.7 and 0.11; the git repository (calc.py committed)

TOTAL = rng(2, 0, 6, 12)  # def total(...) in calc.py


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient, repo: Path):
    # capabilities() offers no dynamic registration of watched files: the server cannot watch .git/HEAD
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri()))
    yield
    await lsp_client.shutdown_session()


def _uri(repo: Path, path: str) -> str:
    return (repo / path).as_uri()


async def _answers(client: LanguageClient, repo: Path, order: tuple[str, str]) -> dict[str, list[dict[str, Any]]]:
    """``list`` on each path in ``order``, each asked once."""
    return {path: await listed(client, _uri(repo, path)) for path in order}


async def _workspace(client: LanguageClient, repo: Path) -> dict[str, list[dict[str, Any]]]:
    result = await raw_request(client, "tether/markers/listWorkspace", {"under": repo.as_uri()})
    return {f["uri"]: f["markers"] for f in result["files"]}


def _only_in(answers: dict[str, list[dict[str, Any]]], repo: Path, path: str, marker_id: str) -> None:
    """The marker is listed, located on ``total``, in ``path`` only; every other file lists nothing."""
    for asked, markers in answers.items():
        if asked != path:
            assert markers == [], f"{asked} should list nothing, got {markers}"
    (m,) = answers[path]
    assert (m["id"], m["uri"], m["status"], m["range"]) == (marker_id, _uri(repo, path), "located", TOTAL)


@pytest.mark.parametrize("first", ["calc.py", "pkg/calc.py"], ids=["old-path-first", "new-path-first"])
async def test_a_moved_file_lists_its_marker_at_the_new_head_in_either_order(
    client: LanguageClient, repo: Path, first: str
) -> None:
    a = git(repo, "rev-parse", "HEAD").strip()
    marker = await create(client, _uri(repo, "calc.py"), TOTAL, "follow the move")
    git_move(repo, "calc.py", "pkg/calc.py")
    b = commit_all(repo, "move calc.py into pkg/")
    git(repo, "checkout", "-q", "--detach", b)
    other = "pkg/calc.py" if first == "calc.py" else "calc.py"
    _only_in(await _answers(client, repo, (first, other)), repo, "pkg/calc.py", marker["id"])

    git(repo, "checkout", "-q", "--detach", a)  # back to before the move: the code is in calc.py again
    _only_in(await _answers(client, repo, (other, first)), repo, "calc.py", marker["id"])

    git(repo, "checkout", "-q", "--detach", b)  # and forward again
    _only_in(await _answers(client, repo, (first, other)), repo, "pkg/calc.py", marker["id"])


async def test_the_workspace_list_follows_the_move_and_the_checkout_back_at_once(
    client: LanguageClient, repo: Path
) -> None:
    a = git(repo, "rev-parse", "HEAD").strip()
    marker = await create(client, _uri(repo, "calc.py"), TOTAL, "listed everywhere")
    git_move(repo, "calc.py", "pkg/calc.py")
    commit_all(repo, "move calc.py into pkg/")
    for commit, path in ((None, "pkg/calc.py"), (a, "calc.py"), ("main", "pkg/calc.py")):
        if commit is not None:
            git(repo, "checkout", "-q", commit)
        files = await _workspace(client, repo)
        assert list(files) == [_uri(repo, path)], commit
        (m,) = files[_uri(repo, path)]
        assert (m["id"], m["status"], m["range"]) == (marker["id"], "located", TOTAL)


async def test_an_open_buffer_listed_before_a_checkout_is_answered_at_the_new_head(
    client: LanguageClient, repo: Path
) -> None:
    """An editor keeps ``pkg/calc.py`` open across a checkout that removes it from disk: its cached markers
    were computed at the old HEAD, so the request reads HEAD before answering from that cache."""
    a = git(repo, "rev-parse", "HEAD").strip()
    marker = await create(client, _uri(repo, "calc.py"), TOTAL, "open across a checkout")
    git_move(repo, "calc.py", "pkg/calc.py")
    commit_all(repo, "move calc.py into pkg/")
    open_doc(client, _uri(repo, "pkg/calc.py"), SOURCE)
    for _ in range(3):  # the first list writes (the marker follows the rename), which drops the cache once
        _only_in(await _answers(client, repo, ("pkg/calc.py", "calc.py")), repo, "pkg/calc.py", marker["id"])
    git(repo, "checkout", "-q", "--detach", a)  # the buffer stays open, with the same text
    _only_in(await _answers(client, repo, ("pkg/calc.py", "calc.py")), repo, "calc.py", marker["id"])
    git(repo, "checkout", "-q", "main")
    _only_in(await _answers(client, repo, ("pkg/calc.py", "calc.py")), repo, "pkg/calc.py", marker["id"])


def test_neovim_lists_the_workspace_markers_at_the_new_path_at_once(tmp_path: Path, nvim: str) -> None:
    """Neovim (0.7 and 0.11 on Linux) does not watch ``.git/HEAD``: after ``git mv`` and a commit,
    :TetherMarkersAll lists the marker in the new file at once (it listed the old path, missing, until the new
    file had been open a while), and after a checkout back in the old one."""
    seen = nvim_session(
        tmp_path,
        nvim,
        "nvim_markers_moved.lua",
        {"calc.py": EDITOR_SOURCE},
        GIT_AUTHOR_NAME="Ada",
        GIT_AUTHOR_EMAIL="ada@example.org",
        GIT_COMMITTER_NAME="Ada",
        GIT_COMMITTER_EMAIL="ada@example.org",
    )
    assert (seen["ready"], seen["watchesHead"]) == (True, False)
    for step, where in (("before", "calc.py:4"), ("moved", "pkg/calc.py:4"), ("back", "calc.py:4")):
        listed_items = seen[step]
        assert isinstance(listed_items, list) and len(listed_items) == 1, (step, listed_items)
        item = str(listed_items[0])
        assert item.startswith(f"{where}: [comment] ") and item.endswith("total could be sum()"), (step, item)
        assert "missing" not in item, (step, item)
