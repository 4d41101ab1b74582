"""Which database a root uses: the one rule every front follows (kept light: no SQLAlchemy here)."""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable naming the database when the setting is null.
DATABASE_ENV = "TETHER_DATABASE_URL"


def database_url(configured: str | None) -> str | None:
    """The database a root uses: the ``tether.database.url`` setting, else ``TETHER_DATABASE_URL``; None: the
    default SQLite file of the root's data folder. The one rule, for every front."""
    return configured or os.environ.get(DATABASE_ENV) or None


def database_key(configured: str | None, root: Path) -> str:
    """Which roots share one database: all of them when a URL is named, else those with one data folder."""
    from .datadir import data_folder

    url = database_url(configured)
    return f"url:{url}" if url else f"folder:{data_folder(root)}"
