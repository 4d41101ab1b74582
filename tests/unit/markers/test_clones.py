"""The clones a server works in, in-process on a real SQLite database and real clones: its own clone's rows kept
by uri get their (repository, path) once — and again after a failed try —, the workspace's clone is known before
any of its files is asked about, and an uncommitted location is this clone's only when its file is inside it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.helpers import commit_all, git
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.clones import Clones, in_clone
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.keys import Touched
from tether_lsp.handlers.markers.places import FileKey, Places
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.server.settings import SettingsSchema
from tether_lsp.server.storage import Database, StorageError
from tether_lsp.server.thread_host import ThreadHost

CODE = "def f():\n    return 1\n"


@pytest.fixture
def two_clones(tmp_path: Path) -> tuple[Path, Path]:
    seed = tmp_path / "seed"
    (seed / "pkg").mkdir(parents=True)
    git(seed, "init", "-q", "-b", "main")
    (seed / "pkg" / "a.py").write_text(CODE)
    commit_all(seed, "init")
    alice, bob = (tmp_path / "alice" / "proj").resolve(), (tmp_path / "bob" / "proj").resolve()
    for where in (alice, bob):
        where.parent.mkdir(parents=True)
        git(tmp_path, "clone", "-q", str(seed), str(where))
    return alice, bob


@pytest.fixture
def host(two_clones: tuple[Path, Path]) -> Iterator[ThreadHost]:
    """A host whose workspace is bob's clone, on the SQLite file a server there opens."""
    served = ThreadHost(SettingsSchema().parse()[0], two_clones[1], {"markers": lambda: MIGRATIONS})
    yield served
    served.close()


def by_uri(db: Database, uri: str, marker_id: str, commit: str) -> None:
    """A row as an older version stored it: its file by uri only."""
    MarkerStore(db).insert(
        MarkerRecord(
            marker_id, uri, "note", "comment", CODE, commit, datetime.now(UTC), "Ada", "", Location(1, 1, 2, 13)
        )
    )


def keys(db: Database) -> dict[str, tuple[str | None, str | None]]:
    with db.transaction() as conn:
        rows = conn.execute(text("SELECT id, repo, path FROM tether_markers")).all()
    return {row.id: (row.repo, row.path) for row in rows}


def test_this_clones_rows_are_keyed_once_and_again_after_a_failed_try(
    host: ThreadHost, two_clones: tuple[Path, Path]
) -> None:
    alice, bob = two_clones
    head = git(bob, "rev-parse", "HEAD").strip()
    db = host.database()
    by_uri(db, (bob / "pkg" / "a.py").as_uri(), "bobs", head)
    by_uri(db, (alice / "pkg" / "a.py").as_uri(), "alices", head)  # another clone's: its own server keys it
    announced: list[list[Touched]] = []
    clones = Clones(host, Git(), lambda _conn, touched: announced.append(touched))
    repo = Places(Git()).identity(bob)
    assert repo is not None

    with db.transaction(write_lock=True) as conn:  # the database fails the first try
        conn.execute(text("ALTER TABLE tether_markers RENAME TO tether_markers_away"))
    with pytest.raises(StorageError):
        clones.adopt(bob)
    with db.transaction(write_lock=True) as conn:
        conn.execute(text("ALTER TABLE tether_markers_away RENAME TO tether_markers"))
    assert keys(db) == {"bobs": (None, None), "alices": (None, None)}

    clones.adopt(bob)  # the next request tries again
    assert keys(db) == {"bobs": (repo, "pkg/a.py"), "alices": (None, None)}
    assert announced == []  # on SQLite nobody is told: other servers read the file

    by_uri(db, (bob / "pkg" / "b.py").as_uri(), "later", head)
    clones.adopt(bob)  # once per database, clone and repository
    assert keys(db)["later"] == (None, None)
    clones.adopt(bob.parent)  # a folder that is no clone: nothing to adopt
    assert keys(db)["later"] == (None, None)


def test_the_workspace_clone_is_known_before_any_of_its_files_is_asked(
    host: ThreadHost, two_clones: tuple[Path, Path]
) -> None:
    alice, bob = two_clones
    key = Places(Git()).key((alice / "pkg" / "a.py").as_uri())
    assert key is not None
    clones = Clones(host, Git(), lambda _conn, _touched: None)
    assert clones.here([(alice / "pkg" / "a.py").as_uri()], [key]) == []  # no clone of that repository known
    clones.know_workspace()
    assert clones.here([(alice / "pkg" / "a.py").as_uri()], [key]) == [(bob / "pkg" / "a.py").as_uri()]
    assert clones.here(["file:///x/n.txt"], [None]) == ["file:///x/n.txt"]  # a file kept by uri as it is
    assert clones.here(["file:///x/o.py"], [FileKey("0" * 40, "o.py")]) == []  # a repository with no clone here


def test_an_uncommitted_location_is_this_clones_only_when_its_file_is_inside_it(
    two_clones: tuple[Path, Path], tmp_path: Path
) -> None:
    alice, bob = two_clones
    assert in_clone((bob / "pkg" / "a.py").as_uri(), bob)
    assert in_clone((bob / "new" / "not-yet.py").as_uri(), bob)
    assert not in_clone((alice / "pkg" / "a.py").as_uri(), bob)
    assert not in_clone((bob.parent / "proj2" / "a.py").as_uri(), bob)  # a sibling whose name starts alike
    link = tmp_path / "link-to-bob"
    link.symlink_to(bob)
    assert in_clone((link / "pkg" / "a.py").as_uri(), bob)  # the same folder under another name
    assert in_clone((bob / "pkg" / "a.py").as_uri(), link)
    assert not in_clone("untitled:Untitled-1", bob)
