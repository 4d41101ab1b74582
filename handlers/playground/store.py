"""Persistence of the playground map, the per-prompt settings and the runs (the foundation's storage).

Runs are kept by prompt id, so they follow the prompt across edits and renames as its id does; the oldest
beyond ``tether.playground.maxRunsPerPrompt`` are deleted when a run is added.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from sqlalchemy import Column, Float, Index, String, Table, Text, delete, select
from sqlalchemy.engine import Connection

from tether_lsp.server.storage import Database, Migration, metadata

from .model import MapFile, MapPrompt, PlaygroundMap

files_table = Table(
    "tether_playground_files",
    metadata,
    Column("file_id", String(32), primary_key=True),
    Column("uri", Text, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("data", Text, nullable=False),  # JSON: updates, prompts, tombstones
)
settings_table = Table(
    "tether_playground_settings",
    metadata,
    Column("prompt_id", String(32), primary_key=True),
    Column("settings", Text, nullable=False),
)


runs_table = Table(
    "tether_playground_runs",
    metadata,
    Column("run_id", String(32), primary_key=True),
    Column("prompt_id", String(32), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("data", Text, nullable=False),  # JSON: the run as the protocol shows it
    Index("tether_playground_runs_prompt", "prompt_id", "created_at"),
)


def _create(conn: Connection) -> None:
    files_table.create(conn)
    settings_table.create(conn)


def _create_runs(conn: Connection) -> None:
    runs_table.create(conn)


#: The playground component's schema steps (the server runs them; see ``register_storage``).
MIGRATIONS = [
    Migration(1, "playground map and per-prompt settings", _create),
    Migration(2, "playground runs", _create_runs),
]


def _prompt(data: dict[str, Any]) -> MapPrompt:
    return MapPrompt(**data)


class PlaygroundStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def load(self) -> PlaygroundMap:
        pmap = PlaygroundMap()
        with self.db.transaction() as conn:
            for row in conn.execute(select(files_table)):
                data = json.loads(row.data)
                pmap.files[row.file_id] = MapFile(
                    row.file_id,
                    row.uri,
                    row.updated_at,
                    data.get("updates", 0),
                    [_prompt(p) for p in data.get("prompts", [])],
                    [_prompt(p) for p in data.get("tombstones", [])],
                )
        return pmap

    def save_file(self, entry: MapFile) -> None:
        data = json.dumps(
            {
                "updates": entry.updates,
                "prompts": [asdict(p) for p in entry.prompts],
                "tombstones": [asdict(p) for p in entry.tombstones],
            }
        )
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(delete(files_table).where(files_table.c.file_id == entry.id))
            conn.execute(
                files_table.insert().values(file_id=entry.id, uri=entry.uri, updated_at=entry.updated_at, data=data)
            )

    def forget_file(self, file_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(delete(files_table).where(files_table.c.file_id == file_id))

    def settings(self, prompt_id: str) -> dict[str, Any] | None:
        with self.db.transaction() as conn:
            row = conn.execute(select(settings_table.c.settings).where(settings_table.c.prompt_id == prompt_id)).first()
        return None if row is None else dict(json.loads(row[0]))

    def set_settings(self, prompt_id: str, settings: dict[str, Any]) -> None:
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(delete(settings_table).where(settings_table.c.prompt_id == prompt_id))
            conn.execute(settings_table.insert().values(prompt_id=prompt_id, settings=json.dumps(settings)))

    def add_run(self, prompt_id: str, run_id: str, created_at: float, run: dict[str, Any], keep: int) -> None:
        """Store a run; only the newest ``keep`` runs of the prompt stay."""
        with self.db.transaction(write_lock=True) as conn:
            conn.execute(
                runs_table.insert().values(
                    run_id=run_id, prompt_id=prompt_id, created_at=created_at, data=json.dumps(run)
                )
            )
            old = select(runs_table.c.run_id).where(runs_table.c.prompt_id == prompt_id)
            old = old.order_by(runs_table.c.created_at.desc(), runs_table.c.run_id.desc()).offset(keep)
            stale = [row[0] for row in conn.execute(old)]
            if stale:
                conn.execute(delete(runs_table).where(runs_table.c.run_id.in_(stale)))

    def runs(self, prompt_id: str, limit: int) -> list[dict[str, Any]]:
        """The prompt's runs, newest first."""
        query = select(runs_table.c.data).where(runs_table.c.prompt_id == prompt_id)
        query = query.order_by(runs_table.c.created_at.desc(), runs_table.c.run_id.desc()).limit(limit)
        with self.db.transaction() as conn:
            return [dict(json.loads(row[0])) for row in conn.execute(query)]
