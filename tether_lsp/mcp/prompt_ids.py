"""Prompt ids as the editors' playground gives them: the prompts of a file are found by the playground's detection
(``handlers/playground/engine.py``) and named by its resolver (``resolver.py``) in the playground map its store
keeps (``store.py``), in the database the language server would open for a workspace at the file's root
(``tether.database.url``, else ``TETHER_DATABASE_URL``, else ``tether.db`` in the root's data folder:
``.git/tether`` of its clone, or the user data folder). So an agent and an editor on the same database name
the same prompt with the same id, and a run an agent makes shows in the editor's run history.

The map is read again at every look (the editor's server writes it as the user types), and what the resolver
changed is written back, the way the editor's server writes it. An editor's server reads the map once, when
it starts: when it was running before this front first looked at a file, it gives the file an entry of its own
(and its prompts other ids). So the entries this front makes have ids beginning with ``agent-``, and when a
file has an editor's entry too, the editor's is used and this front's is deleted: the two fronts end up with
the editor's ids. Without a database, ids last as long as the process (as the editor's do without one).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tether_lsp.handlers.playground.engine import detect
from tether_lsp.handlers.playground.model import MapFile, PlaygroundMap, Prompt
from tether_lsp.handlers.playground.resolver import match_file_by_distance, new_id, resolve_file_prompts
from tether_lsp.handlers.playground.settings import PlaygroundSettings
from tether_lsp.server.databases import Databases
from tether_lsp.server.datadir import data_folder
from tether_lsp.server.errors import StorageError
from tether_lsp.server.files import file_exists, uri_to_path
from tether_lsp.server.settings import DatabaseSettings, Settings

from .files import FileText, Roots
from .trees import Parsed

if TYPE_CHECKING:
    from tether_lsp.handlers.playground.store import PlaygroundStore
    from tether_lsp.server.storage import Migration

log = logging.getLogger(__name__)

#: The environment variable naming the database, as the language server reads it.
DATABASE_ENV = "TETHER_DATABASE_URL"
#: How the ids of the file entries this front makes begin (an editor's entry of the same file is preferred).
AGENT = "agent-"


@dataclass(frozen=True)
class FoundPrompt:
    """A prompt of a file as it is now, with its id."""

    prompt_id: str
    prompt: Prompt


def _migrations() -> Sequence[Migration]:
    from tether_lsp.handlers.playground.store import MIGRATIONS  # SQLAlchemy loads when a database opens

    return MIGRATIONS


def same_file(uri: str, path: Path) -> bool:
    """Whether a map entry's uri (in the spelling its editor used) names the real path ``path``."""
    named = uri_to_path(uri)
    if named is None:
        return False
    if named == path:
        return True
    return named.name == path.name and Path(os.path.realpath(named)) == path


class PromptMaps:
    """The playground map of each root's database, read and written at each look; an in-memory map for the
    roots whose database cannot be opened."""

    def __init__(self, settings: Settings, roots: Roots) -> None:
        self.settings = settings
        self.roots = roots
        self.memory = PlaygroundMap()
        self._databases: dict[str, Databases] = {}
        self._lock = threading.Lock()

    def _url(self) -> str | None:
        return self.settings.section(DatabaseSettings).url or os.environ.get(DATABASE_ENV) or None

    def _databases_of(self, root: Path) -> Databases:
        key = "url" if self._url() else str(data_folder(root))
        with self._lock:
            found = self._databases.get(key)
            if found is None:
                found = self._databases[key] = Databases(self._url, lambda: root)
                found.register("playground", _migrations)
            return found

    def store(self, root: Path) -> PlaygroundStore:
        """The playground's tables in the root's database (opened and migrated on first use); StorageError when it
        cannot be opened (logged once per failure)."""
        from tether_lsp.handlers.playground.store import PlaygroundStore

        return PlaygroundStore(self._databases_of(root).shared())

    def root_of(self, path: Path) -> Path:
        return next(root for root in self.roots.folders if path == root or path.is_relative_to(root))

    def load(self, root: Path) -> tuple[PlaygroundMap, PlaygroundStore | None]:
        """The root's map as stored now (and its store), or the in-memory map when there is no database."""
        try:
            store = self.store(root)
            return store.load(), store
        except StorageError as exc:
            log.debug("prompt ids: no stored map (%s); ids last for this process only", exc)
            return self.memory, None

    def maps(self) -> list[tuple[Path, PlaygroundMap, PlaygroundStore | None]]:
        """Each database's map once (roots sharing a database share a map), with a root that uses it."""
        out: list[tuple[Path, PlaygroundMap, PlaygroundStore | None]] = []
        seen: set[int] = set()
        for root in self.roots.folders:
            pmap, store = self.load(root)
            key = id(store.db) if store is not None else id(self.memory)
            if key not in seen:
                seen.add(key)
                out.append((root, pmap, store))
        return out

    def found(self, file: FileText, parsed: Parsed) -> list[FoundPrompt]:
        """The file's prompts in document order, with the ids the editors' playground gives them."""
        mine = self.settings.section(PlaygroundSettings)
        limits = mine.thresholds()
        prompts = detect(parsed.language, parsed.tree, file.text, mine.keywords or None, mine.yamlKeys or None)
        pmap, store = self.load(self.root_of(file.path))
        entries = entries_of(pmap, file.path)
        entry = preferred(entries)
        if entry is None and not prompts:
            return []  # as in the editor: no entry for a file without prompts
        # the file's other entries (another front's) are neither matched nor renamed
        others = {id(e) for e in entries if e is not entry}
        view = PlaygroundMap({k: e for k, e in pmap.files.items() if id(e) not in others})
        uri = entry.uri if entry is not None else file.path.as_uri()
        renamed_from = None
        if entry is None:
            entry = match_file_by_distance(view, prompts, file_exists, limits)  # a file renamed: its ids go with it
            if entry is not None:
                renamed_from = entry.uri
            else:
                entry = MapFile(AGENT + new_id(), uri, time.time())
                view.files[entry.id] = entry
        entry, ids, changed = resolve_file_prompts(
            view, uri, prompts, exists=file_exists, renamed_from=renamed_from, limits=limits
        )
        pmap.files[entry.id] = entry
        if store is not None:
            try:
                if changed:
                    store.save_file(entry)
                for other in entries:
                    if other is not entry and other.id.startswith(AGENT) and not entry.id.startswith(AGENT):
                        store.forget_file(other.id)  # an editor's entry came after: the agent's own goes
            except StorageError as exc:  # logged where it happened: the ids hold for this answer
                log.debug("prompt ids: the map of %s is not saved (%s)", file.shown, exc)
        return [FoundPrompt(pid, prompt) for pid, prompt in zip(ids, prompts, strict=True)]


def entries_of(pmap: PlaygroundMap, path: Path) -> list[MapFile]:
    """The map's entries of the file at ``path`` (one, unless two fronts each made one)."""
    return [e for e in pmap.files.values() if same_file(e.uri, path)]


def preferred(entries: list[MapFile]) -> MapFile | None:
    """The entry whose ids are given: an editor's before an agent's, then the one changed last."""
    return max(entries, key=lambda e: (not e.id.startswith(AGENT), e.updated_at)) if entries else None
