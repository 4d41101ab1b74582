"""Where the notes tools find the markers: a :class:`NotesBackend` gives the markers state (``MarkersState``,
``handlers/markers/state.py``) that keeps a file's markers. The tools call that state's service API, which also
does what follows a write (``MarkersState.after_write``).

Two backends:

* :class:`StandaloneNotes` (``tether-lsp mcp``): one markers state per database the roots use, each on that
  database's :class:`~tether_lsp.server.thread_host.ThreadHost` (the context's, shared with the playground),
  built on the first notes call (nothing opens at start-up). The databases are the ones a language server on the
  same folder opens, so notes and the editors' markers are the same records.
* :class:`LiveNotes`: a running language server's own markers state (the agents' front inside it), whose
  changes reach the editor at once: after each write the state drops its cache of the file, tells its SQLite
  watch the change is its own and sends ``tether/markers/didChange`` once, on the server's loop.

The tools call a backend from a worker thread, one call at a time (the context's lock).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.server.thread_host import ThreadHost, ThreadHosts

from .files import Roots


class NotesBackend(Protocol):
    """What the notes tools need: the markers state of a file, every state (a note is found by id), and who the
    notes they add are by."""

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

    def close(self) -> None: ...


class StandaloneNotes:
    """The standalone front's notes: per database (``tether.database.url``, else ``TETHER_DATABASE_URL``, else
    the ``tether.db`` of each root's data folder) one markers state on that database's host, built when first
    needed. The hosts are not this backend's: whoever made them closes them."""

    def __init__(self, roots: Roots, hosts: ThreadHosts, author: str) -> None:
        self.roots = roots
        self.hosts = hosts
        self.author = author
        self._states: dict[ThreadHost, MarkersState] = {}
        self._lock = threading.Lock()

    def _root_of(self, path: Path) -> Path:
        folders = self.roots.folders
        return next((r for r in folders if path == r or path.is_relative_to(r)), folders[0])

    def state_of(self, path: Path) -> MarkersState:
        host = self.hosts.of(self._root_of(path))
        with self._lock:
            found = self._states.get(host)
            if found is None:
                found = self._states[host] = MarkersState(host)
            return found

    def states(self) -> list[MarkersState]:
        out: list[MarkersState] = []
        for root in self.roots.folders:
            state = self.state_of(root)
            if state not in out:
                out.append(state)
        return out

    def close(self) -> None:
        with self._lock:
            found, self._states = list(self._states.values()), {}
        for state in found:
            state.close()


class LiveNotes:
    """A language server's own markers state as the notes backend (its writes reach the editor through the
    state's own ``on_change``, on its server's loop)."""

    def __init__(
        self, state: MarkersState, author: Callable[[], str], call_on_loop: Callable[..., Any] | None = None
    ) -> None:
        """``call_on_loop``: not needed any more (the state reaches its server's loop itself); accepted as before."""
        self.state = state
        self._author = author

    @property
    def author(self) -> str:
        """The author as the settings say now (``tether.mcp.author``: the editor may change it)."""
        return self._author()

    def state_of(self, path: Path) -> MarkersState:
        return self.state

    def states(self) -> list[MarkersState]:
        return [self.state]

    def close(self) -> None:
        """The server closes its own state."""
