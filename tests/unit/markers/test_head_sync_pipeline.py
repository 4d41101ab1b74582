"""A HEAD sync as a pipeline, in-process on a real git repository and the SQLite file of a ThreadHost: the files go
to be relocated a batch at a time as git gives them, and each batch's locations are stored (one statement) as its
answers come in, while later batches are relocated; a marker whose block is gone from its file waits until every
changed file's added lines are known, and is then found in the file it moved to, whichever batch that file was in.

The order of events is recorded with spies (the relocation runs in this thread: ``tether.limits.processes`` 0, so
the order is deterministic); nothing is timed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import Any

import pytest
from sqlalchemy import event

from tests.helpers import commit_all, git
from tether_lsp.handlers.markers import computing, relocate
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.location_store import LocationStore, StoredLocation
from tether_lsp.handlers.markers.places import FileKey, Places
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.handlers.markers.store import MarkerRecord
from tether_lsp.server.thread_host import ThreadHost

from .test_head_change_work import module, served

NAMES = [f"f{k:02}.py" for k in range(2 * computing.FILES_PER_BATCH + 3)]  # three batches, the last one short
PER_FILE = 3


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name in NAMES:
        (root / name).write_text(module(PurePath(name).stem), encoding="utf-8")
    commit_all(root, "c0")
    return root


@pytest.fixture
def host_state(repo: Path) -> Iterator[tuple[ThreadHost, MarkersState]]:
    host, state = served(repo, processes=0)
    yield host, state
    host.close()


def seed(state: MarkersState, root: Path) -> dict[str, Location]:
    """Three markers per file, each on a whole function, made at HEAD, the files' markers in their order."""
    head = git(root, "rev-parse", "HEAD").strip()
    rows: list[tuple[MarkerRecord, StoredLocation | None]] = []
    made = {}
    for name in NAMES:
        uri = (root / name).as_uri()
        for k in range(PER_FILE):
            marker_id = f"{PurePath(name).stem}-{k}"
            made[marker_id] = loc = Location(5 * k + 1, 1, 5 * k + 3, len(f"    return total + {k}") + 1)
            record = MarkerRecord(marker_id, uri, "note", "comment", "", head, datetime.now(UTC), "Ada", "", loc)
            rows.append((record, StoredLocation(marker_id, head, uri, loc, None, head)))
    state.markers().insert_many(rows)
    return made


@pytest.fixture
def events(
    monkeypatch: pytest.MonkeyPatch, host_state: tuple[ThreadHost, MarkersState]
) -> Iterator[list[tuple[str, Any]]]:
    """In order: ("relocated", file's first line) for each file relocated, ("put", marker ids) for each store of
    locations, ("insert", executemany?) for each statement writing the locations table."""
    seen: list[tuple[str, Any]] = []
    real_relocate, real_put = relocate.relocate_file, LocationStore.put

    def relocated(work: relocate.FileWork) -> relocate.FileDone:
        seen.append(("relocated", work.new.partition("\n")[0]))
        return real_relocate(work)

    def put(self: LocationStore, items: list[StoredLocation], *args: Any) -> None:
        seen.append(("put", sorted(s.marker_id for s in items)))
        real_put(self, items, *args)

    def note(_conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, executemany: bool) -> None:
        if statement.lstrip().startswith("INSERT INTO tether_marker_locations"):
            seen.append(("insert", executemany))

    monkeypatch.setattr(relocate, "relocate_file", relocated)
    monkeypatch.setattr(LocationStore, "put", put)
    engine = host_state[0].database().engine
    event.listen(engine, "before_cursor_execute", note)
    yield seen
    event.remove(engine, "before_cursor_execute", note)


def at_head(state: MarkersState, root: Path, ids: list[str]) -> dict[str, tuple[str, Location | None]]:
    head = git(root, "rev-parse", "HEAD").strip()
    stored = state.locations().at(head, ids, near=root.as_uri() + "/")
    return {i: (PurePath(s.uri).name, s.location) for i, s in stored.items()}


def test_each_batch_is_stored_as_its_answers_come_in_before_the_last_batch_is_relocated(
    repo: Path, host_state: tuple[ThreadHost, MarkersState], events: list[tuple[str, Any]]
) -> None:
    _host, state = host_state
    made = seed(state, repo)
    state.sync.sync_repo(repo)
    for name in NAMES:
        path = repo / name
        path.write_text(f"# {name} moved down\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    commit_all(repo, "c1: every file one line down")
    events.clear()
    state.sync.sync_repo(repo)
    relocated = [n for n, (what, _) in enumerate(events) if what == "relocated"]
    puts = [(n, ids) for n, (what, ids) in enumerate(events) if what == "put"]
    assert [events[n][1] for n in relocated] == [f"# {name} moved down" for name in NAMES]
    assert puts[0][0] < relocated[-1]  # the first batch is stored while later ones are still to relocate
    batches = [NAMES[k : k + computing.FILES_PER_BATCH] for k in range(0, len(NAMES), computing.FILES_PER_BATCH)]
    expected = [sorted(f"{PurePath(name).stem}-{k}" for name in batch for k in range(PER_FILE)) for batch in batches]
    assert [ids for _, ids in puts] == expected  # a store per batch, with that batch's markers
    assert [what for what, _ in events if what == "insert"] == ["insert"] * len(batches)
    assert all(many for what, many in events if what == "insert")  # one executemany each
    assert at_head(state, repo, list(made)) == {
        i: (f"{i.partition('-')[0]}.py", Location(loc.line_start + 1, 1, loc.line_end + 1, loc.col_end))
        for i, loc in made.items()
    }


def test_a_block_gone_from_its_file_waits_for_every_batch_and_is_found_in_the_last(
    repo: Path,
    host_state: tuple[ThreadHost, MarkersState],
    events: list[tuple[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first file's first function is cut and pasted into the last file: its marker is stored after the
    last batch is relocated, at the function's place in the last file; the first file's other markers go with
    its batch. The first file, stored in twice, is placed (its repository and path found) once."""
    _host, state = host_state
    made = seed(state, repo)
    state.sync.sync_repo(repo)
    first, last = repo / NAMES[0], repo / NAMES[-1]
    text = first.read_text(encoding="utf-8")
    cut = text[: text.index("def f00_1")]
    first.write_text(text[len(cut) :], encoding="utf-8")
    last.write_text(last.read_text(encoding="utf-8") + cut, encoding="utf-8")
    commit_all(repo, "c1: f00_0 moves to the last file")
    events.clear()
    placed: list[str] = []
    real_keys = Places.keys

    def keys(self: Places, uris: Iterable[str], *args: Any) -> dict[str, FileKey | None]:
        uris = list(uris)
        placed.extend(uris)
        return real_keys(self, uris, *args)

    monkeypatch.setattr(Places, "keys", keys)
    state.sync.sync_repo(repo)
    assert sorted(placed) == sorted({*placed})  # each file placed once, however many batches store in it
    assert (repo / NAMES[0]).as_uri() in placed
    relocated = [n for n, (what, _) in enumerate(events) if what == "relocated"]
    puts = [(n, ids) for n, (what, ids) in enumerate(events) if what == "put"]
    assert puts[0][0] < relocated[-1]
    assert "f00-1" in puts[0][1]
    assert "f00-0" not in puts[0][1]
    (stored_at,) = [n for n, ids in puts if "f00-0" in ids]
    assert stored_at > relocated[-1]
    functions = module(PurePath(NAMES[-1]).stem).count("\ndef ") + 1
    start = 5 * functions + 1  # where the pasted function starts in the last file
    assert at_head(state, repo, ["f00-0", "f00-1"]) == {
        "f00-0": (NAMES[-1], Location(start, 1, start + 2, made["f00-0"].col_end)),
        "f00-1": (NAMES[0], Location(1, 1, 3, made["f00-1"].col_end)),
    }
