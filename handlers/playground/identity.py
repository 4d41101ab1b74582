"""Prompt identity, for every front: which prompt an id names, and the ids of a file's prompts as it reads now.

An editor's session (:mod:`.session`) keeps the map in memory while documents change; a front that reads files
from disk at each look (the agents' front) asks :meth:`PromptIds.found` for a file's ids, the map read again
from the database each time and what changed written back. Both keep the map in one database per host
(:class:`PromptIds`, over a :class:`~tether_lsp.server.host.Host`), so an agent and an editor on one database
give a prompt one id, and a run an agent makes shows in the editor's run history.

An editor's server reads the map once, when it starts: when it was running before another front first looked
at a file, it gives the file an entry of its own (and its prompts other ids). So the entries made by
:meth:`PromptIds.found` have ids beginning with ``agent-``, and when a file has an editor's entry too, the
editor's is used and the agent's is deleted: both fronts end up with the editor's ids. Without a database, ids
last as long as the process (as the editor's do without one).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tether_lsp.server.errors import InvalidParams, StorageError
from tether_lsp.server.files import file_exists, uri_to_path
from tether_lsp.server.lazy import lazy_module

from .engine import PlaygroundEngine, detect
from .model import MapFile, MapPrompt, PlaygroundMap, Prompt
from .resolver import match_file_by_distance, new_id, resolve_file_prompts
from .run import conversation
from .settings import PlaygroundSettings
from .text import shown
from .text import variables as variables_of

if TYPE_CHECKING:
    from tree_sitter import Tree

    from tether_lsp.server.host import Host

    from . import store
    from .store import PlaygroundStore
else:  # loaded on first use (it brings SQLAlchemy)
    store = lazy_module(f"{__package__}.store")

log = logging.getLogger(__name__)

#: How the ids of the file entries :meth:`PromptIds.found` makes begin (an editor's entry of the file is preferred).
AGENT = "agent-"


@dataclass(frozen=True)
class FoundPrompt:
    """A prompt of a file as it is now, with its id, and what a front shows of it."""

    prompt_id: str
    prompt: Prompt

    @property
    def text(self) -> str:
        """Its text as the playground shows it (an f-string's ``{{`` as the one brace Python renders)."""
        return shown(self.prompt.content)

    @property
    def variables(self) -> tuple[str, ...]:
        """What a run asks values for (a message of a conversation: the whole conversation's)."""
        return conversation(self.prompt).variables


def unknown(prompt_id: str) -> InvalidParams:
    return InvalidParams("promptId", f"no prompt with id {prompt_id!r}", kind="unknownPrompt")


def holding(pmap: PlaygroundMap, prompt_id: str) -> MapFile | None:
    """The map's entry of the file that holds the prompt ``prompt_id``."""
    return next((e for e in pmap.files.values() if any(p.id == prompt_id for p in e.prompts)), None)


def known(pmap: PlaygroundMap, prompt_id: str) -> None:
    """Refuse an id the map does not know (``unknownPrompt``)."""
    if holding(pmap, prompt_id) is None:
        raise unknown(prompt_id)


def check_pin(engine: PlaygroundEngine, file_id: str, prompt_id: str) -> None:
    """Refuse a pin on a file or prompt the editor's session does not show (``unknownPrompt``)."""
    if not any(f.id == file_id for f in engine.pmap.files.values()):
        raise InvalidParams("fileId", f"no file with id {file_id!r}", kind="unknownPrompt")
    if engine.find(file_id, prompt_id) is None:
        raise InvalidParams("promptId", f"no prompt {prompt_id!r} in that file", kind="unknownPrompt")


def last_seen(known: MapPrompt) -> Prompt:
    """A prompt as the map last saw it (its file is not open, or is gone)."""
    return Prompt(known.anchor, known.content, (0, 0), tuple(variables_of(known.content)))


def prompt_of(engine: PlaygroundEngine, prompt_id: str) -> Prompt:
    """The prompt as it is now in an open document, else as the map last saw it; ``unknownPrompt`` else."""
    for view in engine.views.values():
        for found in view.found:
            if found.prompt_id == prompt_id:
                return found.prompt
    for entry in engine.pmap.files.values():
        for kept in entry.prompts:
            if kept.id == prompt_id:
                return last_seen(kept)
    raise unknown(prompt_id)


def prompt_now(entry: MapFile, prompt_id: str, found: Sequence[FoundPrompt] | None) -> Prompt | None:
    """The prompt of ``entry`` as its file reads now (``found``: the file's prompts; None: the file is gone, so
    as the map last saw it); None when the file no longer holds it."""
    if found is None:
        return next((last_seen(p) for p in entry.prompts if p.id == prompt_id), None)
    return next((f.prompt for f in found if f.prompt_id == prompt_id), None)


def same_file(uri: str, path: Path) -> bool:
    """Whether a map entry's uri (in the spelling its editor used) names the real path ``path``."""
    named = uri_to_path(uri)
    if named is None:
        return False
    if named == path:
        return True
    return named.name == path.name and Path(os.path.realpath(named)) == path


def entries_of(pmap: PlaygroundMap, path: Path) -> list[MapFile]:
    """The map's entries of the file at ``path`` (one, unless two fronts each made one)."""
    return [e for e in pmap.files.values() if same_file(e.uri, path)]


def preferred(entries: list[MapFile]) -> MapFile | None:
    """The entry whose ids are given: an editor's before an agent's, then the one changed last."""
    return max(entries, key=lambda e: (not e.id.startswith(AGENT), e.updated_at)) if entries else None


class PromptIds:
    """The playground map in one host's database: its tables, the map as stored now, a file's ids as it reads now.
    Worker threads only (opening the database may migrate it)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        #: The map of a process whose database cannot be opened: its ids last as long as the process.
        self.memory = PlaygroundMap()
        self._store: PlaygroundStore | None = None

    def store(self) -> PlaygroundStore:
        """The playground's tables in the host's database of the moment. Raises StorageError when it cannot be
        opened (logged where it happened). Two workers racing here make two equivalent stores over the same
        database; one is kept."""
        stores = store.PlaygroundStore  # loads the store (its tables' migrations) before the database opens
        database = self.host.database()
        current = self._store
        if current is None or current.db is not database:
            current = self._store = stores(database)
        return current

    def stored_map(self) -> PlaygroundMap | None:
        """The map as stored now; None when there is no database (StorageError, already logged)."""
        try:
            return self.store().load()
        except StorageError as exc:
            log.debug("playground: no stored map (%s); prompt ids last for this process only", exc)
            return None

    def current(self) -> tuple[PlaygroundMap, PlaygroundStore | None]:
        """The map as stored now and its store, or this process's own map when there is no database."""
        pmap = self.stored_map()
        return (self.memory, None) if pmap is None else (pmap, self.store())

    def holding(self, prompt_id: str) -> MapFile | None:
        """The entry (as stored now) of the file that holds ``prompt_id``."""
        return holding(self.current()[0], prompt_id)

    def found(self, path: Path, language: str, tree: Tree, text: bytes) -> list[FoundPrompt]:
        """The prompts of the file at ``path`` (its real path; ``text`` parsed as ``tree``) in document order,
        with the ids the editors' playground gives them; what the resolver changed is written back."""
        mine = self.host.settings.section(PlaygroundSettings)
        return self.named(path, detect(language, tree, text, mine.keywords or None, mine.yamlKeys or None))

    def named(self, path: Path, prompts: list[Prompt]) -> list[FoundPrompt]:
        """:meth:`found` for prompts detected already (in a worker process, say), in document order."""
        limits = self.host.settings.section(PlaygroundSettings).thresholds()
        pmap, stored = self.current()
        entries = entries_of(pmap, path)
        entry = preferred(entries)
        if entry is None and not prompts:
            return []  # as in the editor: no entry for a file without prompts
        # the file's other entries (another front's) are neither matched nor renamed
        others = {id(e) for e in entries if e is not entry}
        view = PlaygroundMap({k: e for k, e in pmap.files.items() if id(e) not in others})
        uri = entry.uri if entry is not None else path.as_uri()
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
        if stored is not None:
            try:
                if changed:
                    stored.save_file(entry)
                for other in entries:
                    if other is not entry and other.id.startswith(AGENT) and not entry.id.startswith(AGENT):
                        stored.forget_file(other.id)  # an editor's entry came after: the agent's own goes
            except StorageError as exc:  # logged where it happened: the ids hold for this answer
                log.debug("playground: the map of %s is not saved (%s)", path, exc)
        return [FoundPrompt(pid, prompt) for pid, prompt in zip(ids, prompts, strict=True)]


class OnePrompt:
    """Where a run finds a prompt already found as its file reads now (:func:`prompt_now`), and keeps its history:
    what :class:`~.runs.Runner` needs, for a front with no editor's session."""

    def __init__(self, prompt_id: str, prompt: Prompt, ids: PromptIds) -> None:
        self.prompt_id = prompt_id
        self._prompt = prompt
        self.ids = ids

    async def caught_up(self) -> None:
        """Nothing to wait for: the file was read when the prompt was found."""

    def prompt(self, prompt_id: str) -> Prompt:
        if prompt_id != self.prompt_id:
            raise unknown(prompt_id)
        return self._prompt

    def store(self) -> PlaygroundStore:
        return self.ids.store()
