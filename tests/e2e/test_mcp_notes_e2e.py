"""Notes over stdio (``tether-lsp mcp`` as agents run it) on a git clone: notes are the markers store. A note
follows the code through the front's own edits and through another process's writes (moved, changed, missing
with the reason); a folder's notes; refusals name the argument; and a language server on the same clone (its
database found in ``.git/tether`` by each server itself) lists an agent's note as a marker, while a marker made
over LSP is one of the agent's notes."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from mcp import StdioServerParameters

from tests.helpers import capabilities, git, raw_request, server_config, server_env
from tests.mcpclient import McpClient

COMMAND = Path(sys.executable).parent / "tether-lsp"
SOURCE = """import os


def total(items):
    s = 0
    for i in items:
        s += i
    return s


def mean(items):
    return total(items) / len(items)
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("clone")
    git(folder, "init", "-q", "-b", "main")
    (folder / "README.md").write_text("notes\n")
    git(folder, "add", "README.md")
    git(folder, "commit", "-q", "-m", "start")
    return folder


@pytest.fixture(scope="module")
def agent(repo: Path) -> Iterator[McpClient]:
    params = StdioServerParameters(command=str(COMMAND), args=["mcp", "--root", str(repo)], env=server_env())
    with McpClient(params) as client:
        yield client


def elsewhere(code: str) -> None:
    """Run Python in another process (an editor, a shell: not the server, not this test's process)."""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def node(agent: McpClient, path: str, name: str) -> tuple[int, dict[str, Any], str]:
    """The node id, range and the file's version of the top-level item ``name``."""
    outline = agent.ok("outline", {"path": path})
    item = next(i for i in outline["items"] if i["name"] == name)
    return item["node_id"], item["range"], outline["version"]


def listed(agent: McpClient, **arguments: str) -> list[dict[str, Any]]:
    notes: list[dict[str, Any]] = agent.ok("notes", arguments)["notes"]
    return notes


def at(line: int, column: int, end_line: int, end_column: int) -> dict[str, Any]:
    return {"start": {"line": line, "column": column}, "end": {"line": end_line, "column": end_column}}


def test_add_list_update_delete(agent: McpClient, repo: Path) -> None:
    (repo / "calc.py").write_text(SOURCE)  # not committed: the note keeps the text it was put on
    total, where, _version = node(agent, "calc.py", "total")
    note = agent.ok("note_add", {"path": "calc.py", "target": total, "text": "use sum()", "kind": "question"})
    assert where == at(4, 1, 8, 13)
    assert {k: note[k] for k in ("path", "kind", "text", "author", "state", "range")} == {
        "path": "calc.py",
        "kind": "question",
        "text": "use sum()",
        "author": "agent",
        "state": "fresh",
        "range": where,
    }
    assert note["created_at"].endswith("Z") and "missing_reason" not in note
    assert listed(agent, path="calc.py") == [note]
    assert agent.text("notes", {"path": "calc.py"}).splitlines()[1].startswith("calc.py 4:1-8:13 [question, fresh] ")

    line = agent.ok("note_add", {"path": "calc.py", "target": at(1, 1, 1, 10), "text": "unused?"})
    assert (line["kind"], line["range"]) == ("comment", at(1, 1, 1, 10))
    assert [n["id"] for n in listed(agent, path="calc.py")] == [line["id"], note["id"]]  # in document order

    updated = agent.ok("note_update", {"id": note["id"], "text": "sum(items)"})
    assert (updated["text"], updated["kind"], updated["created_at"]) == ("sum(items)", "question", note["created_at"])
    updated = agent.ok("note_update", {"id": note["id"], "kind": "issue"})
    assert (updated["text"], updated["kind"]) == ("sum(items)", "issue")

    assert agent.ok("note_delete", {"id": note["id"]}) == {"deleted": True}
    assert [n["id"] for n in listed(agent, path="calc.py")] == [line["id"]]
    assert agent.refused("note_delete", {"id": note["id"]}).startswith(f"id: no note with id '{note['id']}'")
    agent.ok("note_delete", {"id": line["id"]})
    assert listed(agent, path="calc.py") == []


def test_a_note_follows_the_fronts_edits_and_other_processes_writes(agent: McpClient, repo: Path) -> None:
    (repo / "follow.py").write_text(SOURCE)
    git(repo, "add", "follow.py")
    git(repo, "commit", "-q", "-m", "follow.py")  # in git: the note is stored at the commit
    mean, where, version = node(agent, "follow.py", "mean")
    note = agent.ok("note_add", {"path": "follow.py", "target": mean, "text": "empty list?"})
    assert (note["state"], note["range"]) == ("fresh", where)

    header = {"range": at(1, 1, 1, 1), "new_text": '"""Sums."""\n\n'}
    assert agent.ok("edit", {"path": "follow.py", "base_version": version, "edits": [header]})["written"]
    (moved,) = listed(agent, path="follow.py")
    assert (moved["state"], moved["range"]) == ("moved", at(13, 1, 14, 37))

    elsewhere(
        f"import pathlib; p = pathlib.Path({str(repo / 'follow.py')!r}); "
        "p.write_text('# top\\n' + p.read_text().replace('/ len(items)', '/ max(len(items), 1)'))"
    )
    (changed,) = listed(agent, path="follow.py")
    assert (changed["state"], changed["range"]) == ("changed", at(14, 1, 15, 45))

    elsewhere(
        f"import pathlib; p = pathlib.Path({str(repo / 'follow.py')!r}); p.write_text(p.read_text().split('def mean')[0])"
    )
    (missing,) = listed(agent, path="follow.py")
    assert (missing["state"], missing["missing_reason"]) == ("missing", "codeBlockDeleted") and "range" not in missing

    (repo / "follow.py").unlink()
    (gone,) = listed(agent, path="follow.py")
    assert (gone["id"], gone["state"], gone["missing_reason"]) == (note["id"], "missing", "fileDeleted")
    agent.ok("note_delete", {"id": note["id"]})


def test_a_target_in_an_older_version_is_carried_or_refused(agent: McpClient, repo: Path) -> None:
    (repo / "old.py").write_text(SOURCE)
    total, _where, base = node(agent, "old.py", "total")
    agent.ok("edit", {"path": "old.py", "base_version": base, "edits": [{"range": at(1, 1, 1, 1), "new_text": "#\n"}]})
    by_node = agent.ok("note_add", {"path": "old.py", "target": total, "text": "n", "base_version": base})
    by_range = agent.ok("note_add", {"path": "old.py", "target": at(11, 1, 11, 16), "text": "r", "base_version": base})
    assert (by_node["range"], by_range["range"]) == (at(5, 1, 9, 13), at(12, 1, 12, 16))
    assert by_node["state"] == by_range["state"] == "fresh"
    unknown = agent.refused("note_add", {"path": "old.py", "target": total, "text": "n", "base_version": "0" * 12})
    assert unknown.startswith("base_version: 000000000000 is not a version of old.py")
    gone_version = agent.ok("outline", {"path": "old.py"})["version"]
    first_line = {"range": at(1, 1, 2, 1), "new_text": ""}
    agent.ok("edit", {"path": "old.py", "base_version": gone_version, "edits": [first_line]})
    refused = agent.refused(
        "note_add", {"path": "old.py", "target": at(1, 1, 1, 2), "text": "x", "base_version": gone_version}
    )
    assert refused.startswith(f"target: the text it names in version {gone_version} of old.py was replaced or deleted")
    for note in (by_node, by_range):
        agent.ok("note_delete", {"id": note["id"]})


def test_under_lists_a_folders_notes(agent: McpClient, repo: Path) -> None:
    for name in ("pkg/a.py", "pkg/sub/b.py", "other/c.py"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("x = 1\n")
        agent.ok("note_add", {"path": name, "target": at(1, 1, 1, 6), "text": name})
    assert [n["path"] for n in listed(agent, under="pkg")] == ["pkg/a.py", "pkg/sub/b.py"]
    assert [n["path"] for n in listed(agent, under=str(repo / "pkg" / "sub"))] == ["pkg/sub/b.py"]
    everything = {n["path"]: n for n in listed(agent)}
    assert {"pkg/a.py", "pkg/sub/b.py", "other/c.py"} <= set(everything)
    assert listed(agent, under=".") == listed(agent)
    assert agent.refused("notes", {"under": "nowhere"}).startswith("under: 'nowhere': no such folder")
    assert "outside the roots" in agent.refused("notes", {"under": ".."})
    for note in everything.values():
        agent.ok("note_delete", {"id": note["id"]})


def test_bad_arguments_name_the_field(agent: McpClient, repo: Path) -> None:
    (repo / "bad.py").write_text(SOURCE)
    total, _where, _version = node(agent, "bad.py", "total")
    refusals: dict[str, tuple[str, dict[str, Any]]] = {
        "text: missing": ("note_add", {"path": "bad.py", "target": total}),
        "target: missing": ("note_add", {"path": "bad.py", "text": "t"}),
        "target: expected a node id or a range, got a string": (
            "note_add",
            {"path": "bad.py", "target": "total", "text": "t"},
        ),
        "target: node 99999 is not a node of bad.py": ("note_add", {"path": "bad.py", "target": 99999, "text": "t"}),
        "target.end.line: line 99 is past the end": (
            "note_add",
            {"path": "bad.py", "target": at(1, 1, 99, 1), "text": "t"},
        ),
        "kind: expected one of comment, question, issue, bookmark": (
            "note_add",
            {"path": "bad.py", "target": total, "text": "t", "kind": "todo"},
        ),
        "path: missing.py: no such file": ("note_add", {"path": "missing.py", "target": 1, "text": "t"}),
        "path: '../x.py' resolves to": ("notes", {"path": "../x.py"}),
        "under: give path (one file) or under (a folder), not both": ("notes", {"path": "bad.py", "under": "."}),
        "pth: unknown argument": ("notes", {"pth": "bad.py"}),
        "id: no note with id 'nope'": ("note_update", {"id": "nope", "text": "t"}),
        "id: expected a string, got a number": ("note_update", {"id": 5, "text": "t"}),
        "id: empty": ("note_delete", {"id": ""}),
        "text: nothing to change": ("note_update", {"id": "nope"}),
    }
    for start, (tool, arguments) in refusals.items():
        message = agent.refused(tool, arguments)
        assert message.startswith(start) or start in message, (start, message)
    assert listed(agent, path="bad.py") == []


async def test_an_agents_note_is_an_editors_marker_and_an_editors_marker_a_note(agent: McpClient, repo: Path) -> None:
    (repo / "shared.py").write_text(SOURCE)
    uri = (repo / "shared.py").as_uri()
    mean, _where, _version = await asyncio.to_thread(node, agent, "shared.py", "mean")
    mine = await asyncio.to_thread(agent.ok, "note_add", {"path": "shared.py", "target": mean, "text": "by the agent"})
    lsp: Any = await server_config().start()
    try:
        await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri()))
        (marker,) = (await raw_request(lsp, "tether/markers/list", {"textDocument": {"uri": uri}}))["markers"]
        assert (marker["id"], marker["note"], marker["author"], marker["status"]) == (
            mine["id"],
            "by the agent",
            "agent",
            "located",
        )
        assert marker["range"] == {"start": {"line": 10, "character": 0}, "end": {"line": 11, "character": 36}}
        theirs = await raw_request(
            lsp,
            "tether/markers/create",
            {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 9}},
                "note": "by a person",
                "kind": "issue",
            },
        )
        notes = await asyncio.to_thread(listed, agent, path="shared.py")
        assert [(n["id"], n["text"], n["kind"], n["range"]) for n in notes] == [
            (theirs["id"], "by a person", "issue", at(1, 1, 1, 10)),
            (mine["id"], "by the agent", "comment", at(11, 1, 12, 37)),
        ]
        assert notes[0]["author"] == theirs["author"] and notes[0]["state"] == "fresh"
        await asyncio.to_thread(agent.ok, "note_update", {"id": theirs["id"], "text": "answered"})
        await raw_request(lsp, "tether/markers/delete", {"id": mine["id"]})
        listed_now = (await raw_request(lsp, "tether/markers/list", {"textDocument": {"uri": uri}}))["markers"]
        assert [(m["id"], m["note"]) for m in listed_now] == [(theirs["id"], "answered")]
        assert [n["id"] for n in await asyncio.to_thread(listed, agent, path="shared.py")] == [theirs["id"]]
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
