"""Team mode's channel between servers on one PostgreSQL database: ``NOTIFY`` when this server changes
markers, ``LISTEN`` for the others' changes, which reach this server's client as ``didChange``.

Kept apart from the markers state because it is a thread of its own with its own connection: it is started
after ``initialized``, follows a changed ``tether.database.url``, reconnects when the connection drops, and
stops at shutdown. Payloads are ``{"origin": <server instance>, "uris": [...], "files": [...]}``: the
changed files as the writer's uris and, aligned with them, each one's ``[repository, path]`` (null outside
git), which the receiver maps to its own clones (the uris of another clone mean nothing here). A server
ignores its own payloads; one without ``files`` (an earlier version's) is taken by its uris.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tether_lsp.server.errors import StorageError, is_shutting_down

from .places import FileKey

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from tether_lsp.server.host import Host

    from .keys import Touched

log = logging.getLogger(__name__)


CHANNEL = "tether_markers"
#: What the user is told, once each time, when the team database goes away and when it is back.
AWAY = (
    "Tether markers: the team database cannot be reached ({reason}). Markers cannot be listed or changed, and "
    "teammates' changes do not arrive, until it is back; Tether keeps trying every 2 s."
)
BACK = (
    "Tether markers: the team database is reachable again. Teammates' changes arrive again; those made while it "
    "was away show on the next list."
)


class TeamChannel:
    """``announce`` inside a writing transaction; ``start`` the LISTEN thread; ``deliver`` gets other
    servers' changed files on the loop (their uris, and aligned with them their keys)."""

    def __init__(self, server: Host, deliver: Callable[[list[str], list[FileKey | None]], None]) -> None:
        self.server = server
        self.deliver = deliver  # loop only
        self.instance = uuid.uuid4().hex  # tells our own NOTIFYs from other servers'
        self._listener: threading.Thread | None = None
        self._listening_to: str | None = None
        self._stop = threading.Event()
        #: Loop only: tells the user (``message``, ``trouble``) that the database went away or came back. Set by
        #: the front; unset, the log alone says it.
        self.tell: Callable[[str, bool], None] | None = None

    def announce(self, conn: Connection, touched: list[Touched]) -> None:
        """Worker, inside the transaction that changed these files' markers: sent when it commits. Many files
        go in several notifications, each under PostgreSQL's limit (a payload of 8000 bytes or more is refused,
        and the writing transaction with it)."""
        from sqlalchemy import text as sql

        for payload in payloads(self.instance, touched):
            conn.execute(sql("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": payload})

    async def start(self) -> None:
        """Loop: LISTEN on the server's database when it is PostgreSQL (once per database)."""
        try:
            db = await self.server.run_blocking(self.server.database)
        except StorageError as exc:  # already in the log, where it happened; the requests answer it
            log.debug("markers: no database to listen to (%s)", exc)
            return
        except Exception as exc:
            level = logging.DEBUG if is_shutting_down(exc) else logging.WARNING
            log.log(level, "markers: no database to listen to (%s)", exc)
            return
        if db.dialect != "postgresql":
            return
        dsn = db.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        if self._listener is not None and self._listening_to == dsn:
            return
        self.stop()
        self._stop = threading.Event()
        loop = asyncio.get_running_loop()
        self._listening_to = dsn
        self._listener = threading.Thread(
            target=self._listen, args=(dsn, loop, self._stop), daemon=True, name="markers-listen"
        )
        self._listener.start()

    def on_settings(self, _settings: Any) -> None:
        """Loop: a changed ``tether.database.url`` moves the LISTEN to the new database (or stops it)."""
        if self._listener is None and self._listening_to is None:
            return
        self.server.spawn(self.start(), "markers: moving LISTEN to the new database")

    def stop(self) -> None:
        self._stop.set()
        if self._listener is not None:
            self._listener.join(timeout=2)
        self._listener, self._listening_to = None, None

    def _listen(self, dsn: str, loop: asyncio.AbstractEventLoop, stop: threading.Event) -> None:
        import psycopg

        away = False  # the user was told the database is away, and not yet that it is back
        while not stop.is_set():
            try:
                with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    log.info("markers: listening for other servers' changes")
                    if away:
                        away = False
                        self._tell(loop, BACK, trouble=False)
                    while not stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self._received(note.payload, loop)
            except Exception as exc:
                if stop.is_set():
                    return
                log.warning("markers: LISTEN connection lost (%s); retrying in 2 s", exc)
                if not away:
                    away = True
                    reason = (str(exc).strip().splitlines() or ["no reason given"])[0][:200]
                    self._tell(loop, AWAY.format(reason=reason), trouble=True)
                stop.wait(2)

    def _tell(self, loop: asyncio.AbstractEventLoop, message: str, trouble: bool) -> None:
        if self.tell is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.tell, message, trouble)

    def _received(self, payload: str, loop: asyncio.AbstractEventLoop) -> None:
        try:
            data: Any = json.loads(payload)
            uris, keys = payload_files(data)
        except (ValueError, KeyError, TypeError):
            log.warning("markers: ignored a malformed notification %r", payload[:200])
            return
        if data.get("origin") == self.instance or not uris:
            return
        loop.call_soon_threadsafe(self.deliver, uris, keys)


#: The most bytes of one notification's payload (PostgreSQL refuses 8000 and more).
MAX_PAYLOAD = 7900


def payloads(origin: str, touched: list[Touched]) -> list[str]:
    """The payloads announcing ``touched``: as few as fit under MAX_PAYLOAD (a file alone too long for one,
    a uri of thousands of characters, goes without its uri: the receivers place it by its key)."""
    out: list[str] = []
    uris: list[str] = []
    files: list[list[str] | None] = []

    def dump(u: list[str], f: list[list[str] | None]) -> str:
        return json.dumps({"origin": origin, "uris": u, "files": f})

    for uri, key in touched:
        file = [key.repo, key.path] if key is not None else None
        if uris and len(dump([*uris, uri], [*files, file]).encode()) > MAX_PAYLOAD:
            out.append(dump(uris, files))
            uris, files = [], []
        if len(dump([uri], [file]).encode()) > MAX_PAYLOAD:
            if file is not None and len(dump([""], [file]).encode()) <= MAX_PAYLOAD:
                out.append(dump([""], [file]))
            continue  # a file with no key and a uri too long to send: its teammates see it on their next list
        uris.append(uri)
        files.append(file)
    if uris:
        out.append(dump(uris, files))
    return out


def payload_files(data: Any) -> tuple[list[str], list[FileKey | None]]:
    """A payload's files: uris and their keys, aligned (keys all None in an earlier version's payload).
    Public for its test: what a payload of this version or the previous one means."""
    uris = data["uris"]
    files = data["files"] if data.get("files") is not None else [None] * len(uris)
    if len(files) != len(uris):
        raise ValueError("files and uris differ in length")
    out: tuple[list[str], list[FileKey | None]] = ([], [])
    for uri, file in zip(uris, files, strict=True):
        if not isinstance(uri, str):
            continue
        key = (
            FileKey(*file)
            if isinstance(file, list) and len(file) == 2 and all(isinstance(x, str) for x in file)
            else None
        )
        out[0].append(uri)
        out[1].append(key)
    return out
