"""Following files that commits rename, on real git repositories and a real SQLite store.

What git reports (renames with edits, chains across commits and the index, a rename beside a copy, a rename
undone) and what the tracker makes of it (the marker's file at HEAD).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.helpers import commit_all, git, git_move
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.git_view import GitView
from tether_lsp.handlers.markers.location_store import LocationStore, StoredLocation
from tether_lsp.handlers.markers.store import MIGRATIONS, MarkerRecord, MarkerStore
from tether_lsp.handlers.markers.tracking import at_head, file_at_head
from tether_lsp.server.storage import Database

BODY = "".join(f"def f{k}(x):\n    return x + {k}  # café 東京\n\n\n" for k in range(12))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.py").write_text(BODY, encoding="utf-8")
    commit_all(root, "init")
    return root


def test_a_rename_with_edits_is_a_rename(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    git_move(repo, "a.py", "src/pkg/a.py")
    edited = BODY.replace("return x + 3", "return x - 3").replace("return x + 7", "return 7")
    (repo / "src/pkg/a.py").write_text("# moved\n" + edited, encoding="utf-8")
    commit_all(repo, "move with edits")
    assert Git().renames(repo, first) == {"a.py": "src/pkg/a.py"}


def test_renames_chain_across_commits_and_the_index(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    git_move(repo, "a.py", "b.py")
    commit_all(repo, "a -> b")
    git_move(repo, "b.py", "tests/c.py")
    commit_all(repo, "b -> tests/c")
    assert Git().renames(repo, first) == {"a.py": "tests/c.py"}
    git_move(repo, "tests/c.py", "d_v2.py")  # staged, not committed
    assert Git().renames(repo, first) == {"a.py": "d_v2.py", "tests/c.py": "d_v2.py"}
    assert Git().renames(repo, first, staged=False) == {"a.py": "tests/c.py"}


def test_a_rename_beside_a_copy_in_one_commit(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "copy.py").write_text(BODY + "def extra():\n    return 0\n", encoding="utf-8")
    git_move(repo, "a.py", "renamed.py")
    commit_all(repo, "rename a.py, copy it too")
    assert Git().renames(repo, first) == {"a.py": "renamed.py"}


def test_a_rename_undone_by_a_later_commit_is_no_rename(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    git_move(repo, "a.py", "_vendor/a.py")
    commit_all(repo, "vendor")
    git_move(repo, "_vendor/a.py", "a.py")
    commit_all(repo, "unvendor")
    assert Git().renames(repo, first) == {}


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[MarkerStore, LocationStore]]:
    db = Database.sqlite(tmp_path / "m.db")
    db.migrate({"markers": MIGRATIONS})
    yield MarkerStore(db), LocationStore(db)
    db.close()


def _marker(repo: Path, commit_hash: str) -> tuple[MarkerRecord, StoredLocation]:
    uri = (repo / "a.py").as_uri()
    loc = Location(21, 1, 22, 28)  # def f5, to the end of its last line
    record = MarkerRecord("m1", uri, "note", "comment", "", commit_hash, datetime.now(UTC), "Ada", "", loc)
    return record, StoredLocation("m1", commit_hash, uri, loc, None, commit_hash)


def _at(repo: Path, markers: MarkerStore, locations: LocationStore) -> tuple[StoredLocation, MarkerRecord]:
    head = git(repo, "rev-parse", "HEAD").strip()
    view = GitView(Git(), repo, head)
    try:
        result = at_head(markers.under(repo.as_uri() + "/"), markers, locations, view)
    finally:
        view.close()
    record = markers.get("m1")
    assert record is not None
    return result.stored["m1"], record


def test_the_marker_moves_with_its_file_and_back(repo: Path, stores: tuple[MarkerStore, LocationStore]) -> None:
    markers, locations = stores
    record, origin = _marker(repo, git(repo, "rev-parse", "HEAD").strip())
    markers.insert(record, origin)
    git_move(repo, "a.py", "_vendor/a.py")
    (repo / "_vendor/a.py").write_text("# vendored\n" + BODY, encoding="utf-8")
    commit_all(repo, "vendor with an edit")
    stored, moved = _at(repo, markers, locations)
    assert (stored.uri, stored.location) == ((repo / "_vendor/a.py").as_uri(), Location(22, 1, 23, 28))
    assert moved.uri == stored.uri
    git_move(repo, "_vendor/a.py", "a.py")
    (repo / "a.py").write_text(BODY, encoding="utf-8")
    commit_all(repo, "unvendor")
    stored, back = _at(repo, markers, locations)
    assert (stored.uri, stored.location) == ((repo / "a.py").as_uri(), Location(21, 1, 22, 28))
    assert back.uri == stored.uri  # the rename undone takes the marker back too


def test_a_staged_rename_keeps_the_marker_in_its_working_file(
    repo: Path, stores: tuple[MarkerStore, LocationStore]
) -> None:
    markers, locations = stores
    record, origin = _marker(repo, git(repo, "rev-parse", "HEAD").strip())
    markers.insert(record, origin)
    git_move(repo, "a.py", "b.py")  # staged: HEAD still has a.py, the working tree has b.py
    markers.replace(MarkerRecord(**{**record.__dict__, "uri": (repo / "b.py").as_uri()}))
    stored, kept = _at(repo, markers, locations)
    assert stored.uri == (repo / "a.py").as_uri()
    assert kept.uri == (repo / "b.py").as_uri()
    assert file_at_head(kept, stored, lambda uri: uri == kept.uri) == kept.uri


def test_the_file_at_head_is_where_the_stored_location_is_while_that_file_exists() -> None:
    loc = Location(1, 1, 2, 1)
    record = MarkerRecord("m", "file:///r/new.py", "n", "comment", "", "c1", datetime.now(UTC), "Ada", "", loc)
    back = StoredLocation("m", "c0", "file:///r/old.py", loc)
    on_disk = {"file:///r/old.py"}
    assert file_at_head(record, back, on_disk.__contains__) == "file:///r/old.py"
    assert file_at_head(record, back, set().__contains__) == "file:///r/new.py"  # not in the working tree
    assert file_at_head(record, None, on_disk.__contains__) == "file:///r/new.py"  # not computed yet
    gone = StoredLocation("m", "c0", "file:///r/old.py", None, "codeBlockDeleted")
    assert file_at_head(record, gone, on_disk.__contains__) == "file:///r/new.py"  # missing: its own file
