"""The SQLite watch in-process, on a real SQLite file shared with "another process" (a second engine on the same
file) and a real git clone: this process's own writing commits are counted and reading ones are not, another
process's change to a listed open document's markers is found (before a request, and by the periodic check) and
the client told once, and this server's own write, once the watch was told of it, is not reported."""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.helpers import commit_all, git
from tether_lsp.handlers.markers import sqlite_watch
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.places import Places
from tether_lsp.handlers.markers.settings import MarkersSettings
from tether_lsp.handlers.markers.sqlite_watch import OwnWrites, SqliteWatch, fingerprint
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.server.settings import SettingsSchema
from tether_lsp.server.storage import Database
from tether_lsp.server.thread_host import ThreadHost

CODE = "def f():\n    return 1\n"


def record(uri: str, marker_id: str, note: str = "note") -> MarkerRecord:
    return MarkerRecord(
        marker_id, uri, note, "comment", CODE, None, datetime.now(UTC), "Ada", CODE, Location(1, 1, 2, 13)
    )


def test_own_writes_are_the_commits_that_wrote_on_any_thread(tmp_path: Path) -> None:
    db = Database.sqlite(tmp_path / "w.db")
    db.migrate({"markers": MIGRATIONS})
    other = Database.sqlite(tmp_path / "w.db")  # another process's connection to the file
    try:
        MarkerStore(db).insert(record("file:///w/a.py", "before"))  # this connection wrote before the watch began
        own = OwnWrites()
        listeners = (list(db.engine.dispatch.begin), list(db.engine.dispatch.commit))
        own.watch(db)
        own.watch(db)  # watching twice listens once
        # The engine's listener lists stay as they were made: SQLAlchemy changes them in place, and a listener added
        # while another thread began a transaction broke it ("deque mutated during iteration", at start-up).
        assert (list(db.engine.dispatch.begin), list(db.engine.dispatch.commit)) == listeners
        assert MarkerStore(db).get("before") is not None  # its first transaction since: a read
        assert own.count == 0
        MarkerStore(db).insert(record("file:///w/a.py", "one"))
        assert own.count == 1
        worker = threading.Thread(target=MarkerStore(db).insert, args=(record("file:///w/b.py", "two"),))
        worker.start()
        worker.join()
        assert own.count == 2
        with db.transaction(write_lock=True) as conn:  # a writing statement that changes no row
            conn.execute(text("DELETE FROM tether_markers WHERE id = 'nobody'"))
        MarkerStore(other).insert(record("file:///w/c.py", "theirs"))
        assert own.count == 2
    finally:
        other.close()
        db.close()


def test_a_fingerprint_changes_with_what_a_client_is_shown() -> None:
    first, second = record("file:///w/a.py", "1"), record("file:///w/a.py", "2")
    assert fingerprint([first, second]) == fingerprint([first, replace(second)])
    assert fingerprint([first, second]) != fingerprint([first, replace(second, note="changed")])
    assert fingerprint([first, second]) != fingerprint([first, replace(second, base=Location(1, 1, 1, 9))])
    assert fingerprint([first, second]) != fingerprint([first])


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    root = (tmp_path / "clone").resolve()
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.py").write_text(CODE)
    commit_all(root, "a")
    return root


def served(root: Path, poll_seconds: float) -> tuple[ThreadHost, MarkersState]:
    schema = SettingsSchema()
    schema.register("markers", MarkersSettings)
    settings, problems = schema.parse({"markers": {"sqlitePollSeconds": poll_seconds}})
    assert problems == []
    host = ThreadHost(settings, root, {"markers": lambda: MIGRATIONS})
    return host, MarkersState(host)


@pytest.fixture(autouse=True)
def checks_end_before_requests_go_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_watch, "REQUEST_WAIT_S", 60.0)


def another_process(host: ThreadHost) -> MarkerStore:
    """A second engine on the server's SQLite file, writing as another server in another clone would."""
    path = host.database().engine.url.database
    assert path is not None
    return MarkerStore(Database.sqlite(Path(path)), places=Places(Git()))


async def test_another_processs_change_is_found_before_a_request_and_told_once(
    clone: Path, caplog: pytest.LogCaptureFixture
) -> None:
    host, state = served(clone, 0)
    told: list[list[str]] = []
    watch = SqliteWatch(host, state, told.append)
    uri, closed = (clone / "a.py").as_uri(), (clone / "b.py").as_uri()
    theirs = await asyncio.to_thread(another_process, host)
    try:
        await watch.before_answer(uri, True)
        await watch.before_answer(closed, False)  # not open: not watched
        state.remember(uri, 1, None, [], None)
        await asyncio.to_thread(theirs.insert, record(uri, "theirs"))
        await asyncio.to_thread(theirs.insert, record(closed, "theirs-too"))
        with caplog.at_level(logging.INFO, logger=sqlite_watch.__name__):
            await watch.before_answer(uri, True)
        assert told == [[uri]]
        assert uri not in state.buffer  # its cache went with the change
        assert "markers: another process changed the markers of 1 open document(s)" in caplog.messages

        await watch.before_answer(uri, True)  # nothing new: not told again
        assert told == [[uri]]

        mine = state.markers()
        await asyncio.to_thread(mine.insert, record(uri, "mine"))
        watch.written(uri)  # as every write of this server ends: the watch knows it is ours
        await watch.before_answer(uri, True)
        assert told == [[uri]]

        await asyncio.to_thread(mine.insert, record(uri, "mine-untold"))  # ours, the watch not told (a worker's)
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger=sqlite_watch.__name__):
            await watch.before_answer(uri, True)
        assert told == [[uri], [uri]]  # one didChange more does no harm
        assert "markers: the markers of 1 open document(s) changed while this server wrote" in caplog.messages

        watch.closed(uri)
        await asyncio.to_thread(theirs.insert, record(uri, "after-close"))
        await watch.before_answer(closed, False)
        assert told == [[uri], [uri]]  # closed: no longer watched
    finally:
        watch.stop()
        await asyncio.to_thread(watch.close)
        theirs.db.close()
        await asyncio.to_thread(state.close)
        host.close()


async def test_the_periodic_check_finds_another_processs_change_with_no_request(clone: Path) -> None:
    host, state = served(clone, 0.05)
    changed = asyncio.Event()
    told: list[list[str]] = []

    def tell(uris: list[str]) -> None:
        told.append(uris)
        changed.set()

    watch = SqliteWatch(host, state, tell)
    uri = (clone / "a.py").as_uri()
    theirs = await asyncio.to_thread(another_process, host)
    try:
        await watch.before_answer(uri, True)
        watch.start()
        await asyncio.to_thread(theirs.insert, record(uri, "theirs"))
        await asyncio.wait_for(changed.wait(), 20)
        assert told == [[uri]]
    finally:
        watch.stop()
        await asyncio.to_thread(watch.close)
        theirs.db.close()
        await asyncio.to_thread(state.close)
        host.close()
