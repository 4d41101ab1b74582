"""A small namespaced key-value table: the foundation's proof of the storage layer, and a place for
per-feature state that needs no schema of its own (JSON values, written only on change)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, DateTime, String, Table, Text, delete, select
from sqlalchemy.engine import Connection

from .database import Database, Migration, metadata

kv_table = Table(
    "tether_kv",
    metadata,
    Column("namespace", String(200), primary_key=True),
    Column("key", String(500), primary_key=True),
    Column("value", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)


def _create_kv(conn: Connection) -> None:
    kv_table.create(conn)


#: The core component: a key-value table any feature may use (``Database.migrate`` always includes it).
MIGRATIONS = [Migration(1, "key-value table", _create_kv)]


class KeyValueStore:
    """JSON values by (namespace, key); each call is one transaction."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, namespace: str, key: str) -> Any | None:
        with self.db.transaction() as conn:
            row = conn.execute(
                select(kv_table.c.value).where(kv_table.c.namespace == namespace, kv_table.c.key == key)
            ).first()
        return None if row is None else json.loads(row.value)

    def put(self, namespace: str, key: str, value: Any) -> bool:
        """Store ``value``; returns False (and writes nothing) when it is unchanged."""
        encoded = json.dumps(value, sort_keys=True, ensure_ascii=False)
        with self.db.transaction(write_lock=True) as conn:
            where = (kv_table.c.namespace == namespace, kv_table.c.key == key)
            row = conn.execute(select(kv_table.c.value).where(*where)).first()
            now = datetime.now(UTC)
            if row is None:
                conn.execute(kv_table.insert().values(namespace=namespace, key=key, value=encoded, updated_at=now))
            elif row.value == encoded:
                return False
            else:
                conn.execute(kv_table.update().where(*where).values(value=encoded, updated_at=now))
        return True

    def delete(self, namespace: str, key: str) -> bool:
        with self.db.transaction() as conn:
            result = conn.execute(delete(kv_table).where(kv_table.c.namespace == namespace, kv_table.c.key == key))
        return bool(result.rowcount)

    def items(self, namespace: str) -> dict[str, Any]:
        with self.db.transaction() as conn:
            rows = conn.execute(
                select(kv_table.c.key, kv_table.c.value)
                .where(kv_table.c.namespace == namespace)
                .order_by(kv_table.c.key)
            ).all()
        return {row.key: json.loads(row.value) for row in rows}
