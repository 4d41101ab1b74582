"""Where Tether keeps its own files for a workspace (the SQLite database, task session logs).

In a git clone that is ``tether/`` inside the clone's git directory: git never shows its own directory as
untracked, every worktree of the clone shares it, and deleting the clone deletes it. Outside git it is the
user data folder. Light on purpose (no SQLAlchemy): features that only write files use it too. The functions
touch the disk: call them off the event loop.
"""

from __future__ import annotations

from pathlib import Path


def find_git_dir(start: Path) -> Path | None:
    """The git directory shared by the clone containing ``start`` (worktrees resolve to the common dir)."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            content = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if content.startswith("gitdir:"):
                git_dir = (folder / content[len("gitdir:") :].strip()).resolve()
                common = git_dir / "commondir"
                if common.is_file():
                    return (git_dir / common.read_text(encoding="utf-8").strip()).resolve()
                return git_dir
    return None


def data_folder(workspace_root: Path | None) -> Path:
    """``.git/tether`` of the workspace's clone, else ``<user data dir>/tether`` (not created here)."""
    if workspace_root is not None:
        git_dir = find_git_dir(workspace_root)
        if git_dir is not None:
            return git_dir / "tether"
    import platformdirs  # here, not at start-up: on Linux it imports tempfile, shutil, random...

    return Path(platformdirs.user_data_dir("tether", appauthor=False))
