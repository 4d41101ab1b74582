"""What a feature's services need of the process they run in, written once for every front.

The language server (:class:`~tether_lsp.server.app.TetherServer`) is one ``Host``; the standalone agents' front
runs the same services on a :class:`~tether_lsp.server.thread_host.ThreadHost`. A service that needs more (open
documents, the editor's writes) asks for it with a protocol of its own next to it, beside this one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from .settings import Settings
    from .storage import Database
    from .syntax import GrammarLimits

R = TypeVar("R")


class Reporter(Protocol):
    """Progress of one long piece of work, as the front shows it (``$/progress`` over LSP, nothing elsewhere)."""

    minimum: int

    def report(self, done: int, total: int, message: str | None = None) -> None: ...
    def end(self, message: str = "done") -> None: ...


class Host(Protocol):
    """Workers, the loop, settings, the databases, progress: what every service may ask of its process."""

    @property
    def settings(self) -> Settings: ...
    @property
    def workspace_root(self) -> Path | None: ...

    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` on a worker: file, git and database work never runs on the loop."""

    async def run_in_process(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` in a worker process (:mod:`.processes`): heavy pure work that must not hold the loop's
        interpreter. ``fn`` is top level; its arguments and result are plain picklable values."""

    def spawn(self, work: Awaitable[Any], what: str) -> None:
        """Loop: run ``work`` in the background, a failure logged as ``what``."""

    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the loop, from the loop or a worker."""

    def database(self) -> Database:
        """The shared database (opened and migrated on first use); StorageError when it cannot be."""

    def local_database(self) -> Database:
        """This machine's own SQLite database (the shared one itself unless that is PostgreSQL)."""

    def grammar_limits(self) -> GrammarLimits: ...

    async def start_progress(self, title: str, client_token: str | int | None = None) -> Reporter:
        """Show the progress of one long piece of work (on the request's own token when it gave one)."""


class Silent:
    """A progress reporter nobody watches (a front with no progress to show)."""

    minimum = 0

    def report(self, done: int, total: int, message: str | None = None) -> None:
        pass

    def end(self, message: str = "done") -> None:
        pass
