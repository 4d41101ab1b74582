"""Persistence for Tether: SQLite by default, PostgreSQL for teams, one code path (see database.py)."""

from ..datadir import find_git_dir
from ..errors import StorageError
from .database import (
    Database,
    Migration,
    check_migrations,
    default_sqlite_path,
    metadata,
    open_database,
)

__all__ = [
    "Database",
    "Migration",
    "StorageError",
    "check_migrations",
    "default_sqlite_path",
    "find_git_dir",
    "metadata",
    "open_database",
]
