"""The prompt playground of an editor's session as a service, in plain Python values: what a front asks (the
state shown, the editor and cursor it follows, pinning a prompt, a prompt's saved inputs, renames) and what runs
need (:class:`~.runs.Prompts`). The LSP glue (``lsp.py``) only turns wire params into these values and states
(byte spans) into wire ones.

Each method first waits for the document events that arrived before it (:meth:`~.tracker.Tracker.caught_up`),
then applies its effect at once. Keeping the engine up to date with the documents is :mod:`.tracker`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import Pos

from . import identity
from .tracker import DEBOUNCE_S as DEBOUNCE_S
from .tracker import MAX_WORKER_ROUNDS as MAX_WORKER_ROUNDS
from .tracker import SessionHost as SessionHost
from .tracker import Tracker

if TYPE_CHECKING:
    from .engine import State
    from .model import Prompt
    from .store import PlaygroundStore


class Session(Tracker):
    """The server's playground: the engine following the editor's documents, and what the fronts ask of it."""

    def store(self) -> PlaygroundStore:
        """The playground's tables in the server's database of the moment (worker threads only: opening the
        database may migrate it). Raises StorageError when it cannot be opened: the server warns about that
        once, the requests that need the store answer it, the rest of the playground works without."""
        return self.ids.store()

    def prompt(self, prompt_id: str) -> Prompt:
        """The prompt as it is now in an open document, else as the map last saw it (``unknownPrompt`` else)."""
        return identity.prompt_of(self.engine, prompt_id)

    def known(self, prompt_id: str) -> None:
        """Refuse a prompt id the map does not know (``unknownPrompt``)."""
        identity.known(self.engine.pmap, prompt_id)

    async def active_editor(self, uri: str | None, position: Pos | None) -> None:
        """The editor the user looks at changed (None: none), its cursor at ``position`` when given."""
        await self.caught_up()
        self.engine.active = uri
        if uri is not None and position is not None:
            self.positions[uri] = position
        if self.engine.pin is None:
            self.emit()

    async def cursor(self, uri: str, position: Pos) -> None:
        """The cursor moved in ``uri``."""
        await self.caught_up()
        self.positions[uri] = position
        if self.engine.pin is None:
            self.emit()

    async def state(self) -> State:
        """What the playground shows now: the file, its prompts, the selected prompt and why (the last state
        told, while pinned)."""
        await self.caught_up()
        engine = self.engine
        if engine.sent is None or engine.pin is None:
            self.refresh_cursors()
            engine.sent = engine.state()
        return engine.sent

    async def pin(self, file_id: str, prompt_id: str) -> State:
        """Keep showing this prompt whatever the cursor does."""
        await self.caught_up()
        engine = self.engine
        identity.check_pin(engine, file_id, prompt_id)
        engine.pin = (file_id, prompt_id)
        self.emit()
        return engine.state()

    async def unpin(self) -> State:
        """Follow the active editor and cursor again."""
        await self.caught_up()
        self.engine.pin = None
        self.emit()
        return self.engine.state()

    async def set_saved_inputs(self, prompt_id: str, settings: Any) -> None:
        """Store a playground's inputs for a prompt (a JSON object, kept with the prompt's identity)."""
        await self.caught_up()
        if not isinstance(settings, dict):
            raise InvalidParams("settings", f"expected a JSON object, got {type(settings).__name__}")
        self.known(prompt_id)
        saved = settings

        def store_them() -> None:
            self.store().set_settings(prompt_id, saved)

        await self.server.run_blocking(store_them)

    async def saved_inputs(self, prompt_id: str) -> dict[str, Any] | None:
        """The inputs stored for a prompt, or None."""
        await self.caught_up()
        self.known(prompt_id)

        def read_them() -> dict[str, Any] | None:
            return self.store().settings(prompt_id)

        return await self.server.run_blocking(read_them)

    async def files_renamed(self, renames: Iterable[tuple[str, str]]) -> None:
        """Files were renamed (``(old uri, new uri)`` each): their prompts keep their ids."""
        await self.caught_up()
        for old_uri, new_uri in renames:
            self.renamed(old_uri, new_uri)
        self.emit()
