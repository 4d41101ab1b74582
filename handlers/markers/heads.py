"""HEAD read before a markers request answers from the cache, on a thread of its own.

An editor that does not watch ``.git/HEAD`` (no ``workspace/didChangeWatchedFiles``) sends nothing after a
commit or a checkout, so a request cannot trust that the locations it cached for an open document are still
at the clone's HEAD: it reads HEAD first (``.git/HEAD`` and the ref it names, a few hundred bytes; ``git
rev-parse`` for other layouts such as worktrees) and drops the cache when HEAD moved. The read runs on one
thread kept for it: never on the loop, never queued behind the worker pool's long jobs (a HEAD recalculation).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .git import Git


class HeadCheck:
    def __init__(self, git: Git) -> None:
        self.git = git
        self._pool: ThreadPoolExecutor | None = None

    async def current(self, root: Path) -> str | None:
        """Loop: the HEAD commit of the repository at ``root`` now."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="markers-head")
        return await asyncio.get_running_loop().run_in_executor(self._pool, self.git.head, root)

    def close(self) -> None:
        """Off the loop at shutdown: the thread ends."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
