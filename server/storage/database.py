"""One storage layer, two engines: a SQLite file by default, PostgreSQL for teams (SQLAlchemy Core).

Why this shape: the same schema and the same queries run on both engines, so every storage test runs
against both. Each feature owns a *component* with an ordered list of forward :class:`Migration`\\ s; the
``tether_schema`` table records each component's version and :meth:`Database.migrate` applies what is
missing inside one transaction, holding a lock so two servers starting at once do not race (an advisory
lock on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite). SQLite runs in WAL mode with a busy timeout; its
transactions are real (``BEGIN`` is issued explicitly, DDL included). Driver errors become
:class:`StorageError` (``-32803``) with the reason, so a locked or unreachable database is an answer, not a
crash; so do a URL that does not parse, an unknown driver and a folder that cannot be made, which are the
user's setting to fix rather than the server's bug.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, event, make_url, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.url import URL
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import SingletonThreadPool

from ..database_choice import DATABASE_ENV
from ..datadir import data_folder
from ..errors import DATABASE_SETTING, StorageError
from ..offloop import assert_off_loop

log = logging.getLogger(__name__)

URL_EXAMPLES = "sqlite:////absolute/path.db, sqlite:///relative/path.db or postgresql+psycopg://user@host/db"

metadata = MetaData()

schema_table = Table(
    "tether_schema",
    metadata,
    Column("component", String(100), primary_key=True),
    Column("version", Integer, nullable=False),
)


@dataclass(frozen=True)
class Migration:
    """One forward step of a component's schema."""

    version: int
    description: str
    apply: Callable[[Connection], None]


def check_migrations(component: str, migrations: Sequence[Migration]) -> None:
    """A component's migrations must be versions 1, 2, ... in order."""
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(migrations) + 1)):
        raise ValueError(f"{component}: migrations must be numbered 1..n, got {versions}")


def default_sqlite_path(workspace_root: Path | None) -> Path:
    """``.git/tether/tether.db`` of the workspace's clone, else ``<user data dir>/tether.db``."""
    return data_folder(workspace_root) / "tether.db"


def _masked(url: str) -> str:
    """A URL that did not parse, with what looks like its password hidden (it may still hold one)."""
    return re.sub(r"(//[^/:@]*):[^/@]*@", r"\1:***@", url)


def _parse(url: str | URL, setting: str) -> URL:
    """The URL, with a leading ``~`` of a SQLite path expanded (the folder made and the file opened are then
    the same); a URL that does not parse is the setting's fault, said so."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        shown = _masked(str(url))
        raise StorageError(f"{shown!r} is not a database URL (expected {URL_EXAMPLES})", setting=setting) from None
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database.startswith("~"):
        parsed = parsed.set(database=str(Path(parsed.database).expanduser()))
    return parsed


def _make_folder(folder: Path, setting: str, database: str) -> None:
    """The database file's folder, made if missing (a failure names the folder and the OS's reason)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = exc.strerror or exc.__class__.__name__
        if exc.filename is not None and Path(exc.filename) != folder:
            why = f"{why}: {exc.filename}"
        raise StorageError(f"cannot create the folder {folder} ({why})", setting=setting, database=database) from None


def _describe(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip().splitlines()
    return text[0] if text else exc.__class__.__name__


class Database:
    """A SQLAlchemy engine plus Tether's conventions (migrations, transactions, error mapping)."""

    def __init__(self, url: str | URL, *, busy_timeout_ms: int = 5000, setting: str = DATABASE_SETTING) -> None:
        #: What chose this database (a setting or an environment variable), named by every storage error.
        self.setting = setting
        #: Whether a migration succeeded: until then a failure is the opener's to report (once), not each
        #: transaction's.
        self.opened = False
        #: (on_begin, on_commit) pairs called at every transaction, replaced whole (never changed in place) so a
        #: transaction running on another thread iterates a snapshot; see :meth:`observe_transactions`.
        self._observers: tuple[tuple[Callable[[Connection], None], Callable[[Connection], None]], ...] = ()
        self._observers_lock = threading.Lock()
        parsed = _parse(url, setting)
        self.url = parsed.render_as_string(hide_password=False)
        self.dialect = parsed.get_backend_name()
        shown = parsed.render_as_string(hide_password=True)
        if self.dialect not in ("sqlite", "postgresql"):
            raise StorageError(
                f"unsupported database URL scheme {self.dialect!r} (use sqlite or postgresql)",
                setting=setting,
                database=shown,
            )
        if self.dialect == "sqlite" and parsed.database and parsed.database != ":memory:":
            _make_folder(Path(parsed.database).parent, setting, shown)
        try:
            self.engine: Engine = self._make_engine(parsed, busy_timeout_ms)
        except NoSuchModuleError:
            raise StorageError(
                f"no database driver {parsed.drivername!r} (use sqlite or postgresql+psycopg)",
                setting=setting,
                database=shown,
            ) from None
        except ImportError as exc:
            raise StorageError(
                f"the driver of {parsed.drivername!r} is not installed ({exc}): pip install 'tether-lsp[postgres]'",
                setting=setting,
                database=shown,
            ) from None
        except (SQLAlchemyError, ValueError) as exc:
            raise StorageError(_describe(exc), setting=setting, database=shown) from None

    @classmethod
    def sqlite(cls, path: Path) -> Database:
        return cls(URL.create("sqlite", database=str(path)))

    def _make_engine(self, url: URL, busy_timeout_ms: int) -> Engine:
        if self.dialect == "sqlite":
            # one connection per thread, kept: the PRAGMAs run once per thread, not once per transaction
            engine = create_engine(
                url,
                poolclass=SingletonThreadPool,
                pool_size=64,
                connect_args={"check_same_thread": False},  # closed at shutdown from another thread
            )

            @event.listens_for(engine, "connect")
            def _on_connect(dbapi_conn: Any, _record: Any) -> None:
                dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (transactional DDL too)
                cur = dbapi_conn.cursor()
                cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                cur.execute("PRAGMA journal_mode = WAL")
                cur.execute("PRAGMA synchronous = NORMAL")
                cur.execute("PRAGMA foreign_keys = ON")
                cur.close()

            @event.listens_for(engine, "begin")
            def _on_begin(conn: Connection) -> None:
                conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.get("tether_immediate") else "BEGIN")
                for begun, _ in self._observers:
                    begun(conn)

        else:
            connect_args = {"connect_timeout": max(1, busy_timeout_ms // 1000)}
            engine = create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=4, connect_args=connect_args)

            @event.listens_for(engine, "begin")
            def _on_begin_observed(conn: Connection) -> None:
                for begun, _ in self._observers:
                    begun(conn)

        @event.listens_for(engine, "commit")
        def _on_commit(conn: Connection) -> None:
            for _, committed in self._observers:
                committed(conn)

        return engine

    def observe_transactions(
        self, on_begin: Callable[[Connection], None], on_commit: Callable[[Connection], None]
    ) -> None:
        """Call ``on_begin`` and ``on_commit`` at every transaction's begin and commit, on its thread (once per
        pair, however often asked). Why not SQLAlchemy's ``event.listen`` on the engine: its listener list is
        changed in place, and a listener added while another thread began a transaction broke that transaction
        ("deque mutated during iteration"); the engine's own listeners are fixed when it is made."""
        with self._observers_lock:
            if (on_begin, on_commit) not in self._observers:
                self._observers = (*self._observers, (on_begin, on_commit))

    @contextmanager
    def transaction(self, *, write_lock: bool = False) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back (and re-raised) on any error.

        ``write_lock`` takes the write lock at the start (SQLite ``BEGIN IMMEDIATE``) for
        read-then-write sequences that must not interleave with another writer.
        """
        assert_off_loop("a database transaction")
        try:
            with self.engine.connect() as conn:
                conn.info["tether_immediate"] = write_lock
                try:
                    with conn.begin():
                        yield conn
                finally:
                    conn.info["tether_immediate"] = False
        except SQLAlchemyError as exc:
            log.log(
                logging.WARNING if self.opened else logging.DEBUG,
                "storage error on %s: %s",
                self.redacted_url,
                _describe(exc),
            )
            raise StorageError(_describe(exc), setting=self.setting, database=self.redacted_url) from exc

    @property
    def redacted_url(self) -> str:
        """The URL without its password, for logs and messages."""
        return self.engine.url.render_as_string(hide_password=True)

    def migrate(self, components: Mapping[str, Sequence[Migration]] | None = None) -> dict[str, int]:
        """Bring each of ``components`` (name -> its migrations) to its latest version; returns the versions
        now in place. Components not given are left as they are: a component no version declares any more
        (``core``, the key-value table of earlier versions) stays recorded, its tables untouched."""
        wanted = dict(components or {})
        for component, migrations in wanted.items():
            check_migrations(component, migrations)
        with self.transaction(write_lock=True) as conn:
            if self.dialect == "postgresql":
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7246031)")
            schema_table.create(conn, checkfirst=True)
            current = {row.component: row.version for row in conn.execute(select(schema_table))}
            for component, migrations in wanted.items():
                have = current.get(component, 0)
                latest = len(migrations)
                if have > latest:
                    raise StorageError(
                        f"the database's {component} schema is version {have}, newer than this server's {latest}",
                        setting=self.setting,
                        database=self.redacted_url,
                    )
                for migration in migrations[have:]:
                    log.info("migrating %s to version %d: %s", component, migration.version, migration.description)
                    migration.apply(conn)
                if latest > have:
                    if have == 0:
                        conn.execute(schema_table.insert().values(component=component, version=latest))
                    else:
                        conn.execute(
                            schema_table.update().where(schema_table.c.component == component).values(version=latest)
                        )
                    current[component] = latest
        self.opened = True
        return current

    def close(self) -> None:
        """Close every connection (only when nothing uses the database any more: at shutdown)."""
        self.engine.dispose()

    def retire(self) -> None:
        """Stop handing out connections without closing those in use (a worker may be mid-transaction);
        they close when released and collected."""
        self.engine.dispose(close=False)


def open_database(url: str | None, workspace_root: Path | None) -> Database:
    """The database Tether should use: ``url`` when set (``TETHER_DATABASE_URL`` too), else the default file.
    Raises StorageError, naming where the URL came from, when it cannot be opened."""
    if url:
        return Database(url)
    from_env = os.environ.get(DATABASE_ENV)
    if from_env:
        return Database(from_env, setting=DATABASE_ENV)
    return Database.sqlite(default_sqlite_path(workspace_root))
