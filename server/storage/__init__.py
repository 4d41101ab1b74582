"""Persistence for Tether: SQLite by default, PostgreSQL for teams, one code path (see database.py)."""

from ..errors import StorageError
from .database import (
    Database,
    Migration,
    default_sqlite_path,
    find_git_dir,
    metadata,
    migrations_generation,
    open_database,
    register_migrations,
)
from .kv import KeyValueStore

__all__ = [
    "Database",
    "KeyValueStore",
    "Migration",
    "StorageError",
    "default_sqlite_path",
    "find_git_dir",
    "metadata",
    "migrations_generation",
    "open_database",
    "register_migrations",
]
