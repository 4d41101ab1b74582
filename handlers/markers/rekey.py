"""Keys for rows stored by uri: schema step 4, which adds ``repo`` and ``path`` and fills them, and each
server's adoption of the rows of its own clones.

A database made before step 4 holds every file as the uri of the clone that wrote it. The step gives a row
its (repository, path) when this machine can tell them (:meth:`.places.Places.resolve`: the uri is inside a
git repository here that has the marker's creation commit); the rows it cannot place keep working by uri,
as before, and the log says why. In team mode the step runs on one machine only, so every server also
*adopts* the rows still kept by uri that lie in its own clones (:func:`adopt`, once per database, clone and
repository) — each teammate's markers get their key when that teammate's server starts.

Plain SQL on purpose: a schema step must do the same thing in every later version, whatever the tables
become.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from .git import Git
from .keys import Touched
from .places import Clone, FileKey, Places

log = logging.getLogger(__name__)

KEYED_TABLES = ("tether_markers", "tether_marker_locations")
#: How many uris the log names per reason a marker keeps its uri.
EXAMPLES = 5
SET_LOCATION_KEY = (
    "UPDATE tether_marker_locations SET repo = :repo, path = :path WHERE marker_id = :m AND commit_hash = :c"
)


def add_keys(conn: Connection) -> None:
    """Schema step 4: the ``repo`` and ``path`` columns and their indexes, filled where this machine can."""
    inspector = inspect(conn)
    for table in KEYED_TABLES:
        have = {c["name"] for c in inspector.get_columns(table)}
        # a database made by this version already has them: step 1 and 2 create today's tables
        if "repo" not in have:
            conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN repo VARCHAR(64)")
        if "path" not in have:
            conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN path TEXT")
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_tether_markers_repo_path ON tether_markers (repo, path)")
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_tether_marker_locations_commit_repo_path"
        " ON tether_marker_locations (commit_hash, repo, path)"
    )
    fill(conn, Places(Git()), say_why=True)


def adopt(conn: Connection, places: Places, clone: Clone) -> list[Touched]:
    """The rows kept by uri whose file is in ``clone`` get their key; the markers' files that did."""
    return fill(conn, places, within=clone)


def fill(conn: Connection, places: Places, within: Clone | None = None, say_why: bool = False) -> list[Touched]:
    """Give the rows kept by uri (all of them, or those in ``within``) their key where this machine can tell
    it; returns the files of the markers that got one. ``say_why`` logs why the others could not."""
    rows = conn.execute(text("SELECT id, uri, commit_hash_when_created FROM tether_markers WHERE repo IS NULL")).all()
    rows = [r for r in rows if within is None or within.holds(r.uri)]
    keys = places.resolve((r.uri, r.commit_hash_when_created) for r in rows) if rows else {}
    keyed = []
    touched: list[Touched] = []
    why: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        found = keys[(row.uri, row.commit_hash_when_created)]
        if isinstance(found, FileKey):
            keyed.append({"id": row.id, "repo": found.repo, "path": found.path})
            touched.append((row.uri, found))
        else:
            why[found].append(row.uri)
    if keyed:
        conn.execute(text("UPDATE tether_markers SET repo = :repo, path = :path WHERE id = :id"), keyed)
    located = _fill_locations(conn, places, within)
    if keyed or located:
        log.info(
            "markers: %d marker(s) and %d stored location(s) are now kept by repository and path",
            len(keyed),
            located,
        )
    if say_why:
        for reason, uris in sorted(why.items()):
            shown = sorted(set(uris))
            more = f" and {len(shown) - EXAMPLES} more" if len(shown) > EXAMPLES else ""
            log.info(
                "markers: %d marker(s) keep their file's uri (%s): %s%s",
                len(uris),
                reason,
                ", ".join(shown[:EXAMPLES]),
                more,
            )
        if why:
            log.info(
                "markers: the server working in a clone gives its markers their repository and path when it starts"
            )
    return sorted(set(touched), key=lambda t: t[0])


def _fill_locations(conn: Connection, places: Places, within: Clone | None) -> int:
    """Stored locations kept by uri, of markers that have a key: placed in a clone of the marker's repository
    on this machine (the location's file may be gone from the working tree since: a rename)."""
    rows = conn.execute(
        text(
            "SELECT l.marker_id, l.commit_hash, l.uri, m.repo FROM tether_marker_locations l"
            " JOIN tether_markers m ON m.id = l.marker_id WHERE l.repo IS NULL AND m.repo IS NOT NULL"
        )
    ).all()
    clones: dict[Path, Clone | None] = {}  # a file's folder -> the clone it is in (a foreign folder: once)
    updates = []
    for row in rows:
        if within is not None and not within.holds(row.uri):
            continue
        folder = _folder(row.uri)
        if folder not in clones:
            found = places.locate(row.uri)
            clones[folder] = found[0] if found is not None else None
        clone = clones[folder]
        path = clone.path_of(row.uri) if clone is not None and clone.repo == row.repo else None
        if path is not None:
            updates.append({"m": row.marker_id, "c": row.commit_hash, "repo": row.repo, "path": path})
    if updates:
        conn.execute(text(SET_LOCATION_KEY), updates)
    return len(updates)


def _folder(uri: str) -> Path:
    return Path(uri.rsplit("/", 1)[0])
