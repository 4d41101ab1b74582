"""The map between a clone's uris and the shared (repository, path) form, on real git repositories."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.helpers import commit_all, git
from tether_lsp.handlers.markers.git import Git
from tether_lsp.handlers.markers.places import Clone, FileKey, Places

CODE = "def f():\n    return 1\n"


def make_repo(root: Path, message: str = "init", files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for name, text in (files or {"calc.py": CODE}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    commit_all(root, message)
    return root


def clone(source: Path, where: Path, *args: str) -> Path:
    where.parent.mkdir(parents=True, exist_ok=True)
    git(source.parent, "clone", "-q", *args, source.as_uri() if args else str(source), str(where))
    return where


def root_commit(repo: Path) -> str:
    return git(repo, "rev-list", "--max-parents=0", "HEAD").split()[0]


class CountingGit(Git):
    """The real git, counting the identity walks it is asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.walks = 0

    def run(self, cwd: Path, *args: str, stdin: str | None = None) -> str | None:
        self.walks += args[:2] == ("rev-list", "--first-parent")
        return super().run(cwd, *args, stdin=stdin)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "origin", files={"calc.py": CODE, "my dir/a b.py": CODE})


def test_two_clones_at_different_paths_share_keys_and_map_to_their_own_files(origin: Path, tmp_path: Path) -> None:
    alice, bob = clone(origin, tmp_path / "alice" / "proj"), clone(origin, tmp_path / "bob" / "x" / "proj")
    mine, theirs = Places(Git()), Places(Git())
    key = mine.key((alice / "calc.py").as_uri())
    assert key == FileKey(root_commit(origin), "calc.py")
    assert theirs.key((bob / "calc.py").as_uri()) == key
    assert theirs.uri(key) == (bob / "calc.py").as_uri()
    assert mine.uri(key) == (alice / "calc.py").as_uri()
    spaced = mine.key((alice / "my dir" / "a b.py").as_uri())
    assert spaced == FileKey(key.repo, "my dir/a b.py")
    assert theirs.uri(spaced) == (bob / "my dir" / "a b.py").as_uri()


def test_a_file_not_made_yet_has_a_key_and_unknown_repositories_map_to_nothing(origin: Path) -> None:
    places = Places(Git())
    key = places.key((origin / "new" / "later.py").as_uri())
    assert key == FileKey(root_commit(origin), "new/later.py")
    assert places.uri(FileKey("0" * 40, "calc.py")) is None
    assert places.uris(FileKey("0" * 40, "calc.py")) == []


def test_unrelated_repositories_have_different_identities(tmp_path: Path) -> None:
    one = make_repo(tmp_path / "one", "start of project one")
    two = make_repo(tmp_path / "two", "start of project two")  # same file, same path, another history
    places = Places(Git())
    a, b = places.key((one / "calc.py").as_uri()), places.key((two / "calc.py").as_uri())
    assert a is not None and b is not None
    assert (a.path, b.path) == ("calc.py", "calc.py") and a.repo != b.repo
    assert places.uri(a) == (one / "calc.py").as_uri() and places.uri(b) == (two / "calc.py").as_uri()


def test_another_branch_a_later_commit_and_a_worktree_keep_the_identity(origin: Path, tmp_path: Path) -> None:
    places = Places(Git())
    before = places.identity(origin)
    git(origin, "checkout", "-q", "-b", "feature")
    (origin / "calc.py").write_text("# top\n" + CODE, encoding="utf-8")
    commit_all(origin, "feature work")
    assert places.identity(origin) == before
    worktree = tmp_path / "wt"
    git(origin, "worktree", "add", "-q", str(worktree), "main")
    assert places.key((worktree / "calc.py").as_uri()) == FileKey(before or "", "calc.py")


def test_merging_an_unrelated_history_keeps_the_identity_an_orphan_branch_has_its_own(origin: Path) -> None:
    places = Places(Git())
    before = places.identity(origin)
    git(origin, "checkout", "-q", "--orphan", "pages")
    git(origin, "rm", "-q", "-r", "-f", ".")
    (origin / "index.html").write_text("<p>hi</p>\n", encoding="utf-8")
    commit_all(origin, "site")
    orphan = places.identity(origin)
    assert orphan not in (None, before)
    git(origin, "checkout", "-q", "main")
    git(origin, "merge", "-q", "--allow-unrelated-histories", "-m", "import the site", "pages")
    assert len(git(origin, "rev-list", "--max-parents=0", "HEAD").split()) == 2  # two roots now
    assert places.identity(origin) == before  # the main line's first commit still names it


def test_outside_git_no_commit_and_shallow_clones_have_no_key(
    origin: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    places = Places(Git())
    plain = tmp_path / "plain"
    plain.mkdir()
    assert places.key((plain / "notes.txt").as_uri()) is None
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    assert places.key((empty / "a.py").as_uri()) is None
    for n in range(2):
        (origin / "calc.py").write_text(CODE + f"# more {n}\n", encoding="utf-8")
        commit_all(origin, f"more {n}")
    shallow = clone(origin, tmp_path / "shallow", "--depth", "1")
    with caplog.at_level(logging.WARNING):
        assert places.key((shallow / "calc.py").as_uri()) is None
        assert places.key((shallow / "calc.py").as_uri()) is None
    assert [r.message for r in caplog.records if "shallow clone" in r.message] == [
        f"{shallow} is a shallow clone: its markers are kept by file uri, on this machine only "
        "(`git fetch --unshallow` lets them be shared with the other clones)"
    ]
    git(shallow, "fetch", "-q", "--unshallow")
    assert places.key((shallow / "calc.py").as_uri()) == FileKey(root_commit(origin), "calc.py")
    assert places.key("untitled:Untitled-1") is None


def test_the_identity_is_walked_once_per_commit(origin: Path) -> None:
    counting = CountingGit()
    places = Places(counting)
    uri = (origin / "calc.py").as_uri()
    first = places.key(uri)
    for _ in range(3):
        assert places.key(uri) == first
    assert counting.walks == 1
    (origin / "calc.py").write_text(CODE + "# more\n", encoding="utf-8")
    commit_all(origin, "more")
    assert places.key(uri) == first
    assert counting.walks == 1  # a commit on a known one takes its parent's identity
    git(origin, "checkout", "-q", "--orphan", "other")
    commit_all(origin, "unrelated history")
    other = places.key(uri)
    assert other is not None and first is not None and other.repo != first.repo
    assert counting.walks == 2  # a root commit of its own: walked


def test_a_folder_gives_its_clone_and_prefix_or_the_clones_inside_it(origin: Path, tmp_path: Path) -> None:
    alice, bob = clone(origin, tmp_path / "home" / "alice"), clone(origin, tmp_path / "home" / "bob")
    places = Places(Git())
    (mine,) = places.folder(alice.as_uri() + "/")
    assert mine == (Clone(alice, root_commit(origin)), "")
    assert places.folder((alice / "my dir").as_uri()) == [(mine[0], "my dir/")]
    places.clone_at(bob)
    assert places.folder((tmp_path / "home").as_uri()) == [(mine[0], ""), (Clone(bob, mine[0].repo), "")]
    assert places.uri(FileKey(mine[0].repo, "calc.py"), near=(bob / "x.py").as_uri()) == (bob / "calc.py").as_uri()
    assert places.is_mine((bob / "calc.py").as_uri()) and not places.is_mine((tmp_path / "x.py").as_uri())


def test_resolving_an_older_databases_uris(origin: Path, tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other", "another project")
    places = Places(Git())
    head = git(origin, "rev-parse", "HEAD").strip()
    foreign_commit = git(other, "rev-parse", "HEAD").strip()
    calc, gone = (origin / "calc.py").as_uri(), (origin / "renamed-since.py").as_uri()
    items = [
        (calc, head),
        (gone, head),  # a file renamed since: its repository has the commit, so it is this repository's
        ((origin / "calc.py").as_uri(), foreign_commit),
        ((origin / "draft.py").as_uri(), None),  # uncommitted code in a file that is gone
        ((tmp_path / "nowhere" / "deep" / "x.py").as_uri(), head),
        ((tmp_path / "loose.py").as_uri(), None),
        ("untitled:Untitled-1", None),
    ]
    got = places.resolve(items)
    repo = root_commit(origin)
    assert got == {
        (calc, head): FileKey(repo, "calc.py"),
        (gone, head): FileKey(repo, "renamed-since.py"),
        (calc, foreign_commit): f"its creation commit is not in the repository at {origin}",
        ((origin / "draft.py").as_uri(), None): "no such file on this machine",
        ((tmp_path / "nowhere" / "deep" / "x.py").as_uri(), head): "no such folder on this machine",
        ((tmp_path / "loose.py").as_uri(), None): "not inside a git repository",
        ("untitled:Untitled-1", None): "not a file on this machine",
    }
