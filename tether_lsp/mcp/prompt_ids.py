"""Prompt ids as the editors' playground gives them, for the agents' front: each root's prompts are named by the
playground's identity service (:class:`~tether_lsp.handlers.playground.identity.PromptIds`) in the database the
root's host opens: the one a language server on that root opens (``tether.database.url``, else
``TETHER_DATABASE_URL``, else ``tether.db`` in the root's data folder), one host per database
(:class:`~tether_lsp.server.thread_host.ThreadHosts`). So an agent and an editor on the same database name the
same prompt with the same id, and a run an agent makes shows in the editor's run history.

The service reads the map again at every look (the editor's server writes it as the user types) and writes
back what changed; this module only hands it the front's files and parses.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from tether_lsp.handlers.playground.identity import FoundPrompt as FoundPrompt
from tether_lsp.handlers.playground.identity import PromptIds

if TYPE_CHECKING:
    from tether_lsp.handlers.playground.engine import Prompt
    from tether_lsp.server.settings import Settings
    from tether_lsp.server.thread_host import ThreadHosts

    from .files import FileText, Roots
    from .trees import Parsed


class PromptMaps:
    """The identity service of each database the roots use (built when a root first needs it)."""

    def __init__(self, hosts: ThreadHosts, roots: Roots) -> None:
        self.hosts = hosts
        self.roots = roots
        self._ids: dict[int, PromptIds] = {}
        self._lock = threading.Lock()

    def of(self, root: Path) -> PromptIds:
        """The service over the database ``root`` uses."""
        host = self.hosts.of(root)
        with self._lock:
            found = self._ids.get(id(host))
            if found is None or found.host is not host:
                found = self._ids[id(host)] = PromptIds(host)
            return found

    def root_of(self, path: Path) -> Path:
        return next(root for root in self.roots.folders if path == root or path.is_relative_to(root))

    def each(self) -> list[PromptIds]:
        """Each database's service once (roots sharing a database share it), in the roots' order."""
        out: list[PromptIds] = []
        for root in self.roots.folders:
            ids = self.of(root)
            if not any(ids is seen for seen in out):
                out.append(ids)
        return out

    def found(self, file: FileText, parsed: Parsed) -> list[FoundPrompt]:
        """The file's prompts in document order, with the ids the editors' playground gives them."""
        return self.of(self.root_of(file.path)).found(file.path, parsed.language, parsed.tree, file.text)

    def named(self, file: FileText, prompts: list[Prompt]) -> list[FoundPrompt]:
        """:meth:`found` for the file's prompts detected already (in a worker process)."""
        return self.of(self.root_of(file.path)).named(file.path, prompts)

    @property
    def settings(self) -> Settings:
        """The hosts' settings: what their playground detects prompts with."""
        return self.hosts.settings
