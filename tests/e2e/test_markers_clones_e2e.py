"""Team mode across clones, over stdio: clones of one repository at different paths (each teammate has their
own home folder) on one database — one PostgreSQL, or one SQLite file both servers name — see each other's
markers in their own files; unrelated repositories on the same database never do."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from sqlalchemy import create_engine, text

from tests.e2e.test_markers_e2e import SOURCE, create, listed, listed_until, rng
from tests.e2e.test_markers_git_e2e import listening
from tests.helpers import capabilities, commit_all, git, git_move, raw_request, server_config

TOTAL = rng(2, 0, 6, 12)  # def total(...) in SOURCE
SHIFTED = rng(5, 0, 9, 12)  # the same block under three new lines


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One database for the whole team: a SQLite file both servers name, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'team' / 'tether.db'}"
    return str(request.getfixturevalue("postgres_url"))


def sql(url: str, statement: str, **params: Any) -> list[Any]:
    """One statement on the team's database, as the test's own client (what the servers stored)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(statement), params)
            return list(result.all()) if result.returns_rows else []
    finally:
        engine.dispose()


def make_origin(where: Path, message: str = "init") -> Path:
    """A repository as on a server (bare), with calc.py committed."""
    seed = where.parent / f"{where.name}-seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q", "-b", "main")
    (seed / "calc.py").write_text(SOURCE, encoding="utf-8")
    commit_all(seed, message)
    git(where.parent, "clone", "-q", "--bare", str(seed), str(where))
    return where


def clone(origin: Path, where: Path) -> Path:
    where.parent.mkdir(parents=True, exist_ok=True)
    git(origin.parent, "clone", "-q", str(origin), str(where))
    return where


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    return make_origin(tmp_path / "origin.git")


@pytest.fixture
def alice(origin: Path, tmp_path: Path) -> Path:
    return clone(origin, tmp_path / "home" / "alice" / "src" / "proj")


@pytest.fixture
def bob(origin: Path, tmp_path: Path) -> Path:
    return clone(origin, tmp_path / "home" / "bob" / "proj")


class Servers:
    """The servers a test starts, each on its own clone, all on the team's database; all stopped at the end."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.started: list[Any] = []

    async def start(self, root: Path) -> Any:
        lsp: Any = await server_config(TETHER_DATABASE_URL=self.database_url).start()
        self.started.append(lsp)
        await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
        return lsp

    async def stop(self) -> None:
        for lsp in self.started:
            await lsp.shutdown_session()
            await lsp.stop()


@pytest.fixture
async def servers(database_url: str) -> AsyncIterator[Servers]:
    team = Servers(database_url)
    yield team
    await team.stop()


async def workspace(lsp: Any, root: Path) -> dict[str, list[str]]:
    """listWorkspace: each file's uri, relative to ``root``, with its markers' ids."""
    result = await raw_request(lsp, "tether/markers/listWorkspace", {"under": root.as_uri()})
    prefix = root.as_uri() + "/"
    return {f["uri"].removeprefix(prefix): [m["id"] for m in f["markers"]] for f in result["files"]}


def head_changed(lsp: Any, repo: Path) -> None:
    """What an editor watching ``.git/HEAD`` sends after a commit, a checkout or a pull."""
    event = types.FileEvent(uri=(repo / ".git" / "HEAD").as_uri(), type=types.FileChangeType.Changed)
    lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[event]))


def changed(lsp: Any) -> asyncio.Future[Any]:
    """The next ``tether/markers/didChange`` this client gets (ask before the change that sends it)."""
    return asyncio.ensure_future(lsp.wait_for_notification("tether/markers/didChange"))


async def uris_of(waiter: asyncio.Future[Any]) -> list[str]:
    params = await asyncio.wait_for(waiter, 15)
    return list(params["uris"] if isinstance(params, dict) else params.uris)


async def test_a_marker_made_in_one_clone_is_listed_in_the_other(
    alice: Path, bob: Path, servers: Servers, database_url: str
) -> None:
    mine, theirs = await servers.start(alice), await servers.start(bob)
    marker = await create(mine, (alice / "calc.py").as_uri(), TOTAL, "alice's note")
    (seen,) = await listed(theirs, (bob / "calc.py").as_uri())
    assert (seen["id"], seen["uri"], seen["range"], seen["note"]) == (
        marker["id"],
        (bob / "calc.py").as_uri(),
        TOTAL,
        "alice's note",
    )
    back = await create(theirs, (bob / "calc.py").as_uri(), rng(0, 0, 0, 9), "bob's note")
    assert [m["id"] for m in await listed(mine, (alice / "calc.py").as_uri())] == [back["id"], marker["id"]]
    assert await workspace(mine, alice) == {"calc.py": [back["id"], marker["id"]]}
    assert await workspace(theirs, bob) == {"calc.py": [back["id"], marker["id"]]}
    # stored once, by repository and path: no row names a clone's folder as the file
    rows = sql(database_url, "SELECT repo, path FROM tether_markers")
    root = git(alice, "rev-list", "--max-parents=0", "HEAD").strip()
    assert sorted(rows) == [(root, "calc.py"), (root, "calc.py")]


async def test_updates_and_deletes_reach_the_other_clone(alice: Path, bob: Path, servers: Servers) -> None:
    mine, theirs = await servers.start(alice), await servers.start(bob)
    mine_uri, their_uri = (alice / "calc.py").as_uri(), (bob / "calc.py").as_uri()
    marker = await create(mine, mine_uri, TOTAL, "first")
    updated = await raw_request(theirs, "tether/markers/update", {"id": marker["id"], "note": "bob was here"})
    assert (updated["uri"], updated["note"]) == (their_uri, "bob was here")
    (seen,) = await listed(mine, mine_uri)
    assert (seen["note"], seen["range"]) == ("bob was here", TOTAL)
    placed = await raw_request(theirs, "tether/markers/update", {"id": marker["id"], "range": rng(0, 0, 0, 9)})
    assert (placed["uri"], placed["range"]) == (their_uri, rng(0, 0, 0, 9))
    (seen,) = await listed(mine, mine_uri)
    assert (seen["uri"], seen["range"], seen["status"]) == (mine_uri, rng(0, 0, 0, 9), "located")
    assert await raw_request(mine, "tether/markers/delete", {"id": marker["id"]}) is None
    assert await listed(theirs, their_uri) == []
    assert await workspace(theirs, bob) == {}


@pytest.mark.postgres
async def test_did_change_reaches_the_other_clone_in_both_directions(alice: Path, bob: Path, postgres_url: str) -> None:
    team = Servers(postgres_url)
    try:
        mine, theirs = await team.start(alice), await team.start(bob)
        mine_uri, their_uri = (alice / "calc.py").as_uri(), (bob / "calc.py").as_uri()
        for lsp in (mine, theirs):
            await listening(lsp)
        waiter = changed(theirs)
        marker = await create(mine, mine_uri, TOTAL, "from alice")
        assert await uris_of(waiter) == [their_uri]  # bob's own file, not alice's uri
        waiter = changed(mine)
        await raw_request(theirs, "tether/markers/update", {"id": marker["id"], "note": "from bob"})
        assert await uris_of(waiter) == [mine_uri]
        (seen,) = await listed(mine, mine_uri)
        assert seen["note"] == "from bob"
        waiter = changed(mine)
        await raw_request(theirs, "tether/markers/delete", {"id": marker["id"]})
        assert await uris_of(waiter) == [mine_uri]
        assert await listed(mine, mine_uri) == []
    finally:
        await team.stop()


async def test_a_teammate_on_another_branch(alice: Path, bob: Path, servers: Servers, database_url: str) -> None:
    git(bob, "checkout", "-q", "-b", "feature")
    (bob / "calc.py").write_text("A = 1\nB = 2\nC = 3\n" + SOURCE.replace("s = 0", "s = 0  # start"), "utf-8")
    commit_all(bob, "three lines above, a comment")
    mine, theirs = await servers.start(alice), await servers.start(bob)
    marker = await create(mine, (alice / "calc.py").as_uri(), TOTAL, "on main")
    (seen,) = await listed(theirs, (bob / "calc.py").as_uri())
    assert (seen["id"], seen["range"], seen["status"]) == (marker["id"], SHIFTED, "located")

    # bob's note on a line his branch changed: alice's clone lacks his commit until she fetches
    start = await create(theirs, (bob / "calc.py").as_uri(), rng(6, 4, 6, 18), "the start value")
    assert start["commitHashWhenCreated"] == git(bob, "rev-parse", "HEAD").strip()
    by_id = {m["id"]: m for m in await listed(mine, (alice / "calc.py").as_uri())}
    assert (by_id[start["id"]]["status"], by_id[start["id"]]["missingReason"]) == ("missing", "missingOriginalCommit")
    stored = sql(database_url, "SELECT missing_reason FROM tether_marker_locations WHERE missing_reason IS NOT NULL")
    assert stored == []  # a commit missing in one clone is not a fact for the team
    git(bob, "push", "-q", "origin", "feature")
    git(alice, "fetch", "-q")
    by_id = {m["id"]: m for m in await listed(mine, (alice / "calc.py").as_uri())}
    found = by_id[start["id"]]
    assert (found["status"], found["range"], found["contentChanged"]) == ("located", rng(3, 4, 3, 9), True)


async def test_a_clone_with_the_file_renamed_by_a_later_commit(
    alice: Path, bob: Path, servers: Servers, database_url: str
) -> None:
    git_move(bob, "calc.py", "pkg/calc.py")
    renamed = commit_all(bob, "move calc.py into pkg/")
    mine, theirs = await servers.start(alice), await servers.start(bob)
    marker = await create(mine, (alice / "calc.py").as_uri(), TOTAL, "follows the file")
    (seen,) = await listed(theirs, (bob / "pkg" / "calc.py").as_uri())
    assert (seen["id"], seen["uri"], seen["range"]) == (marker["id"], (bob / "pkg" / "calc.py").as_uri(), TOTAL)
    assert await workspace(theirs, bob) == {"pkg/calc.py": [marker["id"]]}
    # alice has not pulled the rename: the marker stays in her calc.py
    (mine_seen,) = await listed(mine, (alice / "calc.py").as_uri())
    assert (mine_seen["id"], mine_seen["range"]) == (marker["id"], TOTAL)
    assert await workspace(mine, alice) == {"calc.py": [marker["id"]]}

    # bob's server stored the location at the rename commit: alice uses it once she is there, not her own
    # computation (a sentinel written over the stored row shows which one she uses)
    where = "WHERE marker_id = :m AND commit_hash = :c"
    assert sql(database_url, f"SELECT path FROM tether_marker_locations {where}", m=marker["id"], c=renamed) == [
        ("pkg/calc.py",)
    ]
    sql(database_url, f"UPDATE tether_marker_locations SET line_start = 4 {where}", m=marker["id"], c=renamed)
    git(bob, "push", "-q", "origin", "main")
    git(alice, "pull", "-q", "--ff-only")
    head_changed(mine, alice)
    moved_uri = (alice / "pkg" / "calc.py").as_uri()
    sentinel = rng(3, 0, 6, 12)
    (now,) = await listed_until(mine, moved_uri, lambda found: [m["range"] for m in found] == [sentinel])
    assert (now["id"], now["uri"]) == (marker["id"], moved_uri)
    assert await listed(mine, (alice / "calc.py").as_uri()) == []
    assert await workspace(mine, alice) == {"pkg/calc.py": [marker["id"]]}


async def test_unrelated_repositories_on_one_database_never_meet(tmp_path: Path, servers: Servers) -> None:
    one = clone(make_origin(tmp_path / "one.git", "project one"), tmp_path / "home" / "alice" / "one")
    two = clone(make_origin(tmp_path / "two.git", "project two"), tmp_path / "home" / "alice" / "two")
    first, second = await servers.start(one), await servers.start(two)
    a = await create(first, (one / "calc.py").as_uri(), TOTAL, "in project one")
    b = await create(second, (two / "calc.py").as_uri(), TOTAL, "in project two")  # the same path in its repo
    assert [m["id"] for m in await listed(first, (one / "calc.py").as_uri())] == [a["id"]]
    assert [m["id"] for m in await listed(second, (two / "calc.py").as_uri())] == [b["id"]]
    assert await workspace(first, one) == {"calc.py": [a["id"]]}
    assert await workspace(second, two) == {"calc.py": [b["id"]]}
    # a folder holding both: each marker in its own repository's file, even the one this server never opened
    both = {"alice/one/calc.py": [a["id"]], "alice/two/calc.py": [b["id"]]}
    assert await workspace(first, tmp_path / "home") == both

    # another project cloned later at project one's path (another teammate's machine, or this one) does not
    # inherit project one's markers, although every uri is the same
    one.rename(tmp_path / "one-elsewhere")
    three = clone(make_origin(tmp_path / "three.git", "project three"), one)
    third = await servers.start(three)
    assert await listed(third, (three / "calc.py").as_uri()) == []
    assert await workspace(third, three) == {}


async def test_uncommitted_locations_stay_in_their_clone(alice: Path, bob: Path, servers: Servers) -> None:
    """On one SQLite file the uncommitted locations share the database; each clone still uses only its own."""
    extra = "\ndef extra():\n    return 42\n"
    for root in (alice, bob):
        (root / "calc.py").write_text(SOURCE + extra.replace("42", "43" if root == bob else "42"), "utf-8")
    mine, theirs = await servers.start(alice), await servers.start(bob)
    fresh = await create(mine, (alice / "calc.py").as_uri(), rng(8, 0, 9, 13), "not committed yet")
    assert fresh["commitHashWhenCreated"] is None
    # bob's file has other uncommitted code there: his server only finds the block by its code, and it is not
    (seen,) = await listed(theirs, (bob / "calc.py").as_uri())
    assert (seen["id"], seen["status"]) == (fresh["id"], "missing")
    (kept,) = await listed(mine, (alice / "calc.py").as_uri())
    assert (kept["status"], kept["range"]) == ("located", rng(8, 0, 9, 13))
