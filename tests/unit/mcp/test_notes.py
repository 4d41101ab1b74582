"""The notes backends in-process: the standalone one opens nothing until the first notes call, and a live markers
state (a language server's, as attached mode gives it with ``LiveNotes``) hears of every note the tools change,
on its loop, with the file's uri: the editor is told at once."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import git
from tests.mcpclient import McpClient
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.mcp.context import COMPONENTS, Context
from tether_lsp.mcp.notes_backend import LiveNotes, StandaloneNotes
from tether_lsp.mcp.server import build
from tether_lsp.mcp.settings import schema
from tether_lsp.server.datadir import data_folder
from tether_lsp.server.thread_host import ThreadHost

SOURCE = "def f():\n    return 1\n"


def test_serving_opens_no_database_until_a_notes_call(tmp_path: Path) -> None:
    probe = (
        "import sys, pathlib; from tether_lsp.mcp.context import Context; from tether_lsp.mcp.server import build; "
        f"build(Context([pathlib.Path({str(tmp_path)!r})])); print('sqlalchemy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Path, MarkersState, ThreadHost]]:
    root = tmp_path / "clone"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "f.py").write_text(SOURCE)
    settings = schema().parse()[0]
    host = ThreadHost(settings, root, COMPONENTS)  # stands in for the language server (its loop, its database)
    state = MarkersState(host)
    yield root, state, host
    state.close()
    host.close()


def test_a_live_state_hears_of_each_change_on_its_loop(live: tuple[Path, MarkersState, ThreadHost]) -> None:
    root, state, host = live
    heard: list[tuple[list[str], bool]] = []
    told = threading.Event()

    def on_change(uris: list[str]) -> None:
        heard.append((uris, threading.current_thread().name == "thread-host-loop"))
        told.set()

    state.on_change = on_change
    context = Context([root])
    context.notes = LiveNotes(state, lambda: "claude", host.call_on_loop)
    uri = (root / "f.py").resolve().as_uri()
    target = {"start": {"line": 1, "column": 1}, "end": {"line": 2, "column": 13}}
    with McpClient(build(context)) as client:
        note = client.ok("note_add", {"path": "f.py", "target": target, "text": "why 1?"})
        assert (note["author"], note["state"]) == ("claude", "fresh")
        assert told.wait(10) and heard == [([uri], True)]
        told.clear()
        client.ok("note_update", {"id": note["id"], "kind": "issue"})
        assert told.wait(10) and heard[-1] == ([uri], True)
        told.clear()
        client.ok("note_delete", {"id": note["id"]})
        assert told.wait(10) and heard[-1] == ([uri], True)
        # the state is the one the tools used: nothing is left in its database
        assert state.markers().for_uri(uri) == []


def test_roots_sharing_a_database_share_a_state(tmp_path: Path) -> None:
    one, two, other = tmp_path / "clone" / "a", tmp_path / "clone" / "b", tmp_path / "other"
    for folder in (one, two, other):
        folder.mkdir(parents=True)
    git(tmp_path / "clone", "init", "-q")
    git(other, "init", "-q")
    context = Context([one, two, other])
    notes = context.notes
    assert isinstance(notes, StandaloneNotes)
    try:
        assert notes.state_of(one) is notes.state_of(two / "x.py") is not notes.state_of(other)
        assert len(notes.states()) == 2
        # each state runs on its database's one host, the context's (the playground's tables are in it too)
        assert notes.state_of(one).server is context.hosts.of(two) is not context.hosts.of(other)
        notes.state_of(one).markers()  # opens the database: both features' tables are made in it
        made = sqlite3.connect(data_folder(one) / "tether.db").execute("SELECT name FROM sqlite_master").fetchall()
        assert {"tether_markers", "tether_playground_files"} <= {name for (name,) in made}
    finally:
        context.close()


def test_a_note_on_a_file_outside_the_roots_is_neither_listed_nor_changed(tmp_path: Path) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for folder in (mine, theirs):
        folder.mkdir()
        (folder / "f.py").write_text(SOURCE)
    shared = {"database": {"url": f"sqlite:///{tmp_path / 'shared.db'}"}}  # one database, as a team's is
    target = {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 9}}
    outside = Context([theirs], schema().parse(shared)[0])
    inside = Context([mine], schema().parse(shared)[0])
    try:
        with McpClient(build(outside)) as client:
            note = client.ok("note_add", {"path": "f.py", "target": target, "text": "theirs"})
        with McpClient(build(inside)) as client:
            assert client.ok("notes", {})["notes"] == []
            for tool, arguments in (
                ("note_update", {"id": note["id"], "text": "mine"}),
                ("note_delete", {"id": note["id"]}),
            ):
                refused = client.refused(tool, arguments)
                assert refused.startswith(f"id: note {note['id']} is on {theirs.resolve() / 'f.py'}, outside the roots")
    finally:
        outside.close()
        inside.close()
    assert sqlite3.connect(tmp_path / "shared.db").execute("SELECT note FROM tether_markers").fetchall() == [
        ("theirs",)
    ]
