"""Where a marker's file is, in the form every clone of a repository shares: (repository, path).

Each teammate's clone lives in a folder of its own, so one file has a different uri in every clone. The
database keeps a file that is in git as a :class:`FileKey` — its repository's identity and its repo-relative
path — and each server maps between that form and the uris of the clones it works in (docs/markers.md,
"Teams"):

* :meth:`Places.key`: uri -> FileKey; None for a file outside git or in a repository without an identity
  (such files stay keyed by their uri, on their own machine, as before);
* :meth:`Places.uri`: FileKey -> the file's uri in a clone this server works in; None when it has none;
* :meth:`Places.folder`: the clones, and the repo-relative prefix, of the files under a folder;
* :meth:`Places.resolve`: the stored uris of an older database, turned into keys where this machine can tell.

**The identity** of a repository is the root commit reached from HEAD by following first parents
(``git rev-list --first-parent --max-parents=0 HEAD``): the same in every clone and on every branch that
grew from the same first commit, different for unrelated histories. Following first parents (rather than
hashing every root) keeps it when an unrelated history is merged in (``git merge
--allow-unrelated-histories``, a subtree import), which adds a root but does not change the main line's.
A shallow clone has no true root, so it has no identity (its files stay keyed by uri, and the log says so
once); neither has a repository with no commit yet.

Threads: what asks git (``key``, ``clone_at``, ``locate``, ``folder``, ``resolve``) runs in workers; ``uri``,
``uris`` and ``is_mine`` read only what is known and may run anywhere. An identity is cached per commit (a
commit's first-parent root never changes), a clone per root; a new commit whose first parent is known takes
its identity without walking the history again (the walk takes about half a second per 100,000 commits).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from tether_lsp.server.datadir import find_git_dir
from tether_lsp.server.files import uri_to_path

from .git import Git


@dataclass(frozen=True)
class FileKey:
    """A file as every clone of its repository names it: the repository's identity, the repo-relative path."""

    repo: str
    path: str


@dataclass(frozen=True)
class Clone:
    """One clone (or worktree) on this machine: its root folder and its repository's identity."""

    root: Path
    repo: str

    @property
    def root_uri(self) -> str:
        return self.root.as_uri().rstrip("/") + "/"

    def uri(self, path: str) -> str:
        """The uri of a repo-relative path in this clone."""
        return _uri_in(self.root, path)

    def path_of(self, uri: str) -> str | None:
        """The repo-relative path of a uri inside this clone (None outside it); no git asked."""
        path = uri_to_path(uri)
        if path is None or not path.is_absolute():
            return None
        for candidate, root in ((path, self.root), (path.resolve(), self.root.resolve())):
            if candidate.is_relative_to(root) and candidate != root:
                return candidate.relative_to(root).as_posix()
        return None

    def holds(self, uri: str) -> bool:
        """Whether a uri is inside this clone, by its path alone (no disk access)."""
        return _inside(self.root, uri)


#: Uris made and tested per (clone, path or uri), kept: every row a store reads names its file through these, and
#: pathlib takes about 50 us for each (10,000 markers read at a HEAD change: half a second, twice).
PATHS_KEPT = 8192


@lru_cache(maxsize=PATHS_KEPT)
def _uri_in(root: Path, path: str) -> str:
    return (root / path).as_uri()


@lru_cache(maxsize=PATHS_KEPT)
def _inside(root: Path, uri: str) -> bool:
    path = uri_to_path(uri)
    return path is not None and path.is_relative_to(root)


class Places:
    """This server's map between its clones' uris and the shared (repository, path) form."""

    def __init__(self, git: Git) -> None:
        self.git = git
        self._identities: dict[str, str | None] = {}  # commit -> its first-parent root (guarded: _lock)
        self._clones: dict[Path, Clone] = {}  # root -> clone, in the order first seen (guarded: _lock)
        self._lock = threading.Lock()

    # --- workers ----------------------------------------------------------------------------------------

    def identity(self, root: Path) -> str | None:
        """The identity of the repository at ``root`` at its HEAD; None without a commit or in a shallow clone."""
        head = self.git.head(root)
        if head is None:
            return None
        with self._lock:
            if head in self._identities:  # found before, so not shallow then (a clone rarely becomes shallow)
                return self._identities[head]
        git_dir = find_git_dir(root)
        if git_dir is not None and (git_dir / "shallow").exists():
            self.git.warn_once(
                f"shallow:{root}",
                f"{root} is a shallow clone: its markers are kept by file uri, on this machine only "
                "(`git fetch --unshallow` lets them be shared with the other clones)",
            )
            return None
        parent = self.git.first_parent(root, head)  # a new commit on a known one: no walk through history
        with self._lock:
            found = self._identities.get(parent) if parent is not None else None
        if found is None:
            found = self.git.first_parent_root(root, head)
        if found is not None:  # a failure is asked again next time
            with self._lock:
                self._identities[head] = found
        return found

    def clone_at(self, root: Path) -> Clone | None:
        """The clone whose root is ``root`` (remembered as one this server works in), None without an identity."""
        repo = self.identity(root)
        with self._lock:
            known = self._clones.get(root)
            if repo is None:
                return None
            if known is None or known.repo != repo:
                known = self._clones[root] = Clone(root, repo)
            return known

    def locate(self, uri: str) -> tuple[Clone, str] | None:
        """The clone holding ``uri`` (which may not exist yet) and the file's repo-relative path there."""
        path = uri_to_path(uri)
        found = self.git.locate_file(path) if path is not None and path.is_absolute() else None
        clone = self.clone_at(found.root) if found is not None else None
        return None if clone is None or found is None else (clone, found.path)

    def key(self, uri: str) -> FileKey | None:
        """uri -> (repository, path); None for a file outside git or in a repository without an identity."""
        found = self.locate(uri)
        return None if found is None else FileKey(found[0].repo, found[1])

    def keys(self, uris: Iterable[str], clones: dict[Path, Clone | None] | None = None) -> dict[str, FileKey | None]:
        """:meth:`key` of many uris, each repository's identity read once (a HEAD sync stores thousands of
        locations in a few hundred files: one HEAD read per file was a tenth of the sync's time); ``clones``:
        the identities read already, kept for the next call (a sync stores its files a batch at a time)."""
        out: dict[str, FileKey | None] = {}
        clones = {} if clones is None else clones
        for uri in set(uris):
            path = uri_to_path(uri)
            found = self.git.locate_file(path) if path is not None and path.is_absolute() else None
            if found is not None and found.root not in clones:
                clones[found.root] = self.clone_at(found.root)
            clone = clones[found.root] if found is not None else None
            out[uri] = None if clone is None or found is None else FileKey(clone.repo, found.path)
        return out

    def folder(self, uri_prefix: str) -> list[tuple[Clone, str]]:
        """The clones with files under a folder, each with the repo-relative prefix of those files ("" for all):
        the clone the folder is in, and the clones this server knows whose root is inside the folder."""
        folder = uri_to_path(uri_prefix)
        if folder is None or not folder.is_absolute():
            return []
        out: list[tuple[Clone, str]] = []
        found = self.locate((folder / "_").as_uri())
        if found is not None:
            inside = PurePosixPath(found[1]).parent.as_posix()
            out.append((found[0], "" if inside == "." else inside + "/"))
        with self._lock:
            known = list(self._clones.values())
        out += [(c, "") for c in known if c.root != folder and c.root.is_relative_to(folder) and (c, "") not in out]
        return out

    def resolve(self, items: Iterable[tuple[str, str | None]]) -> dict[tuple[str, str | None], FileKey | str]:
        """For an older database's (uri, creation commit) pairs: each one's key, or why it has none.

        A uri gets a key when it is inside a git repository on this machine and that repository has the
        marker's creation commit (with no creation commit: when the file exists). So a uri of another
        machine's clone that happens to name a folder here is not taken for this machine's repository.
        """
        out: dict[tuple[str, str | None], FileKey | str] = {}
        by_root: dict[Path, list[tuple[tuple[str, str | None], Clone, str]]] = defaultdict(list)
        outside: set[Path] = set()  # folders found in no repository (another machine's: many rows, one git run)
        for uri, commit in set(items):
            path = uri_to_path(uri)
            if path is None or not path.is_absolute():
                out[(uri, commit)] = "not a file on this machine"
                continue
            found = self.git.locate_file(path) if path.parent not in outside else None
            if found is None:
                outside.add(path.parent)
                exists = path.parent.exists()
                out[(uri, commit)] = "not inside a git repository" if exists else "no such folder on this machine"
                continue
            clone = self.clone_at(found.root)
            if clone is None:
                out[(uri, commit)] = f"the repository at {found.root} has no commit yet or is a shallow clone"
                continue
            if commit is None and not path.is_file():
                out[(uri, commit)] = "no such file on this machine"
                continue
            by_root[found.root].append(((uri, commit), clone, found.path))
        for root, entries in by_root.items():
            known = self.git.known_commits(root, [c for (_, c), _, _ in entries if c])
            for item, clone, relative in entries:
                if item[1] is None or item[1] in known:
                    out[item] = FileKey(clone.repo, relative)
                else:
                    out[item] = f"its creation commit is not in the repository at {root}"
        return out

    # --- anywhere (no git) ------------------------------------------------------------------------------

    def clones(self) -> list[Clone]:
        """The clones this server has seen, in the order it first saw them."""
        with self._lock:
            return list(self._clones.values())

    def uri(self, key: FileKey, near: str | None = None) -> str | None:
        """The file's uri in a clone of its repository this server works in: the one holding ``near`` when
        there is such a clone, else the first one seen; None when this server has no clone of it."""
        clones = [c for c in self.clones() if c.repo == key.repo]
        if not clones:
            return None
        chosen = next((c for c in clones if near is not None and c.holds(near)), clones[0])
        return chosen.uri(key.path)

    def uris(self, key: FileKey) -> list[str]:
        """The file's uri in every clone of its repository this server works in."""
        return [c.uri(key.path) for c in self.clones() if c.repo == key.repo]

    def is_mine(self, uri: str) -> bool:
        """Whether a uri is inside a clone this server works in."""
        return any(c.holds(uri) for c in self.clones())
