"""The playground's tables on a real SQLite file: the map (entries, prompts and tombstones) written and read back,
a file forgotten, a prompt's saved inputs, and its runs (newest first, only the newest kept)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tether_lsp.handlers.playground.model import MapFile, MapPrompt, PlaygroundMap
from tether_lsp.handlers.playground.store import MIGRATIONS, PlaygroundStore
from tether_lsp.server.storage import Database


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "tether.db"


@pytest.fixture
def store(path: Path) -> Iterator[PlaygroundStore]:
    db = Database.sqlite(path)
    db.migrate({"playground": MIGRATIONS})
    yield PlaygroundStore(db)
    db.close()


def entry(file_id: str, uri: str, at: float) -> MapFile:
    prompts = [MapPrompt("p-1", "SYSTEM_PROMPT", "you answer in 東京's time 🚀", 0, at)]
    tombstones = [MapPrompt("p-0", "OLD_PROMPT", "gone", 1, at - 1, removed_at=at, removed_update=3)]
    return MapFile(file_id, uri, at, 4, prompts, tombstones)


def test_the_map_is_written_read_back_and_forgotten_across_connections(store: PlaygroundStore, path: Path) -> None:
    store.save_file(entry("f-1", "file:///project/a.py", 1.0))
    store.save_file(entry("f-2", "file:///project/b.py", 2.0))
    store.save_file(entry("f-1", "file:///project/renamed.py", 3.0))  # saved again: replaced, not added
    store.forget_file("f-2")
    other = Database.sqlite(path)  # another process's connection reads what was committed
    try:
        assert PlaygroundStore(other).load() == PlaygroundMap({"f-1": entry("f-1", "file:///project/renamed.py", 3.0)})
    finally:
        other.close()


def test_a_prompts_saved_inputs_are_replaced_and_none_before_any(store: PlaygroundStore) -> None:
    assert store.settings("p-1") is None
    store.set_settings("p-1", {"variables": {"name": "Zoë"}, "model": "llama3"})
    store.set_settings("p-1", {"variables": {"name": "東京"}})
    assert store.settings("p-1") == {"variables": {"name": "東京"}}
    assert store.settings("p-2") is None


def test_runs_come_newest_first_and_only_the_newest_are_kept(store: PlaygroundStore) -> None:
    for n, at in enumerate([3.0, 1.0, 2.0, 2.0]):
        store.add_run("p-1", f"r-{n}", at, {"runId": f"r-{n}", "output": "🚀" * n}, keep=3)
    store.add_run("p-2", "r-other", 9.0, {"runId": "r-other"}, keep=3)
    # r-1 (the oldest) went when the fourth came; equal times: the greater run id first
    assert [run["runId"] for run in store.runs("p-1", 10)] == ["r-0", "r-3", "r-2"]
    assert [run["runId"] for run in store.runs("p-1", 1)] == ["r-0"]
    assert store.runs("p-1", 10)[1]["output"] == "🚀🚀🚀"
    assert store.runs("p-3", 10) == []
