"""Team mode's channel in-process: the payloads that announce changed files (under PostgreSQL's size limit,
keys carried, an earlier version's read), and two servers' channels on a real PostgreSQL database — what one
announces in a committed transaction reaches the other with its keys, a rolled-back one never does, a server
ignores its own and malformed notifications, and the user is told when the database goes away and is back."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import psycopg
import pytest

from tether_lsp.handlers.markers import team
from tether_lsp.handlers.markers.keys import Touched
from tether_lsp.handlers.markers.places import FileKey
from tether_lsp.handlers.markers.settings import MarkersSettings
from tether_lsp.handlers.markers.team import AWAY, BACK, CHANNEL, MAX_PAYLOAD, TeamChannel, payload_files, payloads
from tether_lsp.server.settings import SettingsSchema
from tether_lsp.server.thread_host import ThreadHost

REPO = "a" * 40
WAIT_S = 20

Delivered = tuple[list[str], list[FileKey | None]]


def test_many_files_go_in_as_few_payloads_as_fit_each_under_the_limit() -> None:
    touched: list[Touched] = [(f"file:///w/{'d' * 80}/f{k}.py", FileKey(REPO, f"f{k}.py")) for k in range(200)]
    touched.append(("file:///w/notes.txt", None))
    sent = payloads("me", touched)
    assert len(sent) > 1
    assert all(len(p.encode()) <= MAX_PAYLOAD for p in sent)
    assert all(len(p.encode()) > MAX_PAYLOAD - 300 for p in sent[:-1])  # each one filled before the next
    uris: list[str] = []
    keys: list[FileKey | None] = []
    for p in sent:
        data = json.loads(p)
        assert data["origin"] == "me"
        got = payload_files(data)
        uris += got[0]
        keys += got[1]
    assert list(zip(uris, keys, strict=True)) == touched


def test_a_file_too_long_to_send_goes_by_its_key_or_not_at_all() -> None:
    long_uri = "file:///w/" + "x" * MAX_PAYLOAD + ".py"
    keyed = (long_uri, FileKey(REPO, "deep.py"))
    sent = payloads("me", [("file:///w/a.py", None), keyed, (long_uri + "2", None)])
    assert [payload_files(json.loads(p)) for p in sent] == [
        (["file:///w/a.py"], [None]),
        ([""], [FileKey(REPO, "deep.py")]),  # its receivers place it by its key
    ]


def test_an_earlier_versions_payload_is_read_by_its_uris_and_odd_entries_are_dropped() -> None:
    assert payload_files({"origin": "x", "uris": ["file:///a.py"]}) == (["file:///a.py"], [None])
    odd = {"uris": ["file:///a.py", 7, "file:///b.py"], "files": [[REPO, "a.py"], None, [REPO, 3]]}
    assert payload_files(odd) == (["file:///a.py", "file:///b.py"], [FileKey(REPO, "a.py"), None])


class _Said(logging.Handler):
    """Sets an event each time the team channel logs a message containing ``words``."""

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words
        self.count = 0
        self.changed = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        if self.words in record.getMessage():
            with self.changed:
                self.count += 1
                self.changed.notify_all()

    def wait_for(self, count: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.count >= count, WAIT_S)


@pytest.fixture
def listening() -> Iterator[_Said]:
    said = _Said("listening for other servers' changes")
    logger = logging.getLogger(team.__name__)
    logger.addHandler(said)
    level = logger.level
    logger.setLevel(logging.INFO)
    yield said
    logger.removeHandler(said)
    logger.setLevel(level)


@pytest.fixture
def host(postgres_url: str, tmp_path: Path) -> Iterator[ThreadHost]:
    schema = SettingsSchema()
    schema.register("markers", MarkersSettings)
    settings, problems = schema.parse({"database": {"url": postgres_url}})
    assert problems == []
    served = ThreadHost(settings, tmp_path, {})
    yield served
    served.close()


class Server:
    """One server's channel, what reached it (on the loop), and what the user was told."""

    def __init__(self, host: ThreadHost) -> None:
        self.delivered: asyncio.Queue[Delivered] = asyncio.Queue()
        self.told: asyncio.Queue[tuple[str, bool]] = asyncio.Queue()
        self.channel = TeamChannel(host, lambda uris, keys: self.delivered.put_nowait((uris, keys)))
        self.channel.tell = lambda message, trouble: self.told.put_nowait((message, trouble))
        self.host = host

    async def next(self) -> Delivered:
        return await asyncio.wait_for(self.delivered.get(), WAIT_S)

    def announce(self, touched: list[Touched], *, commit: bool = True) -> None:
        """Worker: a writing transaction that changed these files (rolled back unless ``commit``)."""
        try:
            with self.host.database().transaction(write_lock=True) as conn:
                self.channel.announce(conn, touched)
                if not commit:
                    raise _RolledBack
        except _RolledBack:
            pass


class _RolledBack(Exception):
    pass


@asynccontextmanager
async def two_servers(host: ThreadHost, listening: _Said) -> AsyncIterator[tuple[Server, Server]]:
    mine, theirs = Server(host), Server(host)
    try:
        await mine.channel.start()
        await theirs.channel.start()
        await asyncio.to_thread(listening.wait_for, 2)  # both LISTEN before anything is announced
        yield mine, theirs
    finally:
        await asyncio.to_thread(mine.channel.stop)
        await asyncio.to_thread(theirs.channel.stop)


async def test_a_committed_change_reaches_the_other_server_with_its_keys(host: ThreadHost, listening: _Said) -> None:
    async with two_servers(host, listening) as (mine, theirs):
        await asyncio.to_thread(theirs.announce, [("file:///alice/never.py", None)], commit=False)
        files: list[Touched] = [("file:///alice/p/a.py", FileKey(REPO, "p/a.py")), ("file:///alice/n.txt", None)]
        await asyncio.to_thread(theirs.announce, files)
        # the rolled-back change never came: the first one to arrive is the committed one
        assert await mine.next() == (["file:///alice/p/a.py", "file:///alice/n.txt"], [FileKey(REPO, "p/a.py"), None])

        await asyncio.to_thread(mine.announce, [("file:///bob/mine.py", None)])
        await asyncio.to_thread(theirs.announce, [("file:///alice/after.py", None)])
        # a server's own notification is not delivered to it: the next one it gets is the other server's
        assert await mine.next() == (["file:///alice/after.py"], [None])
        assert await theirs.next() == (["file:///bob/mine.py"], [None])


async def test_malformed_and_earlier_versions_notifications(
    host: ThreadHost, listening: _Said, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    dsn = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    mine = Server(host)

    def send(*payload: str) -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for p in payload:
                conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, p))

    try:
        await mine.channel.start()
        await asyncio.to_thread(listening.wait_for, 1)
        earlier = json.dumps({"origin": "an older server", "uris": ["file:///old/a.py"]})
        with caplog.at_level(logging.WARNING, logger=team.__name__):
            await asyncio.to_thread(send, "not json", '{"uris": 3}', earlier)
            assert await mine.next() == (["file:///old/a.py"], [None])  # the two before it were read first
    finally:
        await asyncio.to_thread(mine.channel.stop)
    assert [r.getMessage() for r in caplog.records if "malformed" in r.getMessage()] == [
        "markers: ignored a malformed notification 'not json'",
        "markers: ignored a malformed notification '{\"uris\": 3}'",
    ]


async def test_the_user_is_told_when_the_database_goes_away_and_when_it_is_back(
    host: ThreadHost, listening: _Said, postgres_url: str
) -> None:
    dsn = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    mine = Server(host)
    try:
        await mine.channel.start()
        await asyncio.to_thread(listening.wait_for, 1)

        def cut() -> int:
            with psycopg.connect(dsn, autocommit=True) as conn:
                rows = conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = %s",
                    (f"LISTEN {CHANNEL}",),
                ).fetchall()
            return len(rows)

        assert await asyncio.to_thread(cut) == 1
        message, trouble = await asyncio.wait_for(mine.told.get(), WAIT_S)
        assert trouble and message.startswith(AWAY.split("{")[0])
        assert await asyncio.wait_for(mine.told.get(), WAIT_S) == (BACK, False)  # reconnected (after 2 s)
        await asyncio.to_thread(listening.wait_for, 2)
        theirs = Server(host)
        await asyncio.to_thread(theirs.announce, [("file:///alice/a.py", None)])
        assert await mine.next() == (["file:///alice/a.py"], [None])  # listening again
    finally:
        await asyncio.to_thread(mine.channel.stop)


async def test_on_sqlite_nothing_listens(tmp_path: Path) -> None:
    served = ThreadHost(SettingsSchema().parse()[0], tmp_path, {})
    try:
        channel = TeamChannel(served, lambda uris, keys: None)
        await channel.start()
        assert channel._listener is None
    finally:
        served.close()
