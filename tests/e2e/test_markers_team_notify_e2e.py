"""Team mode's notifications on a real PostgreSQL: a change touching many files (a clone adopting the markers
an older database kept by uri, hundreds of files at once) reaches the other servers whole, although
PostgreSQL refuses a NOTIFY payload of 8000 bytes or more."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import create_engine

from tether_lsp.handlers.markers.places import FileKey
from tether_lsp.handlers.markers.team import CHANNEL, TeamChannel, payload_files


@pytest.mark.postgres
def test_a_change_to_many_files_is_announced_whole(tmp_path: Path, postgres_url: str) -> None:
    root = tmp_path / "home" / "alice" / "a-project-with-a-long-name" / "src"
    touched: list[tuple[str, FileKey | None]] = [
        ((root / f"package_{n:03d}" / "module_with_a_descriptive_name.py").as_uri(), FileKey("r" * 40, f"p{n}.py"))
        for n in range(300)
    ]
    channel = TeamChannel(Any, lambda uris, keys: None)  # type: ignore[arg-type]
    dsn = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    engine = create_engine(postgres_url)
    try:
        with psycopg.connect(dsn, autocommit=True) as listener:
            listener.execute(f"LISTEN {CHANNEL}")
            with engine.begin() as conn:
                channel.announce(conn, touched)
            received: list[str] = []
            payloads = 0
            for note in listener.notifies(timeout=5, stop_after=1000):
                payloads += 1
                data = json.loads(note.payload)
                assert data["origin"] == channel.instance
                uris, keys = payload_files(data)
                assert all(k is not None for k in keys)
                received += uris
                if len(received) >= len(touched):
                    break
    finally:
        engine.dispose()
    assert sorted(received) == sorted(uri for uri, _ in touched)
    assert payloads > 1
