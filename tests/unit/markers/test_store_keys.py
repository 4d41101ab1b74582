"""Files stored by (repository, path) on both engines, with two clones of one repository at different paths
as two servers see them: what one writes the other finds in its own clone; keys survive what must not
change them; the files of another server's change are named in this server's clones."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.helpers import commit_all, git, git_move
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.clones import Clones
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.location_store import LocationStore, StoredLocation
from tether_lsp.handlers.markers.places import FileKey, Places
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.handlers.markers.team import payload_files
from tether_lsp.server.storage import Database

CODE = "def f():\n    return 1\n"
LOC = Location(1, 1, 2, 13)


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    db = (
        Database.sqlite(tmp_path / "m.db")
        if request.param == "sqlite"
        else Database(request.getfixturevalue("postgres_url"))
    )
    db.migrate({"markers": MIGRATIONS})
    yield db
    db.close()


@pytest.fixture
def clones(tmp_path: Path) -> tuple[Path, Path]:
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    (seed / "pkg").mkdir()
    (seed / "pkg" / "a.py").write_text(CODE, encoding="utf-8")
    commit_all(seed, "init")
    alice, bob = tmp_path / "alice" / "proj", tmp_path / "bob" / "deeper" / "proj"
    for where in (alice, bob):
        where.parent.mkdir(parents=True)
        git(tmp_path, "clone", "-q", str(seed), str(where))
    return alice, bob


def record(uri: str, commit: str | None = "c0", marker_id: str = "m1") -> MarkerRecord:
    return MarkerRecord(marker_id, uri, "note", "comment", "code", commit, datetime.now(UTC), "Ada", "", LOC)


def test_what_one_clone_writes_the_other_finds_in_its_own_clone(db: Database, clones: tuple[Path, Path]) -> None:
    alice, bob = clones
    mine, theirs = MarkerStore(db, places=Places(Git())), MarkerStore(db, places=Places(Git()))
    a_uri, b_uri = (alice / "pkg" / "a.py").as_uri(), (bob / "pkg" / "a.py").as_uri()
    mine.insert(record(a_uri), StoredLocation("m1", "c0", a_uri, LOC, None, "c0"))
    (found,) = theirs.for_uri(b_uri)
    root = git(alice, "rev-list", "--max-parents=0", "HEAD").strip()
    assert (found.uri, found.key) == (b_uri, FileKey(root, "pkg/a.py"))
    assert [r.uri for r in theirs.under(bob.as_uri() + "/")] == [b_uri]
    assert theirs.uris_under(bob.as_uri() + "/") == [b_uri]
    assert theirs.uris_under((bob / "pkg").as_uri() + "/") == [b_uri]
    assert theirs.uris_under((bob / "other").as_uri() + "/") == []
    got = theirs.get("m1")
    assert got is not None and got.uri == b_uri  # named in the clone this server works in
    locations = LocationStore(db, theirs.keys.places)
    assert locations.at("c0", ["m1"])["m1"].uri == b_uri
    assert locations.ids_in_files("c0", [b_uri]) == ["m1"]
    assert locations.files_under("c0", bob.as_uri() + "/") == [b_uri]
    assert locations.origin(["m1"], {"m1": "c0"})["m1"].uri == b_uri


def test_a_key_stays_unless_the_uri_changes(db: Database, clones: tuple[Path, Path], tmp_path: Path) -> None:
    alice, bob = clones
    mine = MarkerStore(db, places=Places(Git()))
    a_uri = (alice / "pkg" / "a.py").as_uri()
    mine.insert(record(a_uri))
    key = mine.for_uri(a_uri)[0].key
    # a server with no clone of the repository reads the marker by id and changes its note: it cannot name
    # the file, and the key stands
    stranger = MarkerStore(db, places=Places(Git()))
    read = stranger.get("m1")
    assert read is not None and read.uri == a_uri  # the stored uri: it has no clone to name it in
    alice.rename(tmp_path / "alice-gone")  # even its own clone is gone from this machine now
    stranger.replace(replace(read, note="edited"))
    (tmp_path / "alice-gone").rename(alice)
    (kept,) = MarkerStore(db, places=Places(Git())).for_uri((bob / "pkg" / "a.py").as_uri())
    assert (kept.note, kept.key) == ("edited", key)
    # a rename in a clone changes the path every clone finds it by
    git_move(bob, "pkg/a.py", "pkg/b.py")
    theirs = MarkerStore(db, places=Places(Git()))
    theirs.replace(replace(kept, uri=(bob / "pkg" / "b.py").as_uri()))
    (moved,) = mine.for_uri((alice / "pkg" / "b.py").as_uri())
    assert moved.key == FileKey(key.repo if key else "", "pkg/b.py")
    assert mine.for_uri(a_uri) == []


def test_a_row_kept_by_uri_is_found_by_its_uri_only(db: Database, clones: tuple[Path, Path]) -> None:
    alice, bob = clones
    plain = MarkerStore(db)  # no places: by uri, as the previous schema stored every row
    a_uri = (alice / "pkg" / "a.py").as_uri()
    plain.insert(record(a_uri, marker_id="old"))
    assert [r.id for r in MarkerStore(db, places=Places(Git())).for_uri(a_uri)] == ["old"]
    assert MarkerStore(db, places=Places(Git())).for_uri((bob / "pkg" / "a.py").as_uri()) == []


class _Host:
    workspace_root = None

    def __init__(self, db: Database) -> None:
        self.db = db

    def database(self) -> Database:
        return self.db


def test_adoption_keys_this_clones_rows_once(db: Database, clones: tuple[Path, Path]) -> None:
    alice, bob = clones
    head = git(alice, "rev-parse", "HEAD").strip()
    plain = MarkerStore(db)
    plain.insert(record((alice / "pkg" / "a.py").as_uri(), head, "a"))
    plain.insert(record((bob / "pkg" / "a.py").as_uri(), head, "b"))
    plain.insert(record((bob / "pkg" / "a.py").as_uri(), "f" * 40, "stranger"))  # another repository's commit
    announced: list[list[tuple[str, FileKey | None]]] = []
    bobs = Clones(_Host(db), Git(), lambda _conn, touched: announced.append(touched))  # type: ignore[arg-type]
    bobs.adopt(bob)
    bobs.adopt(bob)  # once per database, clone and repository
    ids = {r.id for r in MarkerStore(db, places=bobs.places).for_uri((bob / "pkg" / "a.py").as_uri())}
    assert ids == {"b", "stranger"}  # its own row by key; the stranger's still by its uri
    mine = MarkerStore(db, places=Places(Git()))
    assert {r.id for r in mine.for_uri((alice / "pkg" / "a.py").as_uri())} == {"a", "b"}
    key = bobs.places.key((bob / "pkg" / "a.py").as_uri())
    assert announced == ([] if db.dialect == "sqlite" else [[((bob / "pkg" / "a.py").as_uri(), key)]])


def test_another_servers_files_are_named_in_this_servers_clones(clones: tuple[Path, Path], tmp_path: Path) -> None:
    alice, bob = clones
    clones_here = Clones(_Host(None), Git(), lambda *_: None)  # type: ignore[arg-type]
    key = clones_here.places.key((bob / "pkg" / "a.py").as_uri())
    assert key is not None
    outside = (tmp_path / "notes.txt").as_uri()
    uris = [(alice / "pkg" / "a.py").as_uri(), "file:///x/other.py", outside]
    got = clones_here.here(uris, [key, FileKey("0" * 40, "a"), None])
    assert got == sorted([(bob / "pkg" / "a.py").as_uri(), outside])  # not alice's uri; nothing of a stranger


def test_team_payloads_carry_keys_and_an_earlier_versions_are_read() -> None:
    assert payload_files({"uris": ["file:///a/x.py", "file:///n.txt"], "files": [["r" * 40, "x.py"], None]}) == (
        ["file:///a/x.py", "file:///n.txt"],
        [FileKey("r" * 40, "x.py"), None],
    )
    assert payload_files({"uris": ["file:///a/x.py"]}) == (["file:///a/x.py"], [None])
    with pytest.raises(ValueError):
        payload_files({"uris": ["file:///a/x.py"], "files": []})
