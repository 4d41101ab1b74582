"""Locations of markers on code that is not committed yet: this machine's own, never shared.

Kept apart from the stored committed locations (:mod:`.location_store`): a row here holds the file's whole text
as it was when the marker was placed (there is no commit to read it from), lives in the *local* database even in
team mode, and goes when the code is committed and its location flushed to a committed one.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select

from tether_lsp.server.storage import Database

from .calculator import Location
from .location_store import location_columns
from .tables import uncommitted_table


@dataclass(frozen=True)
class Uncommitted:
    marker_id: str
    uri: str
    file_contents: str
    location: Location


class UncommittedStore:
    """Local-only locations of markers on code that is not committed yet."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def put(self, item: Uncommitted) -> None:
        t = uncommitted_table
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(delete(t).where(t.c.marker_id == item.marker_id))
            conn.execute(
                t.insert().values(
                    marker_id=item.marker_id,
                    uri=item.uri,
                    file_contents=item.file_contents,
                    **location_columns(item.location),
                )
            )

    def get(self, marker_ids: list[str]) -> dict[str, Uncommitted]:
        t = uncommitted_table
        found: dict[str, Uncommitted] = {}
        with self.db.transaction() as conn:
            for k in range(0, len(marker_ids), 500):
                rows = conn.execute(select(t).where(t.c.marker_id.in_(marker_ids[k : k + 500]))).all()
                for row in rows:
                    r = row._mapping
                    loc = Location(r["line_start"], r["col_start"], r["line_end"], r["col_end"])
                    found[r["marker_id"]] = Uncommitted(r["marker_id"], r["uri"], r["file_contents"], loc)
        return found

    def under(self, uri_prefix: str) -> list[Uncommitted]:
        t = uncommitted_table
        with self.db.transaction() as conn:
            rows = conn.execute(select(t.c.marker_id).where(t.c.uri.startswith(uri_prefix, autoescape=True))).all()
        return list(self.get([row[0] for row in rows]).values())

    def remove(self, marker_id: str) -> None:
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(delete(uncommitted_table).where(uncommitted_table.c.marker_id == marker_id))
