"""One storage layer, two engines: a SQLite file by default, PostgreSQL for teams (SQLAlchemy Core).

Why this shape: the same schema and the same queries run on both engines, so every storage test runs
against both. Each feature owns a *component* with an ordered list of forward :class:`Migration`\\ s; the
``tether_schema`` table records each component's version and :meth:`Database.migrate` applies what is
missing inside one transaction, holding a lock so two servers starting at once do not race (an advisory
lock on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite). SQLite runs in WAL mode with a busy timeout; its
transactions are real (``BEGIN`` is issued explicitly, DDL included). Driver errors become
:class:`StorageError` (``-32803``) with the reason, so a locked or unreachable database is an answer, not a
crash.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, event, make_url, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import SingletonThreadPool

from ..errors import StorageError
from ..offloop import assert_off_loop

log = logging.getLogger(__name__)

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


def find_git_dir(start: Path) -> Path | None:
    """The git directory shared by the clone containing ``start`` (worktrees resolve to the common dir)."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            content = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if content.startswith("gitdir:"):
                git_dir = (folder / content[len("gitdir:") :].strip()).resolve()
                common = git_dir / "commondir"
                if common.is_file():
                    return (git_dir / common.read_text(encoding="utf-8").strip()).resolve()
                return git_dir
    return None


def default_sqlite_path(workspace_root: Path | None) -> Path:
    """``.git/tether/tether.db`` of the workspace's clone, else ``<user data dir>/tether.db``."""
    if workspace_root is not None:
        git_dir = find_git_dir(workspace_root)
        if git_dir is not None:
            return git_dir / "tether" / "tether.db"
    return Path(platformdirs.user_data_dir("tether", appauthor=False)) / "tether.db"


def _describe(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip().splitlines()
    return text[0] if text else exc.__class__.__name__


class Database:
    """A SQLAlchemy engine plus Tether's conventions (migrations, transactions, error mapping)."""

    def __init__(self, url: str, *, busy_timeout_ms: int = 5000) -> None:
        self.url = url
        self.dialect = url.split(":", 1)[0].split("+", 1)[0]
        if self.dialect not in ("sqlite", "postgresql"):
            raise StorageError(f"unsupported database URL scheme {self.dialect!r} (use sqlite or postgresql)")
        self.engine: Engine = self._make_engine(url, busy_timeout_ms)

    @classmethod
    def sqlite(cls, path: Path) -> Database:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{path}")

    def _make_engine(self, url: str, busy_timeout_ms: int) -> Engine:
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

            return engine
        connect_args = {"connect_timeout": max(1, busy_timeout_ms // 1000)}
        try:
            return create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=4, connect_args=connect_args)
        except (ImportError, NoSuchModuleError) as exc:
            raise StorageError(
                f"PostgreSQL support is not installed ({exc}): pip install 'tether-lsp[postgres]'"
            ) from exc

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
            log.warning("storage error on %s: %s", self.redacted_url, _describe(exc))
            raise StorageError(_describe(exc)) from exc

    @property
    def redacted_url(self) -> str:
        """The URL without its password, for logs and messages."""
        return self.engine.url.render_as_string(hide_password=True)

    def migrate(self, components: Mapping[str, Sequence[Migration]] | None = None) -> dict[str, int]:
        """Bring the core's key-value table and each of ``components`` (name -> its migrations) to its latest
        version; returns the versions now in place (components not given are left as they are)."""
        from .kv import MIGRATIONS as CORE  # kv's table is declared on top of this module

        wanted = {"core": CORE, **(components or {})}
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
                        f"the database's {component} schema is version {have}, newer than this server's {latest}"
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
            return current

    def close(self) -> None:
        """Close every connection (only when nothing uses the database any more: at shutdown)."""
        self.engine.dispose()

    def retire(self) -> None:
        """Stop handing out connections without closing those in use (a worker may be mid-transaction);
        they close when released and collected."""
        self.engine.dispose(close=False)


def open_database(url: str | None, workspace_root: Path | None) -> Database:
    """The database Tether should use: ``url`` when set (``TETHER_DATABASE_URL`` too), else the default file."""
    url = url or os.environ.get("TETHER_DATABASE_URL") or None
    if url:
        database = make_url(url).database if url.startswith("sqlite") else None
        if database and database != ":memory:":
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)  # like the default file
        return Database(url)
    return Database.sqlite(default_sqlite_path(workspace_root))
