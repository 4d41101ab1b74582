"""LSP edge of the prompt playground (docs/protocol.md, "Prompt playground"): editor notifications, state
requests, pin, settings, ``workspace/didRenameFiles`` and ``tether/playground/didChangeState``.

The playground itself is the :class:`.session.Session` service (prompt ids in the server's database through
:class:`.identity.PromptIds`, as the agents' front finds them); this module turns wire params into its plain
values and its states (byte spans) into ``PlaygroundState`` (ranges), and registers the methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tether_lsp.server.hooks import DocumentEvent
from tether_lsp.server.methods import Feature, Method, Notice
from tether_lsp.server.positions import LineIndex, Pos, lsp_range

from . import identity, lsp_run
from .engine import Item, State
from .session import Session
from .settings import PlaygroundSettings
from .wire import (
    ActiveEditorParams,
    CursorParams,
    Empty,
    FileInfo,
    GetSettingsParams,
    Pin,
    PinParams,
    PlaygroundRunParams,
    PlaygroundRunResult,
    PlaygroundState,
    PromptItem,
    RunOutput,
    RunsParams,
    SelectedPrompt,
    SetSettingsParams,
    StoredRun,
)

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer
    from tether_lsp.server.storage import Migration


class StateWire:
    """The playground's state as it goes on the wire (the last one is kept: a getState right after a
    notification reuses it)."""

    def __init__(self, server: TetherServer) -> None:
        self.server = server
        self._last: tuple[State, PlaygroundState] | None = None

    def __call__(self, state: State) -> PlaygroundState:
        if self._last is not None and self._last[0] is state:
            return self._last[1]
        wired = self._wire(state)
        self._last = (state, wired)
        return wired

    def _wire(self, state: State) -> PlaygroundState:
        encoding = self.server.encoding
        doc = self.server.document(state.uri) if state.uri else None
        versions = reversed(doc.versions()) if doc is not None else ()  # the state's version may be typed over since
        kept = next((v for v in versions if state.version in (None, v.version)), None)
        same = kept is not None and kept.materialised and (kept.text is state.text or kept.text == state.text)
        index = kept.index if kept is not None and same else LineIndex(state.text)

        def item(i: Item) -> PromptItem:
            return PromptItem(i.file_id, i.prompt_id, i.preview, lsp_range(index, *i.span, encoding), i.anchor)

        prompt = None
        if state.prompt is not None and state.content is not None and state.reason is not None:
            p = item(state.prompt)
            prompt = SelectedPrompt(
                p.file_id,
                p.prompt_id,
                p.preview,
                p.range,
                p.anchor,
                state.content,
                state.reason,
                list(state.variables),
                state.role,
            )
        file = None
        if state.uri is not None and state.file_id is not None:
            file = FileInfo(state.uri, state.file_id, state.language_id or "")
        return PlaygroundState(
            file, prompt, [item(i) for i in state.prompts], Pin(*state.pin) if state.pin else None, state.parse_error
        )


RENAME_OPTIONS = types.FileOperationRegistrationOptions(
    filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*"))]
)


class PlaygroundFront:
    """The playground's context (one server's :class:`Session`) and its requests and notifications, one method
    each."""

    def __init__(self, server: TetherServer) -> None:
        server.register_settings("playground", PlaygroundSettings)
        server.register_storage("playground", _migrations)
        self.server = server
        self.wire = wire = StateWire(server)

        def tell(state: State) -> None:
            server.protocol.notify("tether/playground/didChangeState", wire(state))

        self.session = session = Session(server, tell, ids=identity.PromptIds(server))

        def on_document(event: DocumentEvent) -> None:
            if event.kind in ("open", "change", "save"):
                session.later(event.uri, event.kind)

        server.on_document(on_document)
        server.on_shutdown_begin(session.prepare_shutdown)
        server.on_shutdown(session.write_at_shutdown)
        server.on_settings(lambda settings: session.settings_changed(settings.section(PlaygroundSettings)))
        self.runs = lsp_run.Runs(server, session)

    async def active_editor(self, params: ActiveEditorParams) -> None:
        """The editor the user looks at changed (null: none)."""
        uri = params.text_document.uri if params.text_document else None
        position = params.position
        await self.session.active_editor(uri, Pos(position.line, position.character) if position else None)

    async def cursor(self, params: CursorParams) -> None:
        """The cursor moved (clients debounce)."""
        await self.session.cursor(params.text_document.uri, Pos(params.position.line, params.position.character))

    async def get_state(self, params: Empty) -> PlaygroundState:
        """What the playground shows now: the file, its prompts, the selected prompt and why."""
        return self.wire(await self.session.state())

    async def pin(self, params: PinParams) -> PlaygroundState:
        """Keep showing this prompt whatever the cursor does."""
        return self.wire(await self.session.pin(params.file_id, params.prompt_id))

    async def unpin(self, params: Empty) -> PlaygroundState:
        """Follow the active editor and cursor again."""
        return self.wire(await self.session.unpin())

    async def set_settings(self, params: SetSettingsParams) -> None:
        """Store a playground's inputs for a prompt (kept with the prompt's identity)."""
        await self.session.set_saved_inputs(params.prompt_id, params.settings)

    async def get_settings(self, params: GetSettingsParams) -> dict[str, Any] | None:
        """The inputs stored for a prompt, or null."""
        return await self.session.saved_inputs(params.prompt_id)

    async def renamed(self, params: types.RenameFilesParams) -> None:
        """Files were renamed: their prompts keep their ids."""
        await self.session.files_renamed((change.old_uri, change.new_uri) for change in params.files)

    async def run(self, params: PlaygroundRunParams) -> PlaygroundRunResult:
        """Send a prompt to the model with its variables; the answer streams as `didRunOutput` first."""
        return await self.runs.run(params)

    async def stored_runs(self, params: RunsParams) -> list[StoredRun]:
        """The prompt's latest runs, newest first (they follow the prompt's id across edits and renames)."""
        return await self.runs.runs(params)


def _migrations() -> Sequence[Migration]:
    """The playground tables' steps (the store module, and SQLAlchemy, load when a database opens)."""
    from .store import MIGRATIONS

    return MIGRATIONS


FEATURE = Feature(
    "playground",
    setup=PlaygroundFront,
    methods=[
        Method(
            "tether/editor/didChangeActiveEditor",
            PlaygroundFront.active_editor,
            ActiveEditorParams,
            runs="async",
            notification=True,
        ),
        Method("tether/editor/didChangeCursor", PlaygroundFront.cursor, CursorParams, runs="async", notification=True),
        Method(
            "tether/playground/getState",
            PlaygroundFront.get_state,
            Empty,
            PlaygroundState,
            runs="async",
            cancellable=True,
        ),
        Method("tether/playground/pin", PlaygroundFront.pin, PinParams, PlaygroundState, runs="async"),
        Method("tether/playground/unpin", PlaygroundFront.unpin, Empty, PlaygroundState, runs="async"),
        Method("tether/playground/setSettings", PlaygroundFront.set_settings, SetSettingsParams, None, runs="async"),
        Method(
            "tether/playground/getSettings",
            PlaygroundFront.get_settings,
            GetSettingsParams,
            dict[str, Any] | None,
            runs="async",
            cancellable=True,
        ),
        Method(
            types.WORKSPACE_DID_RENAME_FILES,
            PlaygroundFront.renamed,
            runs="async",
            notification=True,
            options=RENAME_OPTIONS,
        ),
        Method(
            "tether/playground/run",
            PlaygroundFront.run,
            PlaygroundRunParams,
            PlaygroundRunResult,
            runs="async",
            cancellable=True,
        ),
        Method(
            "tether/playground/runs",
            PlaygroundFront.stored_runs,
            RunsParams,
            list[StoredRun],
            runs="async",
            cancellable=True,
        ),
    ],
    sends=[
        Notice("tether/playground/didChangeState", PlaygroundState),
        Notice("tether/playground/didRunOutput", RunOutput),
    ],
)
