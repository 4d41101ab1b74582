"""The markers' one service API (``MarkersState``) in-process, on a real SQLite file and a real git repository:
creating, listing, locating, updating and deleting a marker, the step that ends every write (``after_write``),
and the editor's and the agent's fronts going through the same functions (one ``didChange`` for an agent's
note, none for the editor's own marker)."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.helpers import git
from tests.mcpclient import McpClient
from tether_lsp.handlers.markers import lsp as markers_lsp
from tether_lsp.handlers.markers import sqlite_watch
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.handlers.markers.store import MarkerStore
from tether_lsp.handlers.markers.wire import CreateParams, ListParams
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.notes_backend import LiveNotes
from tether_lsp.mcp.server import build
from tether_lsp.server.app import TetherServer
from tether_lsp.server.document_sync import did_open
from tether_lsp.server.errors import RequestFailed
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.thread_host import ThreadHost

SOURCE = "def area(r):\n    return 3.14 * r * r\n\n\ndef total(xs):\n    return sum(xs)\n"
TOTAL = Location(5, 1, 6, 19)  # def total(xs): ... return sum(xs)


def clone(tmp_path: Path) -> Path:
    root = (tmp_path / "clone").resolve()
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Ada")
    (root / "calc.py").write_text(SOURCE)
    git(root, "add", "calc.py")
    git(root, "commit", "-q", "-m", "calc")
    return root


def placing(uri: str, loc: Location) -> MarkersState.Placing:
    span = (Pos(loc.line_start - 1, loc.col_start - 1), Pos(loc.line_end - 1, loc.col_end - 1))
    return MarkersState.Placing(uri, None, span, Encoding.UTF32, "textDocument.uri")


def drained(host: ThreadHost) -> None:
    """Until what workers handed to the loop before now has run (the loop runs its callbacks in order)."""
    done = threading.Event()
    host.call_on_loop(done.set)
    assert done.wait(10)


def test_a_marker_is_created_listed_located_updated_and_deleted(served: tuple[Path, MarkersState, ThreadHost]) -> None:
    root, state, host = served
    uri = (root / "calc.py").as_uri()
    head = git(root, "rev-parse", "HEAD").strip()

    created, text = state.create(placing(uri, TOTAL), "why not len?", "question")
    assert text == SOURCE
    record = created.record
    assert (record.note, record.kind, record.author, record.commit_hash_when_created) == (
        "why not len?",
        "question",
        "Ada",
        head,
    )
    assert (created.location, created.place, created.state) == (TOTAL, TOTAL, "fresh")
    assert state.files_with_markers(root.as_uri() + "/") == [uri]

    (listed,) = state.locate_now(uri, None).located
    assert (listed.record.id, listed.location, listed.state) == (record.id, TOTAL, "fresh")

    (root / "calc.py").write_text("import math\n\n" + SOURCE)  # two lines above: the same block, elsewhere
    (moved,) = state.locate_now(uri, None).located
    assert (moved.location, moved.place, moved.state) == (Location(7, 1, 8, 19), TOTAL, "moved")
    edited = "import math\n\n" + SOURCE.replace("sum(xs)", "sum(xs, 0)")
    (changed,) = state.locate_now(uri, edited).located  # an open buffer's text is located, not the file's
    assert (changed.location, changed.state) == (Location(7, 1, 8, 22), "changed")

    before, after = state.update(record.id, "use math.fsum", "issue", None)
    assert (before.note, after.note, after.kind, after.uri) == ("why not len?", "use math.fsum", "issue", uri)
    assert state.get(record.id).note == "use math.fsum"

    gone = state.delete(record.id)
    assert gone.id == record.id
    assert state.locate_now(uri, None).located == []
    with pytest.raises(RequestFailed):
        state.delete(record.id)
    drained(host)


def test_a_marker_on_new_code_is_stored_where_it_was_put(served: tuple[Path, MarkersState, ThreadHost]) -> None:
    root, state, _host = served
    (root / "new.py").write_text("x = 1\ny = 2\n")  # not committed: its snapshot is the reference
    uri = (root / "new.py").as_uri()
    created, _ = state.create(placing(uri, Location(2, 1, 2, 6)), "y?", "comment", "claude")
    assert (created.record.commit_hash_when_created, created.record.author) == (None, "claude")
    (root / "new.py").write_text("# head\nx = 1\ny = 2\n")
    (listed,) = state.locate_now(uri, None).located
    assert (listed.location, listed.place, listed.state) == (Location(3, 1, 3, 6), Location(2, 1, 2, 6), "moved")


def test_every_write_ends_in_one_after_write_step(served: tuple[Path, MarkersState, ThreadHost]) -> None:
    """Each write drops the file's cache and says it was this server's (``on_written``: the SQLite watch then
    sends no didChange for it); the client hears of it (``on_change``) only when it did not make it."""
    root, state, host = served
    uri = (root / "calc.py").as_uri()
    written: list[list[str]] = []
    told: list[list[str]] = []
    state.on_written = written.append
    state.on_change = told.append

    def cache_something() -> None:
        state.remember(uri, 1, None, [], None)

    host.call_on_loop(cache_something)
    created, _ = state.create(placing(uri, TOTAL), "an editor's", "comment")  # the editor's own: not told
    drained(host)
    assert (written, told, uri in state.buffer) == ([[uri]], [], False)

    host.call_on_loop(cache_something)
    state.update(created.record.id, "an agent's", None, None, tell=True)
    drained(host)
    assert (written[1:], told, uri in state.buffer) == ([[uri]], [[uri]], False)

    state.delete(created.record.id, tell=True)
    drained(host)
    assert (written[2:], told[1:]) == ([[uri]], [[uri]])


@asynccontextmanager
async def language_server(root: Path) -> AsyncIterator[tuple[TetherServer, markers_lsp.Markers, list[Any]]]:
    """A language server in this process with the markers feature, on ``root``; what it would send the client
    as ``tether/markers/didChange`` is collected instead."""
    server = TetherServer("tether-lsp", "test")
    markers: markers_lsp.Markers = server.router.install(markers_lsp.FEATURE)
    server.workspace_root = root
    server.workers.bind_loop(asyncio.get_running_loop())
    await server.run_blocking(markers.state.first_look, root)  # as on initialized: the clone's HEAD is synced
    sent: list[Any] = []
    server.protocol.notify = lambda method, params=None: sent.append((method, params))  # type: ignore[method-assign]
    try:
        yield server, markers, sent
    finally:
        markers.watch.stop()
        await asyncio.to_thread(markers.watch.close)
        await asyncio.to_thread(markers.state.close)
        await asyncio.to_thread(server.workers.close)
        await asyncio.to_thread(server.databases.close)


def did_change_uris(sent: list[Any]) -> list[list[str]]:
    return [params.uris for method, params in sent if method == "tether/markers/didChange"]


async def test_an_agents_note_is_one_did_change_on_a_shared_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An open, listed document: the editor's own marker sends nothing, an agent's note (the MCP endpoint inside
    the server) sends ``didChange`` once, and the SQLite watch's next check finds no other process's change."""
    monkeypatch.setattr(sqlite_watch, "REQUEST_WAIT_S", 60.0)  # each check ends before the request goes on
    root = clone(tmp_path)
    uri = (root / "calc.py").as_uri()
    async with language_server(root) as (server, markers, sent):
        did_open(server, types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, SOURCE)))
        assert (await markers_lsp.list_markers(markers, ListParams(types.TextDocumentIdentifier(uri)))).markers == []

        whole = types.Range(types.Position(4, 0), types.Position(5, 18))
        params = CreateParams(types.TextDocumentIdentifier(uri), whole, "an editor's")
        await markers_lsp.create(markers, params)
        await markers.watch.before_answer(uri, True)
        assert did_change_uris(sent) == []

        context = Context([root])
        context.notes = LiveNotes(markers.state, lambda: "claude")
        target = {"start": {"line": 1, "column": 1}, "end": {"line": 2, "column": 24}}
        with McpClient(build(context)) as client:
            await asyncio.to_thread(client.ok, "note_add", {"path": "calc.py", "target": target, "text": "an agent's"})
        await markers.watch.before_answer(uri, True)  # the watch sees the file changed, by this server
        assert did_change_uris(sent) == [[uri]]
        listed = await markers_lsp.list_markers(markers, ListParams(types.TextDocumentIdentifier(uri)))
        assert sorted(m.author for m in listed.markers) == ["Ada", "claude"]


async def test_an_editors_marker_and_an_agents_note_are_made_by_one_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tether/markers/create`` and ``note_add`` both make their marker in ``MarkersState.create`` (what calls
    ``service.create``, which stores it), and show the same located marker, each in its own units."""
    makers: list[str] = []
    insert = MarkerStore.insert

    def spy(self: MarkerStore, *args: Any, **kwargs: Any) -> None:
        makers.append(sys._getframe(2).f_code.co_qualname)  # insert <- service.create <- the maker
        insert(self, *args, **kwargs)

    monkeypatch.setattr(MarkerStore, "insert", spy)
    root = clone(tmp_path)
    uri = (root / "calc.py").as_uri()
    async with language_server(root) as (_server, markers, _sent):
        whole = types.Range(types.Position(4, 0), types.Position(5, 18))
        marker = await markers_lsp.create(markers, CreateParams(types.TextDocumentIdentifier(uri), whole, "same"))
        context = Context([root])
        context.notes = LiveNotes(markers.state, lambda: "claude")
        target = {"start": {"line": 5, "column": 1}, "end": {"line": 6, "column": 19}}
        with McpClient(build(context)) as client:
            note = await asyncio.to_thread(client.ok, "note_add", {"path": "calc.py", "target": target, "text": "same"})
            notes = await asyncio.to_thread(client.ok, "notes", {"path": "calc.py"})
    assert makers == ["MarkersState.create", "MarkersState.create"]
    assert marker.range == whole and note["range"] == target
    assert (marker.kind, marker.note, marker.status) == (note["kind"], note["text"], "located")
    assert (marker.commit_hash_when_created, note["state"]) == (git(root, "rev-parse", "HEAD").strip(), "fresh")
    mine = next(n for n in notes["notes"] if n["id"] == marker.id)  # the editor's marker, as an agent reads it
    assert (mine["range"], mine["state"], mine["author"], mine["created_at"]) == (
        target,
        "fresh",
        "Ada",
        marker.created_at,
    )
