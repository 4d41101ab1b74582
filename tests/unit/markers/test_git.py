"""The markers' git access in-process, on real repositories made here: HEAD read from the files as git reads
it, files located in their repository, reads at a commit (one ``cat-file`` process for many, the last few
kept), commits known and first parents, what changed between commits, the per-HEAD view the tracker asks, and
every failure (no git, a corrupt ``.git``) answered with None and said once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.helpers import commit_all, git, git_move
from tether_lsp.handlers.markers import git as markers_git
from tether_lsp.handlers.markers.git import FileInRepo, Git
from tether_lsp.handlers.markers.git_view import Blobs, GitView

CALC = "def area(r):\n    return 3.14 * r * r\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = (tmp_path / "repo").resolve()
    (root / "pkg").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "pkg" / "calc.py").write_text(CALC, encoding="utf-8")
    commit_all(root, "calc")
    return root


def head_of(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def test_head_is_read_from_the_files_whether_the_ref_is_loose_packed_or_detached(repo: Path) -> None:
    first = head_of(repo)
    (repo / "b.py").write_text("b = 1\n")
    second = commit_all(repo, "b")
    gitdir = repo / ".git"
    assert markers_git._head_from_files(gitdir) == second == Git().head(repo)  # a loose ref
    git(repo, "pack-refs", "--all")
    assert not (gitdir / "refs" / "heads" / "main").exists()
    assert markers_git._head_from_files(gitdir) == second == Git().head(repo)  # read from packed-refs
    git(repo, "checkout", "-q", "--detach", first)
    assert markers_git._head_from_files(gitdir) == first == Git().head(repo)  # a detached HEAD
    git(repo, "checkout", "-q", "--orphan", "fresh")  # a branch with no commit yet: no HEAD at all
    assert markers_git._head_from_files(gitdir) is None
    assert Git().head(repo) is None


def test_a_file_is_located_in_its_repository_even_before_it_exists(repo: Path, tmp_path: Path) -> None:
    found = Git()
    assert found.locate_file(repo / "pkg" / "calc.py") == FileInRepo(repo, "pkg/calc.py")
    assert found.locate_file(repo / "new" / "deeper" / "x.py") == FileInRepo(repo, "new/deeper/x.py")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert found.locate_file(elsewhere / "x.py") is None
    git(elsewhere, "init", "-q", "-b", "main")  # a repository made later is found (misses are not remembered)
    assert found.locate_file(elsewhere / "x.py") == FileInRepo(elsewhere.resolve(), "x.py")


def test_a_corrupt_repository_works_as_outside_git_and_is_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: /nowhere/at/all\n")
    found = Git()
    with caplog.at_level(logging.WARNING, logger=markers_git.__name__):
        assert found.locate_file(broken / "a.py") is None
        assert found.locate_file(broken / "a.py") is None
    said = [r.getMessage() for r in caplog.records if "git cannot read" in r.getMessage()]
    assert len(said) == 1 and str(broken) in said[0]


def test_without_git_every_read_is_none_and_it_is_said_once(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    empty = tmp_path / "no-programs"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    found = Git()
    with caplog.at_level(logging.WARNING, logger=markers_git.__name__):
        assert found.run(repo, "rev-parse", "HEAD") is None
        assert found.locate_file(repo / "pkg" / "calc.py") is None
        assert found.show(repo, "HEAD", "pkg/calc.py") is None
        assert Blobs(found, repo).read("HEAD", "pkg/calc.py") is None
    said = [r.getMessage() for r in caplog.records]
    assert said == ["git is not installed: markers work as for files outside a repository"]


def test_a_failing_command_is_none_and_said_once_per_kind(repo: Path, caplog: pytest.LogCaptureFixture) -> None:
    found = Git()
    with caplog.at_level(logging.WARNING, logger=markers_git.__name__):
        assert found.run(repo, "show", "no-such-commit:pkg/calc.py") is None
        assert found.run(repo, "show", "another-missing-one:pkg/calc.py") is None
        assert found.run(repo, "rev-parse", "--verify", "-q", "no-such-ref") is None  # quiet: an answer, not said
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].startswith("git show no-such-commit:pkg/calc.py failed in ")


def test_the_last_files_read_at_a_commit_are_answered_from_memory(repo: Path) -> None:
    head = head_of(repo)
    found = Git()
    assert found.show_recent(repo, head, "pkg/calc.py") == CALC
    for k in range(markers_git.SHOWN_KEPT - 1):
        assert found.show_recent(repo, head, f"missing-{k}.py") is None  # answers kept too
    (repo / ".git").rename(repo / ".git-away")  # git can no longer answer
    assert found.show(repo, head, "pkg/calc.py") is None
    assert found.show_recent(repo, head, "pkg/calc.py") == CALC  # kept: the file is read once
    assert found.show_recent(repo, head, "one-more.py") is None  # the oldest answer makes room for it
    assert found.show_recent(repo, head, "pkg/calc.py") is None  # ... so it is asked again, and git is gone


def test_the_user_name_is_read_again_only_after_a_while(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = Git()
    git(repo, "config", "user.name", "Ada")
    assert found.user_name(repo) == "Ada"
    git(repo, "config", "user.name", "Grace")
    assert found.user_name(repo) == "Ada"  # within USER_NAME_TTL_S: remembered
    monkeypatch.setattr(markers_git, "USER_NAME_TTL_S", 0)
    assert found.user_name(repo) == "Grace"
    git(repo, "config", "--unset", "user.name")
    assert found.user_name(repo) is None


def test_commits_known_first_parents_and_the_repositorys_first_commit(repo: Path) -> None:
    root_commit = head_of(repo)
    git(repo, "checkout", "-q", "--orphan", "vendor")  # another history, merged in later
    git(repo, "rm", "-rqf", ".")
    (repo / "vendor.py").write_text("v = 1\n")
    vendor = commit_all(repo, "vendor")
    git(repo, "checkout", "-q", "main")
    (repo / "pkg" / "calc.py").write_text(CALC + "\n\ndef total(xs):\n    return sum(xs)\n")
    second = commit_all(repo, "total")
    git(repo, "merge", "-q", "--allow-unrelated-histories", "-m", "merge vendor", "vendor")
    merge = head_of(repo)
    blob = git(repo, "rev-parse", f"{merge}:pkg/calc.py").strip()

    found = Git()
    assert found.known_commits(repo, [merge, root_commit, vendor, "f" * 40, blob, "not-a-sha"]) == {
        merge,
        root_commit,
        vendor,
    }
    assert found.known_commits(repo, ["HEAD", "main"]) == set()  # names are not commits
    assert found.first_parent(repo, merge) == second
    assert found.first_parent(repo, root_commit) is None
    assert found.first_parent_root(repo, merge) == root_commit  # the vendor root is on the second parent
    assert found.first_parent_root(repo, vendor) == vendor


def test_changed_files_between_two_commits_are_their_new_names(repo: Path) -> None:
    first = head_of(repo)
    (repo / "gone.py").write_text("g = 1\n")
    (repo / "same.py").write_text("s = 1\n")
    since = commit_all(repo, "more")
    git_move(repo, "pkg/calc.py", "src/calc.py")
    (repo / "src" / "calc.py").write_text(CALC + "# moved\n")
    (repo / "added.py").write_text("a = 1\n")
    git(repo, "rm", "-q", "gone.py")
    until = commit_all(repo, "rework")
    assert sorted(Git().changed_files(repo, since, until)) == ["added.py", "src/calc.py"]
    assert sorted(Git().changed_files(repo, first, since)) == ["gone.py", "same.py"]


def test_one_cat_file_process_reads_many_files_and_says_what_is_no_file(repo: Path) -> None:
    odd = "x = 'café 東京 🚀'\r\nno newline at the end"
    (repo / "odd.py").write_bytes(odd.encode())
    head = commit_all(repo, "odd")
    blobs = Blobs(Git(), repo)
    try:
        assert blobs.read(head, "pkg/calc.py") == CALC
        assert blobs.read(head, "missing.py") is None
        assert blobs.read(head, "pkg") is None  # a tree
        assert blobs.read(head, "odd.py") == odd  # after the misses the answers still line up, byte for byte
        process = blobs._proc
        assert blobs.read(head, "pkg/calc.py") == CALC
        assert blobs._proc is process and process is not None  # the same process
        blobs.close()
        assert blobs.read(head, "odd.py") == odd  # closed: a new one starts
    finally:
        blobs.close()


def test_the_view_at_head_names_files_and_finds_where_a_line_was_added(repo: Path, tmp_path: Path) -> None:
    since = head_of(repo)
    (repo / "pkg" / "calc.py").write_text("import math\n" + CALC)
    (repo / "pkg" / "more.py").write_text("TAU = 2 * math.pi\n")
    head = commit_all(repo, "more")
    view = GitView(Git(), repo, head)
    try:
        spaced = repo / "with space" / "ü.py"
        assert view.relative(spaced.as_uri()) == "with space/ü.py"
        assert view.relative((tmp_path / "x.py").as_uri()) is None
        assert view.relative("untitled:Untitled-1") is None
        assert view.uri("pkg/calc.py") == (repo / "pkg" / "calc.py").as_uri()
        assert view.root_uri == repo.as_uri() + "/"
        target = view.target(since, "pkg/calc.py")
        assert target is not None and target.added == [0]  # only the import is new there
        assert view.files_with_added_line_like(since, "TAU = 2 * math.pi") == ["pkg/more.py"]
        assert view.files_with_added_line_like(since, "import  math") == ["pkg/calc.py"]  # spacing aside
        assert view.files_with_added_line_like(since, "    return 3.14 * r * r") == []  # there before
        assert view.changed(since) == ["pkg/calc.py", "pkg/more.py"]
    finally:
        view.close()
