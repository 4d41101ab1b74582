"""The log of one inline task: ``raw.md`` (what the model got and said) and ``session.md`` (what the user reads),
in Tether's data folder, ``sessions/<UTC timestamp>/`` (in the clone's git directory, never in the worktree,
where git would show it as untracked)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tether_lsp.server.datadir import data_folder

#: How often, at most, what streams in is written down (not per token).
LOG_FLUSH_S = 0.2

#: Runs a blocking function in a worker and awaits it (the server's ``run_blocking``).
RunBlocking = Callable[..., Awaitable[Any]]


def session_folder(root: Path | None) -> Path:
    """Worker (it looks for the clone's git directory): this run's folder in Tether's data folder."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    return data_folder(root) / "sessions" / stamp


class SessionLog:
    """``raw.md`` (exactly what was sent and received) and ``session.md`` (what the user reads).

    Text is gathered on the loop and written by a worker: at most every ``LOG_FLUSH_S`` while the model
    streams (not per token), and whole at the end (:meth:`close`).
    """

    def __init__(self, run_blocking: RunBlocking, folder: Path) -> None:
        self.run_blocking = run_blocking
        self.folder = folder
        self.raw = folder / "raw.md"
        self.session = folder / "session.md"
        self._raw: list[str] = []
        self._said: list[str] = []
        self._timer: asyncio.TimerHandle | None = None
        self._writes: set[asyncio.Future[None]] = set()

    def _create(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.raw.write_text("", encoding="utf-8")
        self.session.write_text("", encoding="utf-8")

    async def open(self) -> SessionLog:
        await self.run_blocking(self._create)
        return self

    def _append(self, raw: str, said: str) -> None:
        if raw:
            with self.raw.open("a", encoding="utf-8") as f:
                f.write(raw)
        if said:
            with self.session.open("a", encoding="utf-8") as f:
                f.write(said)

    def _soon(self) -> None:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(LOG_FLUSH_S, self._flush)

    def _flush(self) -> None:
        self._timer = None
        raw, said = "".join(self._raw), "".join(self._said)
        self._raw, self._said = [], []
        if raw or said:
            task = asyncio.ensure_future(self.run_blocking(self._append, raw, said))
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)

    async def close(self) -> None:
        """Write what is left, after the writes under way."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._writes:
            await asyncio.wait(list(self._writes))
        raw, said = "".join(self._raw), "".join(self._said)
        self._raw, self._said = [], []
        await self.run_blocking(self._append, raw, said)

    def raw_write(self, text: str) -> None:
        self._raw.append(text)
        self._soon()

    def say(self, text: str) -> None:
        self._said.append(text + "\n")
        self._soon()
