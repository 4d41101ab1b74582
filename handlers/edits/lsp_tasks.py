"""LSP edge of inline tasks, ``tether/tasks/run`` (docs/edits.md and docs/protocol.md, "Inline tasks").

The tasks themselves are the :class:`.tasks.Tasks` service; this module turns the wire params into its plain
request and its outcome into the wire result (positions into ranges), and is its :class:`LspHost`: edits go
through ``workspace/applyEdit``, progress through ``$/progress``, a suggested command is shown as a message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from tether_lsp.server.documents import Document
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.progress import Progress
from tether_lsp.server.settings import Settings

from .tasks import TaskRequest, Tasks, TaskSettings
from .wire import RunParams, RunResult, TaskEdit

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer
    from tether_lsp.server.syntax import Snapshot

    from .streamer import Streamer

log = logging.getLogger(__name__)

R = TypeVar("R")


def to_range(start: Pos, end: Pos) -> types.Range:
    return types.Range(start=types.Position(start.line, start.character), end=types.Position(end.line, end.character))


class LspHost:
    """The tasks' host over LSP: the server's documents, settings and workers; edits applied with
    ``workspace/applyEdit``."""

    def __init__(self, server: TetherServer) -> None:
        self.ls = server

    @property
    def settings(self) -> Settings:
        return self.ls.settings

    @property
    def workspace_root(self) -> Path | None:
        return self.ls.workspace_root

    @property
    def encoding(self) -> Encoding:
        return self.ls.encoding

    def document(self, uri: str) -> Document | None:
        return self.ls.document(uri)

    def open_documents(self) -> Iterable[Document]:
        return self.ls.documents

    def snapshot(self, uri: str) -> Snapshot | None:
        return self.ls.snapshot(uri)

    def run_blocking(self, fn: Callable[..., R], *args: Any) -> Coroutine[Any, Any, R]:
        return self.ls.run_blocking(fn, *args)

    async def start_progress(self, title: str, token: str | int | None) -> Progress:
        return await self.ls.start_progress(title, token)

    def suggest(self, command: str) -> None:
        self.ls.window_show_message(
            types.ShowMessageParams(types.MessageType.Info, f"Tether suggests running (not run): {command}")
        )

    async def create(self, uri: str, text: str) -> bool:
        return await self._apply(
            types.WorkspaceEdit(
                document_changes=[
                    types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)),
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                        edits=[types.TextEdit(range=to_range(Pos(0, 0), Pos(0, 0)), new_text=text)],
                    ),
                ]
            )
        )

    async def replace(self, uri: str, version: int | None, start: Pos, end: Pos, text: str) -> bool:
        return await self._apply(
            types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                        edits=[types.TextEdit(range=to_range(start, end), new_text=text)],
                    )
                ]
            )
        )

    async def _apply(self, edit: types.WorkspaceEdit) -> bool:
        try:
            result = await self.ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=edit, label="Tether task")
            )
        except Exception as exc:
            log.warning("task: the client failed to apply an edit: %s", exc)
            return False
        return bool(result.applied)


def tasks_over(server: TetherServer, streamer: Streamer) -> Tasks:
    """The tasks service of one server (its settings registered as ``tether.tasks``)."""
    server.register_settings("tasks", TaskSettings)
    return Tasks(LspHost(server), streamer)


async def run(tasks: Tasks, params: RunParams) -> RunResult:
    """``tether/tasks/run``: the task on the params' line, its changes with their ranges."""
    request = TaskRequest(params.text_document.uri, params.position.line, params.work_done_token)
    outcome = await tasks.run(request)
    edits = [TaskEdit(c.uri, c.status, to_range(*c.place) if c.place else None) for c in outcome.changes]
    return RunResult(outcome.session.as_uri(), edits)
