"""Git access for markers, in one place: the git CLI with a timeout, no shell, never fatal.

Every function returns None when git is missing, the path is not in a repository, or the repository is
broken — markers then work as for files outside git (MARKERS.md), and :func:`warn_once` logs it once.
"""

from __future__ import annotations

import logging
import subprocess
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

TIMEOUT_S = 10
_warned: set[str] = set()


def warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        log.warning("%s", message)


def _git(cwd: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        warn_once("no-git", "git is not installed: markers work as for files outside a repository")
        return None
    except (OSError, subprocess.TimeoutExpired) as exc:
        warn_once(f"git-failed:{cwd}", f"git failed in {cwd}: {exc}")
        return None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", errors="replace").strip()
        if "not a git repository" not in err:
            warn_once(f"git-error:{cwd}:{args[0]}", f"git {args[0]} failed in {cwd}: {err.splitlines()[-1:] or ''}")
        return None
    return done.stdout.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class FileInRepo:
    root: Path
    path: str  # repo-relative, with forward slashes


def locate_file(path: Path) -> FileInRepo | None:
    """The repository containing ``path`` (which may not exist yet), if any."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    root = Path(top.strip())
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        return None
    return FileInRepo(root, relative.as_posix())


def head(root: Path) -> str | None:
    out = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    return out.strip() if out else None


def show(root: Path, commit: str, path: str) -> str | None:
    """The file's text at ``commit`` (None when it does not exist there)."""
    return _git(root, "show", f"{commit}:{path}")


def user_name(root: Path | None) -> str | None:
    out = _git(root or Path.cwd(), "config", "user.name")
    name = out.strip() if out else ""
    return name or None


def renames(root: Path, since: str) -> dict[str, str]:
    """Old repo-relative path -> new one, for files renamed between ``since`` and the working tree.

    Committed renames (``git diff -M`` from ``since`` to HEAD) and staged ones (``git mv`` not yet committed).
    """
    out: dict[str, str] = {}
    for args in (
        ("diff", "-M", "--name-status", "-z", since, "HEAD"),
        ("diff", "-M", "--name-status", "-z", "--cached"),
    ):
        text = _git(root, *args)
        if not text:
            continue
        fields = text.split("\0")
        k = 0
        while k < len(fields) - 1:
            status = fields[k]
            if status.startswith(("R", "C")) and k + 2 < len(fields):
                if status.startswith("R"):
                    old, new = fields[k + 1], fields[k + 2]
                    out[old] = new
                    for key, value in list(out.items()):  # chain: a -> b then b -> c gives a -> c
                        if value == old:
                            out[key] = new
                k += 3
            else:
                k += 2
    return out
