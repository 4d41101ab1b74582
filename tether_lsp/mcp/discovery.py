"""Session files: how ``tether-lsp mcp --attach`` finds the running language servers that serve MCP.

Each endpoint writes two files in the state folder (``tether.mcp.http.stateDir``, else
``$XDG_STATE_HOME/tether/mcp``, else ``~/.local/state/tether/mcp``; made with mode 0700): ``<name>.token``, the
bearer token alone, and ``<name>.json``: ``{pid, roots, url, token_file}``. Both are created readable and writable
by the user only (0600), and removed when the endpoint stops. A file whose process is gone (a crash) is ignored,
and removed by the next ``--attach`` that sees it.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SUFFIX = ".json"


def state_dir(override: str | None = None) -> Path:
    """The folder of the session files."""
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "tether" / "mcp"


def _private_dir(folder: Path) -> None:
    """Make ``folder`` (0700) or refuse one that others can write to or that is not ours."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.stat(folder)
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise PermissionError(f"{folder}: not a private folder of this user (owner or permissions): not used")


def _write_private(path: Path, data: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(data)


@dataclass(frozen=True)
class Session:
    """One running endpoint as its session file describes it."""

    file: Path
    pid: int
    roots: list[Path]
    url: str
    token_file: Path

    def token(self) -> str:
        return self.token_file.read_text(encoding="utf-8").strip()

    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def covers(self, folder: Path) -> Path | None:
        """The root of this session that holds ``folder`` (the deepest), or None."""
        inside = [r for r in self.roots if folder == r or folder.is_relative_to(r)]
        return max(inside, key=lambda r: len(r.parts)) if inside else None


def publish(folder: Path, name: str, pid: int, roots: list[Path], url: str, token: str) -> tuple[Path, Path]:
    """Write a session's token and description; returns their paths (for :func:`withdraw`)."""
    _private_dir(folder)
    token_file, description = folder / f"{name}.token", folder / f"{name}{SUFFIX}"
    for old in (token_file, description):
        with contextlib.suppress(FileNotFoundError):
            old.unlink()
    _write_private(token_file, token + "\n")
    body = {"pid": pid, "roots": [str(r) for r in roots], "url": url, "token_file": str(token_file)}
    _write_private(description, json.dumps(body, indent=2) + "\n")
    return description, token_file


def withdraw(*paths: Path) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _read(path: Path) -> Session | None:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
        return Session(path, int(raw["pid"]), [Path(r) for r in raw["roots"]], str(raw["url"]), Path(raw["token_file"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def sessions(folder: Path) -> list[Session]:
    """The live sessions described in ``folder`` (the files of dead ones are removed)."""
    found = []
    for path in sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []:
        session = _read(path)
        if session is None:
            continue
        if not session.alive():
            withdraw(path, session.token_file)
            continue
        found.append(session)
    return found


def find(folder: Path, workspace: Path) -> Session:
    """The session whose workspace holds ``workspace`` (the deepest root; the newest file of equals).
    Raises LookupError saying what was found instead."""
    live = sessions(folder)
    real = Path(os.path.realpath(workspace))
    matches = [(s.covers(real), s) for s in live]
    fitting = [(root, s) for root, s in matches if root is not None]
    if not fitting:
        if not live:
            raise LookupError(
                f"no running Tether language server serves MCP (no session files in {folder}): open the project in "
                "an editor with the setting tether.mcp.http.enabled set to true"
            )
        described = "; ".join(f"pid {s.pid}: {', '.join(map(str, s.roots)) or 'no folder'}" for s in live)
        raise LookupError(f"no running Tether session has {real} in its workspace (running: {described})")
    fitting.sort(key=lambda pair: (len(pair[0].parts), pair[1].file.stat().st_mtime))
    return fitting[-1][1]
