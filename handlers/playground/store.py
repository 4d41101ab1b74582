"""Persistence of the playground map and the per-prompt settings (the foundation's storage; written on change)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from sqlalchemy import Column, Float, String, Table, Text, delete, select
from sqlalchemy.engine import Connection

from tether_lsp.server.storage import Database, Migration, metadata, register_migrations

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


def _create(conn: Connection) -> None:
    files_table.create(conn)
    settings_table.create(conn)


register_migrations("playground", [Migration(1, "playground map and per-prompt settings", _create)])


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
