"""What every tool adapter works with: the files inside the roots, the texts handed out, the parses, the settings
(:class:`Context`), and what an adapter returns (:class:`Answer`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_lsp.handlers.selectors.settings import SelectorSettings
from tether_lsp.server.positions import LineIndex
from tether_lsp.server.settings import LimitSettings, Settings
from tether_lsp.server.syntax import GrammarLimits
from tether_lsp.server.thread_host import Components, ThreadHosts

from .files import Files, FileText, Roots
from .history import ExactEdits, History
from .prompt_ids import PromptMaps
from .settings import McpSettings, schema
from .source import Source
from .trees import Trees

if TYPE_CHECKING:
    from tether_lsp.server.storage import Migration

    from .notes_backend import NotesBackend

#: Versions whose line indexes are kept.
KEEP_LINES = 16


def _markers_migrations() -> Sequence[Migration]:
    from tether_lsp.handlers.markers.store import MIGRATIONS  # SQLAlchemy loads when a database opens

    return MIGRATIONS


def _playground_migrations() -> Sequence[Migration]:
    from tether_lsp.handlers.playground.store import MIGRATIONS  # SQLAlchemy loads when a database opens

    return MIGRATIONS


#: The tables this front keeps in a root's database: the same components a language server registers.
COMPONENTS: Components = {"markers": _markers_migrations, "playground": _playground_migrations}


@dataclass(frozen=True)
class Answer:
    """A tool's answer: the structured content (the shapes docs/agents.md shows) and its short text rendering."""

    structured: dict[str, Any]
    text: str


class Context:
    """The agents' front's state: one per server process, used by one tool call at a time (``lock``: a tool's
    work on files, versions and parses holds it; a model call in ``run_prompt`` does not)."""

    def __init__(
        self,
        roots: list[Path],
        settings: Settings | None = None,
        source: Source | None = None,
        exact_edits: ExactEdits | None = None,
    ) -> None:
        """``source``: where files are read and written (attached mode: the editor's workspace); the disk under
        ``roots`` when None. ``exact_edits``: the source's own edits between two versions it handed out (attached
        mode: the editor's recorded ones), for edits made on an older version; None: a line diff."""
        self.settings = settings if settings is not None else schema().parse()[0]
        limits = self.settings.section(LimitSettings)
        mcp = self.settings.section(McpSettings)
        self.limits = limits
        self.mcp = mcp
        self.regex_limits = self.settings.section(SelectorSettings).limits()
        self.files: Source = source if source is not None else Files(Roots(roots), limits.maxFileBytes)
        self.history = History(mcp.historyBytes, mcp.historyFiles, exact_edits)
        self.trees = Trees(GrammarLimits(limits.maxTreeBytes, limits.yamlMaxNesting))
        #: The standalone front's hosts: one per database the roots use (built when a root first needs one), shared by
        #: the notes and the playground so that one process opens each database once.
        self.hosts = ThreadHosts(self.settings, COMPONENTS)
        self.prompt_maps = PromptMaps(self.hosts, self.files.roots)
        self.lock = threading.Lock()
        #: Runs ``fn(*args)`` in a worker process and waits for it (attached mode: the language server's pool);
        #: None: the heavy work of a tool runs in its own thread.
        self.in_process: Callable[..., Any] | None = None
        #: The process id that made the last outline (tests, diagnostics).
        self.outlined_in: int | None = None
        self._lines: OrderedDict[str, LineIndex] = OrderedDict()
        self._notes: NotesBackend | None = None

    @property
    def notes(self) -> NotesBackend:
        """Where the notes tools find the markers: the backend given, else the databases a language server on the
        roots would use (built on the first notes call: nothing opens at start-up)."""
        if self._notes is None:
            from .notes_backend import StandaloneNotes

            self._notes = StandaloneNotes(self.files.roots, self.hosts, self.mcp.author)
        return self._notes

    @notes.setter
    def notes(self, backend: NotesBackend) -> None:
        """Use this backend (attached mode: the language server's own markers, ``notes_backend.LiveNotes``)."""
        self._notes = backend

    def close(self) -> None:
        """Close the notes' states, then the hosts (their loops and databases); what is built later opens anew."""
        notes, self._notes = self._notes, None
        if notes is not None:
            notes.close()
        self.hosts.close()

    def configure(self, settings: Settings) -> None:
        """New settings (attached mode: the editor's changed); what was handed out and parsed is kept."""
        limits, mcp = settings.section(LimitSettings), settings.section(McpSettings)
        self.settings, self.limits, self.mcp = settings, limits, mcp
        self.regex_limits = settings.section(SelectorSettings).limits()
        self.files.max_bytes = limits.maxFileBytes
        self.history.budget, self.history.files = mcp.historyBytes, mcp.historyFiles
        self.trees.limits = GrammarLimits(limits.maxTreeBytes, limits.yamlMaxNesting)
        self.hosts.configure(settings)

    def load(self, path: str, field: str = "path") -> FileText:
        """The file's current text; outside changes are noticed here (see :mod:`.files`)."""
        return self.files.load(path, field)

    def shown(self, file: FileText) -> None:
        """An answer showed this version: keep its text for edits made on it later."""
        self.history.handed_out(file.path, file.version, file.text)

    def lines(self, file: FileText) -> LineIndex:
        """The line index of a version (kept for the few versions used last: a long file's takes milliseconds)."""
        found = self._lines.get(file.version)
        if found is None:
            found = self._lines[file.version] = LineIndex(file.text)
            while len(self._lines) > KEEP_LINES:
                self._lines.popitem(last=False)
        self._lines.move_to_end(file.version)
        return found
