"""One repository at one HEAD, as the marker tracker reads it: every answer cached for the view's life, and the
files' texts at any commit read through one ``git cat-file --batch`` process (:class:`Blobs`).

Why apart from :mod:`.git`: the view is the tracker's working set (the lines added since a commit, the files a
block may have moved to), built on the CLI access that the rest of the markers use alone.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from .calculator import Target, added_lines
from .git import Git
from .line_similarity import similar_lines


class Blobs:
    """``git cat-file --batch``: many ``commit:path`` reads through one process (a show each costs ~5 ms)."""

    def __init__(self, git: Git, root: Path) -> None:
        self.git = git
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._broken = False

    def read(self, commit: str, path: str) -> str | None:
        if self._broken:
            return None
        if self._proc is None:
            try:
                self._proc = subprocess.Popen(
                    ["git", "cat-file", "--batch"],
                    cwd=self.root,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            except OSError as exc:
                message = f"git is not usable ({exc}): markers work as for files outside a repository"
                self.git.warn_once("no-git", message)
                self._broken = True
                return None
        proc = self._proc
        assert proc.stdin is not None
        assert proc.stdout is not None
        try:
            proc.stdin.write(f"{commit}:{path}\n".encode())
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3:
                return None  # "<name> missing": nothing follows
            data = proc.stdout.read(int(header[2]) + 1)[:-1]  # read whatever it is: the next answer starts after it
        except (OSError, ValueError) as exc:
            self.git.warn_once(f"cat-file:{self.root}", f"git cat-file failed in {self.root}: {exc}")
            self.close()
            self._broken = True
            return None
        if header[1] != b"blob":
            return None  # a tree: a folder at that commit
        return data.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self._proc is not None:
            try:
                if self._proc.stdin:
                    self._proc.stdin.close()
                self._proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
            self._proc = None


@dataclass
class GitView:
    """One repository at one HEAD, with every read cached: what the marker tracker asks git."""

    git: Git
    root: Path
    head: str
    _texts: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _renames: dict[str, dict[str, str]] = field(default_factory=dict)
    _changed: dict[str, list[str]] = field(default_factory=dict)
    _targets: dict[tuple[str, str], Target | None] = field(default_factory=dict)
    _added_index: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    _changed_since: dict[str, set[str] | None] = field(default_factory=dict)
    _relative: dict[str, str | None] = field(default_factory=dict)
    _blobs: Blobs | None = None

    @property
    def root_uri(self) -> str:
        return self.root.as_uri().rstrip("/") + "/"

    def relative(self, uri: str) -> str | None:
        """The repo-relative path of a file uri inside this repository (each uri resolved once per view: a sync
        asks it for every marker)."""
        if uri not in self._relative:
            self._relative[uri] = self._resolve(uri)
        return self._relative[uri]

    def _resolve(self, uri: str) -> str | None:
        parsed = urlparse(uri)
        if parsed.scheme != "file":
            return None
        try:
            return Path(unquote(parsed.path)).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None

    def uri(self, path: str) -> str:
        return (self.root / path).as_uri()

    def exists(self, path: str) -> bool:
        """Whether the working tree has the file (a committed path may be gone from it: a staged rename)."""
        return (self.root / path).is_file()

    def text(self, commit: str, path: str) -> str | None:
        key = (commit, path)
        if key not in self._texts:
            if self._blobs is None:
                self._blobs = Blobs(self.git, self.root)
            self._texts[key] = self._blobs.read(commit, path)
        return self._texts[key]

    def renames(self, since: str) -> dict[str, str]:
        if since not in self._renames:
            self._renames[since] = self.git.renames(self.root, since, staged=False)
        return self._renames[since]

    def changed(self, since: str) -> list[str]:
        if since not in self._changed:
            self._changed[since] = self.git.changed_files(self.root, since, self.head)
        return self._changed[since]

    def target(self, since: str, path: str) -> Target | None:
        """``path`` at HEAD with the lines added since ``since``: where a block moved into it would be."""
        key = (since, path)
        if key not in self._targets:
            now = self.text(self.head, path)
            self._targets[key] = None if now is None else Target(now, added_lines(self.text(since, path), now))
        return self._targets[key]

    def know_target(self, since: str, path: str, added: list[int]) -> None:
        """The lines added to ``path`` since ``since``, found by a line mapping made elsewhere (a worker process
        relocating that file's markers): :meth:`target` does not diff the file again."""
        now = self.text(self.head, path)
        if (since, path) not in self._targets and now is not None:
            self._targets[(since, path)] = Target(now, added)

    def targets_to_make(self, since: str) -> list[tuple[str, str | None, str]]:
        """(path, text at ``since``, text at HEAD) of the files changed since ``since`` whose added lines are not
        known yet: the files a block moved away may have gone to."""
        out = []
        for path in self.changed(since):
            now = self.text(self.head, path)
            if (since, path) not in self._targets and now is not None:
                out.append((path, self.text(since, path), now))
        return out

    def changed_since(self, previous: str) -> set[str] | None:
        """Paths whose content differs between ``previous`` and HEAD (None: unknown)."""
        if previous not in self._changed_since:
            self._changed_since[previous] = self.git.paths_changed(self.root, previous, self.head)
        return self._changed_since[previous]

    def files_with_added_line_like(self, since: str, line: str) -> list[str]:
        """Changed files (since ``since``) with an added line similar to ``line``: one C search over all of them."""
        if since not in self._added_index:
            norms: list[str] = []
            owners: list[str] = []
            for path in self.changed(since):
                target = self.target(since, path)
                if target is not None:
                    norms += target.added_norms
                    owners += [path] * len(target.added_norms)
            self._added_index[since] = (norms, owners)
        norms, owners = self._added_index[since]
        return sorted({owners[k] for k in similar_lines(line, norms)})

    def close(self) -> None:
        if self._blobs is not None:
            self._blobs.close()
            self._blobs = None
