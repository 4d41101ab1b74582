"""The markers' tables and their schema steps (the stores that use them: :mod:`.store`).

``repo`` and ``path`` (step 4) hold a file in git as its repository's identity and repo-relative path
(:mod:`.places`); a row without them is kept by ``uri``.
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Integer, PrimaryKeyConstraint, String, Table, Text
from sqlalchemy.engine import Connection

from tether_lsp.server.storage import Migration, metadata

markers_table = Table(
    "tether_markers",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("uri", Text, nullable=False, index=True),
    Column("note", Text, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("code", Text, nullable=False),
    Column("commit_hash_when_created", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("author", Text, nullable=False),
    Column("base_text", Text, nullable=False),
    Column("line_start", Integer, nullable=False),
    Column("col_start", Integer, nullable=False),
    Column("line_end", Integer, nullable=False),
    Column("col_end", Integer, nullable=False),
    Column("repo", String(64)),  # schema step 4: the file's repository and repo-relative path (None: by uri)
    Column("path", Text),
)


def _create(conn: Connection) -> None:
    markers_table.create(conn)


#: Bump when the calculator changes its results: stored locations of older versions are recomputed.
ALGORITHM_VERSION = 2  # 2: anchored line diff, markers on syntax units snapped to them

locations_table = Table(
    "tether_marker_locations",
    metadata,
    Column("marker_id", String(64), nullable=False),
    Column("commit_hash", String(64), nullable=False),
    Column("uri", Text, nullable=False),
    Column("line_start", Integer),
    Column("col_start", Integer),
    Column("line_end", Integer),
    Column("col_end", Integer),
    Column("missing_reason", String(40)),
    Column("derived_from", String(64)),
    Column("algorithm_version", Integer, nullable=False),
    Column("repo", String(64)),  # schema step 4, as in tether_markers
    Column("path", Text),
    PrimaryKeyConstraint("marker_id", "commit_hash"),
)

uncommitted_table = Table(
    "tether_marker_uncommitted",
    metadata,
    Column("marker_id", String(64), primary_key=True),
    Column("uri", Text, nullable=False, index=True),
    Column("file_contents", Text, nullable=False),
    Column("line_start", Integer, nullable=False),
    Column("col_start", Integer, nullable=False),
    Column("line_end", Integer, nullable=False),
    Column("col_end", Integer, nullable=False),
)


def _create_locations(conn: Connection) -> None:
    locations_table.create(conn)
    uncommitted_table.create(conn)


def _index_locations_by_file(conn: Connection) -> None:
    """Which markers are in a file at a commit (a file that a commit renamed gets its markers this way)."""
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_tether_marker_locations_commit_uri ON tether_marker_locations (commit_hash, uri)"
    )


def _key_files_by_repository(conn: Connection) -> None:
    """Files in git stored as (repository, path), so that clones at different paths meet (:mod:`.rekey`)."""
    from .rekey import add_keys

    add_keys(conn)


#: The markers component's schema steps (the server runs them; see ``register_storage``).
MIGRATIONS = [
    Migration(1, "markers with their base text and location", _create),
    Migration(2, "stored locations per commit; local uncommitted locations", _create_locations),
    Migration(3, "stored locations found by commit and file", _index_locations_by_file),
    Migration(4, "files in git stored by repository and path, shared by every clone", _key_files_by_repository),
]
