"""LSP edge of inline tasks, ``tether/tasks/run`` (docs/edits.md and docs/protocol.md, "Inline tasks").

The tasks themselves are the :class:`.tasks.Tasks` service, run on the server (its
:class:`~tether_lsp.server.host.Host`) and written into the editor over LSP (:class:`.lsp_editor.LspEditor`);
this module turns the wire params into its plain request and its outcome into the wire result (positions into
ranges).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lsp_editor import LspEditor, to_range
from .settings import TaskSettings
from .tasks import TaskRequest, Tasks
from .wire import RunParams, RunResult, TaskEdit

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

    from .streamer import Streamer


def tasks_over(server: TetherServer, editor: LspEditor, streamer: Streamer) -> Tasks:
    """The tasks service of one server (its settings registered as ``tether.tasks``)."""
    server.register_settings("tasks", TaskSettings)
    return Tasks(server, editor, streamer)


async def run(tasks: Tasks, params: RunParams) -> RunResult:
    """``tether/tasks/run``: the task on the params' line, its changes with their ranges."""
    request = TaskRequest(params.text_document.uri, params.position.line, params.work_done_token)
    outcome = await tasks.run(request)
    edits = [TaskEdit(c.uri, c.status, to_range(*c.place) if c.place else None) for c in outcome.changes]
    return RunResult(outcome.session.as_uri(), edits)
