"""Where the notes tools find the markers: a :class:`NotesBackend` gives the markers state (``MarkersState``,
``handlers/markers/state.py``) that keeps a file's markers, and hears of the changes the tools make.

Two backends:

* :class:`StandaloneNotes` (``tether-lsp mcp``): one markers state per database the roots use, each on a
  :class:`~.notes_host.ThreadHost`, built on the first notes call (nothing opens at start-up). The databases
  are the ones a language server on the same folder opens, so notes and the editors' markers are the same
  records.
* :class:`LiveNotes`: a running language server's own markers state (the agents' front inside it), whose
  changes reach the editor at once: the state's cache of the file is dropped and ``tether/markers/didChange``
  sent, on the server's loop.

The tools call a backend from a worker thread, one call at a time (the context's lock).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.server.datadir import data_folder
from tether_lsp.server.settings import Settings

from .files import Roots
from .notes_host import ThreadHost, database_url


class NotesBackend(Protocol):
    """What the notes tools need: the markers state of a file, every state (a note is found by id), and where
    to tell that markers changed."""

    @property
    def author(self) -> str:
        """Who the notes the tools add are by (``tether.mcp.author``)."""
        ...

    def state_of(self, path: Path) -> MarkersState:
        """The markers state keeping the markers of ``path`` (a real path inside a root)."""
        ...

    def states(self) -> list[MarkersState]:
        """Every markers state this front uses (each once)."""
        ...

    def changed(self, state: MarkersState, uris: list[str]) -> None:
        """Worker: the tools changed the markers of these files (created, updated, deleted one)."""
        ...

    def close(self) -> None: ...


class StandaloneNotes:
    """The standalone front's notes: per database (``tether.database.url``, else ``TETHER_DATABASE_URL``, else
    the ``tether.db`` of each root's data folder) one markers state, built when first needed."""

    def __init__(self, roots: Roots, settings: Settings, author: str) -> None:
        self.roots = roots
        self.settings = settings
        self.author = author
        self._states: dict[str, tuple[ThreadHost, MarkersState]] = {}
        self._lock = threading.Lock()

    def _key(self, root: Path) -> str:
        return "url" if database_url(self.settings) else str(data_folder(root))

    def _root_of(self, path: Path) -> Path:
        folders = self.roots.folders
        return next((r for r in folders if path == r or path.is_relative_to(r)), folders[0])

    def state_of(self, path: Path) -> MarkersState:
        root = self._root_of(path)
        key = self._key(root)
        with self._lock:
            found = self._states.get(key)
            if found is None:
                host = ThreadHost(self.settings, root)
                found = self._states[key] = (host, MarkersState(host))
            return found[1]

    def states(self) -> list[MarkersState]:
        out: list[MarkersState] = []
        for root in self.roots.folders:
            state = self.state_of(root)
            if state not in out:
                out.append(state)
        return out

    def changed(self, state: MarkersState, uris: list[str]) -> None:
        """Nothing to tell: no editor is attached (other servers read the database; on PostgreSQL they hear of it
        through the markers' own NOTIFY)."""

    def close(self) -> None:
        with self._lock:
            found, self._states = list(self._states.values()), {}
        for host, state in found:
            state.close()
            host.close()


class LiveNotes:
    """A language server's own markers state as the notes backend: ``call_on_loop`` is the server's (the state's
    cache and its ``on_change``, which sends ``tether/markers/didChange``, belong to its loop)."""

    def __init__(self, state: MarkersState, author: Callable[[], str], call_on_loop: Callable[..., Any]) -> None:
        self.state = state
        self._author = author
        self.call_on_loop = call_on_loop

    @property
    def author(self) -> str:
        """The author as the settings say now (``tether.mcp.author``: the editor may change it)."""
        return self._author()

    def state_of(self, path: Path) -> MarkersState:
        return self.state

    def states(self) -> list[MarkersState]:
        return [self.state]

    def changed(self, state: MarkersState, uris: list[str]) -> None:
        def deliver() -> None:
            state.forget(*uris)
            state.on_change(sorted(set(uris)))

        if uris:
            self.call_on_loop(deliver)

    def close(self) -> None:
        """The server closes its own state."""
