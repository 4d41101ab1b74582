"""The shared database and this machine's local one, each opened and migrated on first use.

Features declare their tables (:meth:`Databases.register`); a database runs every declared component's
missing migration steps when it opens, so a feature's storage module, and SQLAlchemy, load only then. A
database that cannot be opened is warned about once per failure, not once per request: each request that
needs it answers the error itself. Kept apart from the server so that opening, switching and closing the
databases, and their one lock, read in one place.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .database_choice import database_key, database_url
from .errors import StorageError

if TYPE_CHECKING:
    from .storage import Database, Migration  # SQLAlchemy is imported on first use, not at start-up

log = logging.getLogger(__name__)

__all__ = ["Databases", "database_key", "database_url"]


class Databases:
    """The databases the features share, opened from the current settings and workspace root."""

    def __init__(self, url: Callable[[], str | None], workspace_root: Callable[[], Path | None]) -> None:
        self._url = url
        self._workspace_root = workspace_root
        self._database: Database | None = None
        #: Each feature's tables, by component: a loader of its migrations (``register``).
        self._storage: dict[str, Callable[[], Sequence[Migration]]] = {}
        self._migrated = 0  # how many components the open database was migrated with
        self._local_database: Database | None = None
        self._lock = threading.Lock()
        #: The last failure to open the database that was logged (each failure is warned about once).
        self._failure: str | None = None

    def register(self, component: str, migrations: Callable[[], Sequence[Migration]]) -> None:
        """Declare a feature's tables: ``migrations()`` returns its steps, called when a database opens (so
        the feature's storage module, and SQLAlchemy, load only then)."""
        self._storage[component] = migrations

    def _migrations(self) -> dict[str, Sequence[Migration]]:
        return {component: load() for component, load in self._storage.items()}

    @property
    def opened(self) -> bool:
        """Whether the shared database is open (a request using it no longer waits for SQLAlchemy and the schema)."""
        return self._database is not None

    def shared(self) -> Database:
        """The database (opened and migrated on first use); raises StorageError when it cannot be."""
        from .storage import open_database

        with self._lock:
            if self._database is None:
                try:
                    db = open_database(self._url(), self._workspace_root())
                    try:
                        db.migrate(self._migrations())
                    except Exception:
                        db.close()
                        raise
                except StorageError as exc:
                    self._report_failure(exc)
                    raise
                log.info("storage: %s", db.redacted_url)
                self._database, self._migrated, self._failure = db, len(self._storage), None
                gc.freeze()  # SQLAlchemy, loaded just now, lives as long as the process (see `initialized`)
            elif self._migrated != len(self._storage):  # a component registered since the database opened
                self._database.migrate(self._migrations())
                self._migrated = len(self._storage)
            return self._database

    def local(self) -> Database:
        """This machine's own SQLite database: the database itself, or beside a shared PostgreSQL one.

        For what must stay local even in team mode (e.g. locations of uncommitted code).
        """
        from .storage import Database, default_sqlite_path

        shared = self.shared()
        if shared.dialect == "sqlite":
            return shared
        with self._lock:
            if self._local_database is None:
                try:
                    db = Database.sqlite(default_sqlite_path(self._workspace_root()))
                    db.migrate(self._migrations())
                except StorageError as exc:
                    self._report_failure(exc)
                    raise
                self._local_database = db
            return self._local_database

    def _report_failure(self, error: StorageError) -> None:
        """Warn once per failure, not once per request: every request that needs the database (markers and the
        playground's alike) answers the error itself; the log says it once, at the same level for all."""
        if error.message != self._failure:
            self._failure = error.message
            log.warning("%s; markers and the playground's saved inputs and runs are unavailable", error.message)

    def settings_changed(self) -> None:
        """The database settings changed: the next use opens the database they name (its failure is news)."""
        with self._lock:
            self._failure = None
            if self._database is not None:
                self._database.retire()  # a worker may be using it right now
                self._database = None

    def close(self) -> None:
        """Close both databases (at shutdown, once no worker uses them)."""
        with self._lock:
            if self._local_database is not None:
                self._local_database.close()
                self._local_database = None
            if self._database is not None:
                self._database.close()
                self._database = None
