"""The work of a HEAD change, in-process on real git repositories and the SQLite file of a ThreadHost: which files
are relocated (only those the checkout changed), how often each file's lines are mapped (once), where the mapping
runs (the worker processes; this thread when the loop is gone), and what the stores pay per row read.

Each test counts calls with a spy; none measures time.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import Any

import pytest

from tests.helpers import commit_all, git
from tether_lsp.handlers.markers import calculator, line_map, offload, relocate
from tether_lsp.handlers.markers.calculator import Location, split_lines
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.keys import Keys
from tether_lsp.handlers.markers.location_store import LocationStore, StoredLocation
from tether_lsp.handlers.markers.places import Places
from tether_lsp.handlers.markers.settings import MarkersSettings
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.server.settings import SettingsSchema
from tether_lsp.server.storage import Database
from tether_lsp.server.syntax import GrammarLimits
from tether_lsp.server.thread_host import ThreadHost

FILES = ("a.py", "b.py", "c.py", "d.py", "e.py")
PER_FILE = 3


def module(name: str, functions: int = 12) -> str:
    return "".join(f"def {name}_{k}(x):\n    total = x * {k}\n    return total + {k}\n\n\n" for k in range(functions))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name in FILES:
        (root / name).write_text(module(name[0]), encoding="utf-8")
    commit_all(root, "c0")
    return root


def served(root: Path, processes: int = 0) -> tuple[ThreadHost, MarkersState]:
    schema = SettingsSchema()
    schema.register("markers", MarkersSettings)
    settings, problems = schema.parse({"limits": {"processes": processes}})
    assert problems == []
    host = ThreadHost(settings, root, {"markers": lambda: MIGRATIONS})
    return host, MarkersState(host)


def seed(state: MarkersState, root: Path, names: Sequence[str] = FILES) -> dict[str, Location]:
    """Three markers per file, each on a whole function, made at HEAD; their locations there."""
    head = git(root, "rev-parse", "HEAD").strip()
    rows: list[tuple[MarkerRecord, StoredLocation | None]] = []
    made = {}
    for name in names:
        uri = (root / name).as_uri()
        for k in range(PER_FILE):
            marker_id = f"{PurePath(name).stem}{k}"
            loc = Location(5 * k + 1, 1, 5 * k + 3, len(f"    return total + {k}") + 1)
            made[marker_id] = loc
            record = MarkerRecord(marker_id, uri, "note", "comment", "", head, datetime.now(UTC), "Ada", "", loc)
            rows.append((record, StoredLocation(marker_id, head, uri, loc, None, head)))
    state.markers().insert_many(rows)
    return made


def at(state: MarkersState, root: Path) -> dict[str, tuple[str, Location | None]]:
    head = git(root, "rev-parse", "HEAD").strip()
    ids = [f"{name[0]}{k}" for name in FILES for k in range(PER_FILE)]
    stored = state.locations().at(head, ids, near=root.as_uri() + "/")
    return {i: (PurePath(s.uri).name, s.location) for i, s in stored.items()}


def down(made: dict[str, Location], letter: str, lines: int) -> dict[str, tuple[str, Location | None]]:
    """Where the markers of one file are once ``lines`` lines were added above them."""
    return {
        i: (f"{letter}.py", Location(loc.line_start + lines, 1, loc.line_end + lines, loc.col_end))
        for i, loc in made.items()
        if i[0] == letter
    }


def shift(root: Path, name: str, lines: int) -> None:
    path = root / name
    path.write_text("".join(f"# added {n}\n" for n in range(lines)) + path.read_text(encoding="utf-8"), "utf-8")


@pytest.fixture
def relocated(monkeypatch: pytest.MonkeyPatch) -> list[relocate.FileWork]:
    """Every file relocated in this process."""
    seen: list[relocate.FileWork] = []
    real = relocate.relocate_file

    def spy(work: relocate.FileWork) -> relocate.FileDone:
        seen.append(work)
        return real(work)

    monkeypatch.setattr(relocate, "relocate_file", spy)
    return seen


def test_a_head_change_relocates_only_the_files_it_changed(repo: Path, relocated: list[relocate.FileWork]) -> None:
    host, state = served(repo)
    try:
        made = seed(state, repo)
        assert state.sync.sync_repo(repo) is None  # the first look: HEAD remembered, nothing computed
        shift(repo, "b.py", 4)
        commit_all(repo, "c1: four lines above b.py")
        state.sync.sync_repo(repo)
        assert len(relocated) == len(FILES)  # the first sync maps every file (the unchanged ones cost no diff)
        expected: dict[str, tuple[str, Location | None]] = {i: (f"{i[0]}.py", loc) for i, loc in made.items()}
        expected |= down(made, "b", 4)
        assert at(state, repo) == expected
        relocated.clear()
        shift(repo, "c.py", 1)
        commit_all(repo, "c2: a line above c.py")
        moved = state.sync.sync_repo(repo)
        assert [w.new for w in relocated] == [(repo / "c.py").read_text(encoding="utf-8")]  # b.py's kept from c1
        assert moved is not None and len(moved) == len(FILES)  # every file's markers are told (as before)
        expected |= down(made, "c", 1)
        assert at(state, repo) == expected
    finally:
        host.close()


def test_a_location_found_in_another_file_is_computed_again(repo: Path, relocated: list[relocate.FileWork]) -> None:
    """A block that left its file was found among the files the range changed: at another HEAD those differ, so
    its location is not kept even though its own file did not change."""
    host, state = served(repo)
    try:
        seed(state, repo)
        state.sync.sync_repo(repo)
        text = (repo / "a.py").read_text(encoding="utf-8")
        block = "".join(text.splitlines(keepends=True)[0:5])
        (repo / "a.py").write_text(text.replace(block, ""), encoding="utf-8")
        (repo / "f.py").write_text("import os\n\n\n" + block, encoding="utf-8")
        commit_all(repo, "c1: a_0 moves to f.py")
        state.sync.sync_repo(repo)
        assert at(state, repo)["a0"] == ("f.py", Location(4, 1, 6, len("    return total + 0") + 1))
        relocated.clear()
        shift(repo, "b.py", 2)  # a.py stays as it is at c1
        commit_all(repo, "c2: b.py changes")
        state.sync.sync_repo(repo)
        assert sorted(len(w.locations) for w in relocated) == [1, PER_FILE]  # a_0 again (not a_1, a_2), b.py
        assert at(state, repo)["a0"] == ("f.py", Location(4, 1, 6, len("    return total + 0") + 1))
    finally:
        host.close()


def test_each_changed_file_is_mapped_once_for_its_markers_and_the_moved_block_search(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A block deleted from b.py is searched for in the lines the range added to every changed file: b.py's come
    from the mapping its markers were carried through, c.py's (no marker moves there) from one mapping of it."""
    diffs: list[tuple[int, int]] = []
    real = line_map.line_diff

    def spy(old: Sequence[str], new: Sequence[str]) -> list[line_map.Opcode]:
        diffs.append((len(old), len(new)))
        return real(old, new)

    monkeypatch.setattr(line_map, "line_diff", spy)
    monkeypatch.setattr(calculator, "line_diff", spy)
    host, state = served(repo)
    try:
        seed(state, repo)
        state.sync.sync_repo(repo)
        lines = (repo / "b.py").read_text(encoding="utf-8").splitlines(keepends=True)
        (repo / "b.py").write_text("".join(lines[5:]), encoding="utf-8")  # b_0 is gone
        shift(repo, "c.py", 1)
        commit_all(repo, "c1")
        state.sync.sync_repo(repo)
        b_now, c_now = (len(split_lines((repo / n).read_text(encoding="utf-8"))) for n in ("b.py", "c.py"))
        assert sorted(new for _, new in diffs) == sorted([b_now, c_now])
        assert at(state, repo)["b0"] == ("b.py", None)
    finally:
        host.close()


def test_the_files_are_relocated_in_a_worker_process(
    repo: Path, relocated: list[relocate.FileWork], monkeypatch: pytest.MonkeyPatch
) -> None:
    host, state = served(repo, processes=1)
    asked: list[tuple[Callable[..., Any], int]] = []
    real = host.run_in_process

    async def spy(fn: Callable[..., Any], *args: Any) -> Any:
        asked.append((fn, len(args[0])))
        return await real(fn, *args)

    monkeypatch.setattr(host, "run_in_process", spy)
    try:
        made = seed(state, repo)
        state.sync.sync_repo(repo)
        for name in FILES:
            shift(repo, name, 2)
        commit_all(repo, "c1: every file shifts")
        state.sync.sync_repo(repo)
        assert relocated == []  # none in this process
        assert asked == [(relocate.relocate_wire, len(FILES))]
        assert host.processes.pids()
        assert at(state, repo) == {
            i: (f"{i[0]}.py", Location(loc.line_start + 2, 1, loc.line_end + 2, loc.col_end)) for i, loc in made.items()
        }
    finally:
        host.close()


def test_a_sync_whose_loop_is_gone_relocates_in_its_own_thread(
    repo: Path, relocated: list[relocate.FileWork], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server ending after a signal waits for its workers without running its loop: a sync waiting for the
    worker processes through that loop would never end."""
    monkeypatch.setattr(offload, "BEAT_S", 0.01)
    monkeypatch.setattr(offload, "LOOP_GONE_S", 0.05)
    host, state = served(repo, processes=1)
    try:
        seed(state, repo)
        state.sync.sync_repo(repo)
        shift(repo, "a.py", 1)
        commit_all(repo, "c1")
        monkeypatch.setattr(host, "call_on_loop", lambda fn, *args: None)  # the loop runs nothing any more
        ended = threading.Thread(target=state.sync.sync_repo, args=(repo,), daemon=True)
        ended.start()
        ended.join(timeout=60)
        assert not ended.is_alive()
        assert len(relocated) == len(FILES)
        assert at(state, repo)["a0"][1] == Location(2, 1, 4, len("    return total + 0") + 1)
    finally:
        host.close()


@pytest.fixture
def uris_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    made: list[str] = []
    real = PurePath.as_uri

    def spy(self: PurePath) -> str:
        made.append(str(self))
        return real(self)

    monkeypatch.setattr(PurePath, "as_uri", spy)
    return made


def test_reading_many_rows_of_a_file_names_it_once(repo: Path, tmp_path: Path, uris_made: list[str]) -> None:
    """Team mode stores files by (repository, path): every row read names its file as a uri of this clone, which
    pathlib makes in about 50 us: a HEAD change reading 10,000 markers paid it for each, twice."""
    db = Database.sqlite(tmp_path / "m.db")
    db.migrate({"markers": MIGRATIONS})
    places = Places(Git())
    store = MarkerStore(db, places=places)
    head = git(repo, "rev-parse", "HEAD").strip()
    uri = (repo / "a.py").as_uri()
    loc = Location(1, 1, 2, 5)
    rows: list[tuple[MarkerRecord, StoredLocation | None]] = [
        (
            MarkerRecord(f"m{n}", uri, "n", "comment", "", head, datetime.now(UTC), "Ada", "", loc),
            StoredLocation(f"m{n}", head, uri, loc, None, head),
        )
        for n in range(300)
    ]
    store.insert_many(rows)
    uris_made.clear()
    found = store.under(repo.as_uri() + "/")
    again = store.get_many([f"m{n}" for n in range(300)])
    assert {r.uri for r in found + again} == {uri}
    assert len(found) == len(again) == 300
    assert len(uris_made) <= 5  # the clone, the folder asked, the file: not one per row
    db.close()


def test_a_sync_reads_head_a_few_times_whatever_its_number_of_files(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Storing the locations names each file by (repository, path): the repository's identity was read, with its
    HEAD, once per file (200 reads in a sync of 200 files)."""
    names = [f"{letter}{n}.py" for letter in "fghij" for n in range(4)]
    for name in names:
        (repo / name).write_text(module(name[0]), encoding="utf-8")
    commit_all(repo, "c1: twenty more files")
    reads: list[Path] = []
    real = Git.head

    def spy(self: Git, root: Path) -> str | None:
        reads.append(root)
        return real(self, root)

    host, state = served(repo)
    try:
        seed(state, repo, [*FILES, *names])
        state.sync.sync_repo(repo)
        for name in [*FILES, *names]:
            shift(repo, name, 1)
        commit_all(repo, "c2: every file shifts")
        monkeypatch.setattr(Git, "head", spy)
        moved = state.sync.sync_repo(repo)
        assert moved is not None and len(moved) == len(FILES) + len(names)
        assert len(reads) <= 4  # the sync's, the clone adopted, the folder's markers, the stored files' keys
    finally:
        host.close()


def plain(value: object) -> bool:
    """Whether a value is made of builtins only (what pickles without running Python code per object)."""
    if isinstance(value, (tuple, list)):
        return all(plain(v) for v in value)
    if isinstance(value, dict):
        return all(plain(k) and plain(v) for k, v in value.items())
    return value is None or type(value) in (str, int, bool, float)


def test_the_worker_process_answers_in_plain_values_equal_to_this_threads(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frozen slotted dataclasses unpickle field by field through Python code, on the serving interpreter's result
    thread: the works go and the answers come back as tuples, and once rebuilt they are exactly what this thread computes."""
    host, state = served(repo, processes=1)
    calls: list[tuple[Any, Any]] = []
    real = host.run_in_process

    async def spy(fn: Callable[..., Any], *args: Any) -> Any:
        calls.append((args[0], await real(fn, *args)))
        return calls[-1][1]

    monkeypatch.setattr(host, "run_in_process", spy)
    try:
        seed(state, repo)
        state.sync.sync_repo(repo)
        for n, name in enumerate(FILES):
            shift(repo, name, n + 1)
        text = (repo / "c.py").read_text(encoding="utf-8")
        (repo / "c.py").write_text(text.replace("def c_1(x):", 'def c_1(x, y=2):\n    """grown"""'), "utf-8")
        commit_all(repo, "c1: every file shifts, one function grows")
        state.sync.sync_repo(repo)
        assert calls and all(plain(asked) and plain(answer) for asked, answer in calls)
        works = [
            relocate.FileWork(
                old, new, {k: Location(*v) for k, v in at.items()}, language, GrammarLimits(*limits), product
            )
            for asked, _ in calls
            for old, new, at, language, limits, product in asked
        ]
        assert len(works) == len(FILES)
        in_thread = relocate.in_thread(works)
        assert [relocate.from_wire(done) for _, answer in calls for done in answer] == in_thread
        assert any(r.content_changed for done in in_thread for r in done.results.values())
    finally:
        host.close()


def test_reading_many_rows_of_a_file_places_it_once(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A HEAD sync reads every marker and its locations (10,000 rows in a few hundred files): each row's file was
    mapped from (repository, path) to this clone's uri on its own."""
    db = Database.sqlite(tmp_path / "m.db")
    db.migrate({"markers": MIGRATIONS})
    places = Places(Git())
    store, locations = MarkerStore(db, places=places), LocationStore(db, places)
    head = git(repo, "rev-parse", "HEAD").strip()
    uri = (repo / "a.py").as_uri()
    loc = Location(1, 1, 2, 5)
    ids = [f"m{n}" for n in range(300)]
    store.insert_many(
        [
            (
                MarkerRecord(i, uri, "n", "comment", "", head, datetime.now(UTC), "Ada", "", loc),
                StoredLocation(i, head, uri, loc, None, head),
            )
            for i in ids
        ]
    )
    placed: list[str] = []
    real_uri, real_in_folder = Places.uri, Keys.in_folder

    def spy_uri(self: Places, key: Any, near: str | None = None) -> str | None:
        placed.append(key.path)
        return real_uri(self, key, near)

    def spy_in_folder(r: Any, covered: Any) -> str | None:
        placed.append(r["path"])
        return real_in_folder(r, covered)

    monkeypatch.setattr(Places, "uri", spy_uri)
    monkeypatch.setattr(Keys, "in_folder", staticmethod(spy_in_folder))
    found = store.under(repo.as_uri() + "/")
    origins = locations.origin(ids, {i: head for i in ids}, near=repo.as_uri() + "/")
    stored = locations.at(head, ids, near=repo.as_uri() + "/")
    assert {r.uri for r in found} == {s.uri for s in [*origins.values(), *stored.values()]} == {uri}
    assert len(found) == len(origins) == len(stored) == 300
    assert placed == ["a.py"] * 3  # once per read, not once per row
    db.close()


class _Clock:
    now = 0.0

    def monotonic(self) -> float:
        return self.now


def test_answers_waited_for_long_after_they_were_asked_for_are_taken_from_the_worker_process(
    repo: Path, relocated: list[relocate.FileWork], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync's pipeline asks for a batch, then comes back for its answers after its other batches: under load
    that was more than LOOP_GONE_S later, and the waiting thread took the loop's silence since the batch was asked
    for as the loop being gone, relocating the batch a second time in the serving process (its GIL)."""
    clock = _Clock()
    monkeypatch.setattr(offload, "time", clock)
    monkeypatch.setattr(offload, "BEAT_S", 0.01)
    host, _state = served(repo, processes=1)
    release = threading.Event()
    beats: list[float] = []
    real_run, real_answered = host.run_in_process, offload._Calls._answered

    async def held(fn: Callable[..., Any], *args: Any) -> Any:
        await asyncio.to_thread(release.wait, 60)
        return await real_run(fn, *args)

    def answered(self: offload._Calls) -> None:
        beats.append(clock.now)
        if len(beats) >= 3:  # asked for, then the thread waited and the loop answered its beat
            release.set()
        real_answered(self)

    monkeypatch.setattr(host, "run_in_process", held)
    monkeypatch.setattr(offload._Calls, "_answered", answered)
    try:
        text = module("a")
        work = relocate.FileWork(text, "# one\n" + text, {"m": Location(1, 1, 3, 21)}, "python", None)
        pending = offload.starting(host)([work])
        asked = threading.Event()
        host.call_on_loop(asked.set)  # after the loop's start of the call (its callbacks run in order)
        assert asked.wait(30)
        clock.now = offload.LOOP_GONE_S + 5  # the pipeline came back for it much later
        (done,) = pending.results()
        assert relocated == []  # relocated once, in the worker process
        assert done.results["m"].location == Location(2, 1, 4, 21)
    finally:
        release.set()
        host.close()


def test_a_repository_s_markers_read_at_once_are_the_records_read_file_by_file(repo: Path) -> None:
    """``MarkerStore.under`` (a HEAD sync's read of every marker) unpacks its rows by position: its records are the
    ones ``for_uri`` builds through the row mapping, each field and the uri it was read as."""
    host, state = served(repo)
    try:
        seed(state, repo)
        markers = state.markers()
        (repo / "outside.txt").write_text("x\n", encoding="utf-8")
        loose = MarkerRecord(
            "loose",
            (repo / "outside.txt").as_uri(),
            "n",
            "todo",
            "",
            None,
            datetime.now(UTC),
            "Bo",
            "x\n",
            Location(1, 1, 1, 2),
        )
        markers.insert_many([(loose, None)])
        at_once = markers.under(repo.as_uri() + "/")
        by_file = [r for name in (*FILES, "outside.txt") for r in markers.for_uri((repo / name).as_uri())]
        assert len(at_once) == len(FILES) * PER_FILE + 1
        key = lambda r: r.id  # noqa: E731
        assert sorted(at_once, key=key) == sorted(by_file, key=key)
        assert [(r.read_as, r.key, r.created_at.tzinfo) for r in sorted(at_once, key=key)] == [
            (r.read_as, r.key, r.created_at.tzinfo) for r in sorted(by_file, key=key)
        ]
    finally:
        host.close()
