"""Git access for markers, in one place: the git CLI with a timeout, no shell, never fatal.

Every read returns None when git is missing, the path is not in a repository, or the repository is
broken — markers then work as for files outside git, and :meth:`Git.warn_once` logs it once. The tracker's
cached view of one repository at one HEAD is built on it (:mod:`.git_view`).
"""

from __future__ import annotations

import logging
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tether_lsp.server.offloop import assert_off_loop

log = logging.getLogger(__name__)

TIMEOUT_S = 10
#: How long a repository's ``user.name`` is reused before git is asked again.
USER_NAME_TTL_S = 30
#: How many files read at a commit :meth:`Git.show_recent` keeps.
SHOWN_KEPT = 16


@dataclass(frozen=True)
class FileInRepo:
    root: Path
    path: str  # repo-relative, with forward slashes


class Git:
    """The git CLI for one markers state, with what it remembers (found roots, user names, warnings given).

    Used from worker threads: single dict and set operations are atomic under the GIL, two threads finding
    the same root agree, and the worst race says a warning twice.
    """

    def __init__(self) -> None:
        self._warned: set[str] = set()
        #: folder -> its repository's root (found ones only: a ``git init`` later is seen).
        self._roots: dict[Path, Path] = {}
        self._users: dict[Path, tuple[float, str | None]] = {}
        self._shown: dict[tuple[str, str, str], str | None] = {}  # (root, commit, path) -> text; guarded
        self._lock = threading.Lock()

    def warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning("%s", message)

    def run(self, cwd: Path, *args: str, stdin: str | None = None) -> str | None:
        """git's output, or None when it failed (said once per kind of failure); ``stdin`` is its input."""
        assert_off_loop(f"git {args[0] if args else ''}")
        try:
            done = subprocess.run(
                ["git", *args],
                cwd=cwd,
                capture_output=True,
                timeout=TIMEOUT_S,
                check=False,
                input=stdin.encode() if stdin is not None else None,
                stdin=None if stdin is not None else subprocess.DEVNULL,
            )
        except FileNotFoundError:
            self.warn_once("no-git", "git is not installed: markers work as for files outside a repository")
            return None
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.warn_once(f"git-failed:{cwd}", f"git failed in {cwd}: {exc}")
            return None
        if done.returncode != 0:
            err = done.stderr.decode("utf-8", errors="replace").strip()
            if err and "not a git repository" not in err:  # quiet failures (`--verify -q HEAD`) are answers
                self.warn_once(
                    f"git-error:{cwd}:{args[0]}",
                    f"git {' '.join(args)[:200]} failed in {cwd}: {err.splitlines()[-1:] or ''}",
                )
            return None
        return done.stdout.decode("utf-8", errors="replace")

    def locate_file(self, path: Path) -> FileInRepo | None:
        """The repository containing ``path`` (which may not exist yet), if any."""
        assert_off_loop("looking for a repository")
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        root = self._roots.get(folder)
        if root is None or not (root / ".git").exists():
            top = self.run(folder, "rev-parse", "--show-toplevel")
            if top is None:
                self._roots.pop(folder, None)
                self._warn_if_broken(folder)
                return None
            root = self._roots[folder] = Path(top.strip())
        try:
            relative = path.resolve().relative_to(root.resolve())
        except ValueError:
            return None
        return FileInRepo(root, relative.as_posix())

    def _warn_if_broken(self, folder: Path) -> None:
        """A ``.git`` that git refuses is a corrupt repository: say so once (markers work as outside git)."""
        if "no-git" in self._warned:
            return  # git itself is missing: already said
        for parent in (folder, *folder.parents):
            if (parent / ".git").exists():
                self.warn_once(
                    f"corrupt:{parent}",
                    f"{parent} has a .git that git cannot read (corrupt repository?): "
                    "markers there work as for files outside git",
                )
                return

    def head(self, root: Path) -> str | None:
        """HEAD's commit: read from ``.git`` directly when plain (checked on every request), else via git."""
        assert_off_loop("reading HEAD")
        quick = _head_from_files(root / ".git")
        if quick is not None:
            return quick
        out = self.run(root, "rev-parse", "--verify", "-q", "HEAD")
        return out.strip() if out else None

    def show(self, root: Path, commit: str, path: str) -> str | None:
        """The file's text at ``commit`` (None when it does not exist there)."""
        return self.run(root, "show", f"{commit}:{path}")

    def show_recent(self, root: Path, commit: str, path: str) -> str | None:
        """:meth:`show`, with the last few answers kept: creating many markers in one file reads it once."""
        key = (str(root), commit, path)
        with self._lock:
            if key in self._shown:
                return self._shown[key]
        text = self.show(root, commit, path)
        with self._lock:
            if len(self._shown) >= SHOWN_KEPT:
                self._shown.pop(next(iter(self._shown)))
            self._shown[key] = text
        return text

    def user_name(self, root: Path | None) -> str | None:
        """git's ``user.name`` for a repository (re-read at most every ``USER_NAME_TTL_S``)."""
        where = root or Path.cwd()
        cached = self._users.get(where)
        if cached is not None and time.monotonic() - cached[0] < USER_NAME_TTL_S:
            return cached[1]
        out = self.run(where, "config", "user.name")
        name = (out.strip() if out else "") or None
        self._users[where] = (time.monotonic(), name)
        return name

    def renames(self, root: Path, since: str, *, staged: bool = True) -> dict[str, str]:
        """Old repo-relative path -> new one, for files renamed between ``since`` and the working tree.

        Committed renames (``git diff -M`` from ``since`` to HEAD) and, with ``staged``, staged ones
        (``git mv`` not yet committed).
        """
        out: dict[str, str] = {}
        queries: list[tuple[str, ...]] = [("diff", "-M", "--name-status", "-z", since, "HEAD")]
        if staged:
            queries.append(("diff", "-M", "--name-status", "-z", "--cached"))
        for args in queries:
            text = self.run(root, *args)
            if text:
                _chain_renames(text.split("\0"), out)
        return out

    def first_parent_root(self, root: Path, commit: str) -> str | None:
        """The root commit reached from ``commit`` by first parents (the repository's identity: see places.py)."""
        out = self.run(root, "rev-list", "--first-parent", "--max-parents=0", commit)
        lines = out.split() if out else []
        return lines[-1] if lines and _is_sha(lines[-1]) else None

    def first_parent(self, root: Path, commit: str) -> str | None:
        """The commit's first parent (None for a root commit)."""
        out = self.run(root, "rev-parse", "--verify", "-q", f"{commit}^1")
        return out.strip() if out and _is_sha(out.strip()) else None

    def known_commits(self, root: Path, commits: list[str]) -> set[str]:
        """Which of ``commits`` the repository has (one ``git cat-file --batch-check`` for all of them)."""
        wanted = sorted({c for c in commits if _is_sha(c)})
        if not wanted:
            return set()
        out = self.run(root, "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin="\n".join(wanted) + "\n")
        found = {line.split()[0] for line in (out or "").splitlines() if line.endswith(" commit")}
        return found & set(wanted)

    def changed_files(self, root: Path, since: str, until: str) -> list[str]:
        """Repo-relative paths added, modified, renamed or copied between two commits (their new names)."""
        out = self.run(root, "diff", "-M", "--name-only", "-z", "--diff-filter=AMRC", since, until)
        return [p for p in out.split("\0") if p] if out else []

    def paths_changed(self, root: Path, since: str, until: str) -> set[str] | None:
        """Repo-relative paths whose content differs between two commits, by either name (a rename is its old and
        its new path); None when git could not tell."""
        out = self.run(root, "diff", "--no-renames", "--name-only", "-z", since, until)
        return None if out is None else {p for p in out.split("\0") if p}


def _chain_renames(fields: list[str], out: dict[str, str]) -> None:
    """Add the renames of one ``--name-status -z`` listing to ``out``: a -> b then b -> c gives a -> c."""
    k = 0
    while k < len(fields) - 1:
        status = fields[k]
        if status.startswith(("R", "C")) and k + 2 < len(fields):
            if status.startswith("R"):
                old, new = fields[k + 1], fields[k + 2]
                out[old] = new
                for key, value in list(out.items()):
                    if value == old:
                        out[key] = new
            k += 3
        else:
            k += 2


def _head_from_files(git_dir: Path) -> str | None:
    """A loose or packed ref, or a detached HEAD; None for anything unusual (worktrees, reftables, errors)."""
    try:
        content = (git_dir / "HEAD").read_text(encoding="ascii").strip()
        if not content.startswith("ref: "):
            return content if _is_sha(content) else None
        ref = content[5:]
        loose = git_dir / ref
        if loose.is_file():
            sha = loose.read_text(encoding="ascii").strip()
            return sha if _is_sha(sha) else None
        packed = git_dir / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="ascii").splitlines():
                sha, _, name = line.partition(" ")
                if name == ref and _is_sha(sha):
                    return sha
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
