"""What the markers' services need of the server they run in, as typed protocols: any front (the language
server, or another) that offers these can run them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tether_lsp.server.settings import Settings
from tether_lsp.server.syntax import GrammarLimits

if TYPE_CHECKING:
    from tether_lsp.server.storage import Database

R = TypeVar("R")


class Reporter(Protocol):
    """Progress of one long piece of work, as the front shows it (``$/progress`` over LSP)."""

    minimum: int

    def report(self, done: int, total: int, message: str | None = None) -> None: ...
    def end(self, message: str = "done") -> None: ...


class Host(Protocol):
    """What the markers need of the server they run in: workers, the databases, settings, progress."""

    settings: Settings
    workspace_root: Path | None

    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R: ...
    def spawn(self, work: Awaitable[Any], what: str) -> None: ...
    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None: ...
    def database(self) -> Database: ...
    def local_database(self) -> Database: ...
    def grammar_limits(self) -> GrammarLimits: ...
    async def start_progress(self, title: str) -> Reporter: ...
