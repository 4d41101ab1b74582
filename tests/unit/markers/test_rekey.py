"""The schema step that keys files by (repository, path), in-process on a real SQLite database made with the
previous schema and real git repositories: what this machine can place gets its key (the markers, then their
stored locations), the rest keeps its uri with the reason in the log, running it twice changes nothing, and a
server's adoption keys only its own clone's rows."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from tests.helpers import commit_all, git
from tether_lsp.handlers.markers import rekey
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.places import FileKey, Places
from tether_lsp.server.storage import Database

# The two keyed tables as schema steps 1 to 3 made them: files by uri only.
OLD_TABLES = (
    "CREATE TABLE tether_markers (id VARCHAR(64) PRIMARY KEY, uri TEXT NOT NULL, note TEXT NOT NULL,"
    " kind VARCHAR(20) NOT NULL, code TEXT NOT NULL, commit_hash_when_created VARCHAR(64),"
    " created_at DATETIME NOT NULL, author TEXT NOT NULL, base_text TEXT NOT NULL, line_start INTEGER NOT NULL,"
    " col_start INTEGER NOT NULL, line_end INTEGER NOT NULL, col_end INTEGER NOT NULL)",
    "CREATE TABLE tether_marker_locations (marker_id VARCHAR(64) NOT NULL, commit_hash VARCHAR(64) NOT NULL,"
    " uri TEXT NOT NULL, line_start INTEGER, col_start INTEGER, line_end INTEGER, col_end INTEGER,"
    " missing_reason VARCHAR(40), derived_from VARCHAR(64), algorithm_version INTEGER NOT NULL,"
    " PRIMARY KEY (marker_id, commit_hash))",
)


@pytest.fixture
def old_db(tmp_path: Path) -> Iterator[Database]:
    db = Database.sqlite(tmp_path / "old.db")
    with db.transaction(write_lock=True) as conn:
        for statement in OLD_TABLES:
            conn.exec_driver_sql(statement)
    yield db
    db.close()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    root = (tmp_path / "proj").resolve()
    (root / "pkg").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "pkg" / "a.py").write_text("a = 1\n")
    return root, commit_all(root, "a")


def marker(db: Database, marker_id: str, uri: str, commit: str | None) -> None:
    with db.transaction(write_lock=True) as conn:
        conn.execute(
            text(
                "INSERT INTO tether_markers (id, uri, note, kind, code, commit_hash_when_created, created_at, author,"
                " base_text, line_start, col_start, line_end, col_end)"
                " VALUES (:id, :uri, 'n', 'comment', 'a = 1', :c, '2024-05-01 10:00:00', 'Ada', '', 1, 1, 1, 6)"
            ),
            {"id": marker_id, "uri": uri, "c": commit},
        )


def location(db: Database, marker_id: str, commit: str, uri: str) -> None:
    with db.transaction(write_lock=True) as conn:
        conn.execute(
            text(
                "INSERT INTO tether_marker_locations (marker_id, commit_hash, uri, line_start, col_start, line_end,"
                " col_end, missing_reason, derived_from, algorithm_version) VALUES (:m, :c, :uri, 1, 1, 1, 6, NULL, :c, 2)"
            ),
            {"m": marker_id, "c": commit, "uri": uri},
        )


def keyed(db: Database, table: str, column: str) -> dict[str, tuple[str | None, str | None]]:
    with db.transaction() as conn:
        rows = conn.execute(text(f"SELECT {column}, repo, path FROM {table}")).all()
    return {row[0]: (row.repo, row.path) for row in rows}


def test_the_step_keys_what_this_machine_can_place_and_says_why_not_for_the_rest(
    old_db: Database, repo: tuple[Path, str], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root, head = repo
    identity = Places(Git()).identity(root)
    plain = tmp_path / "plain"
    plain.mkdir()
    in_repo = (root / "pkg" / "a.py").as_uri()
    marker(old_db, "placed", in_repo, head)
    marker(old_db, "new-file", (root / "pkg" / "a.py").as_uri(), None)  # no commit: keyed as the file exists
    marker(old_db, "gone-file", (root / "pkg" / "gone.py").as_uri(), None)
    marker(old_db, "strange-commit", in_repo, "f" * 40)
    for k in range(7):
        marker(old_db, f"outside-{k}", (plain / f"n{k}.txt").as_uri(), None)
    marker(old_db, "elsewhere", "file:///another/machine/a.py", head)
    location(old_db, "placed", head, in_repo)
    location(old_db, "placed", "e" * 40, "file:///another/machine/a.py")  # not in a clone here
    location(old_db, "outside-0", "d" * 40, (plain / "n0.txt").as_uri())  # its marker has no key

    with caplog.at_level(logging.INFO, logger=rekey.__name__), old_db.transaction(write_lock=True) as conn:
        rekey.add_keys(conn)

    for table in rekey.KEYED_TABLES:
        assert {"repo", "path"} <= {c["name"] for c in inspect(old_db.engine).get_columns(table)}
    got = keyed(old_db, "tether_markers", "id")
    assert got.pop("placed") == got.pop("new-file") == (identity, "pkg/a.py")
    assert set(got.values()) == {(None, None)}
    located = keyed(old_db, "tether_marker_locations", "commit_hash")
    assert located == {head: (identity, "pkg/a.py"), "e" * 40: (None, None), "d" * 40: (None, None)}

    said = [r.getMessage() for r in caplog.records]
    assert "markers: 2 marker(s) and 1 stored location(s) are now kept by repository and path" in said
    assert f"markers: 1 marker(s) keep their file's uri (its creation commit is not in the repository at {root}):" in (
        "\n".join(said)
    )
    outside = next(s for s in said if "(not inside a git repository)" in s)
    assert outside.startswith("markers: 7 marker(s) keep their file's uri") and outside.endswith(" and 2 more")
    assert any("(no such folder on this machine): file:///another/machine/a.py" in s for s in said)
    assert any("(no such file on this machine)" in s for s in said)

    caplog.clear()
    with old_db.transaction(write_lock=True) as conn:  # again: nothing to add, nothing more to key
        rekey.add_keys(conn)
    assert keyed(old_db, "tether_markers", "id")["placed"] == (identity, "pkg/a.py")
    assert not any("are now kept" in r.getMessage() for r in caplog.records)


def test_adoption_keys_only_the_rows_in_this_clone(old_db: Database, repo: tuple[Path, str], tmp_path: Path) -> None:
    root, head = repo
    other = (tmp_path / "other").resolve()
    git(tmp_path, "clone", "-q", str(root), str(other))
    with old_db.transaction(write_lock=True) as conn:
        rekey.add_keys(conn)  # an empty database gets its columns
    marker(old_db, "mine", (root / "pkg" / "a.py").as_uri(), head)
    marker(old_db, "theirs", (other / "pkg" / "a.py").as_uri(), head)
    location(old_db, "mine", head, (root / "pkg" / "a.py").as_uri())
    location(old_db, "theirs", head, (other / "pkg" / "a.py").as_uri())
    places = Places(Git())
    clone = places.clone_at(root)
    assert clone is not None

    with old_db.transaction(write_lock=True) as conn:
        touched = rekey.adopt(conn, places, clone)

    key = FileKey(clone.repo, "pkg/a.py")
    assert touched == [((root / "pkg" / "a.py").as_uri(), key)]
    assert keyed(old_db, "tether_markers", "id") == {"mine": (key.repo, key.path), "theirs": (None, None)}
    with old_db.transaction() as conn:
        rows = conn.execute(text("SELECT marker_id, repo FROM tether_marker_locations")).all()
    assert {row.marker_id: row.repo for row in rows} == {"mine": key.repo, "theirs": None}
