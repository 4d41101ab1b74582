"""LSP edge of playground runs: ``tether/playground/run`` sends a prompt to a chat model and streams the answer
as ``tether/playground/didRunOutput``; ``tether/playground/runs`` lists a prompt's stored runs.

The runs themselves are the :class:`.runs.Runner` service; this module turns wire params into its plain
values, sends each piece of an answer as a notification, and turns its outcomes into wire results.
``$/cancelRequest`` cancels the request's task, and with it the model call (answered -32800).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import runs
from .wire import Message, PlaygroundRunParams, PlaygroundRunResult, RunOptions, RunOutput, RunsParams, StoredRun, Usage

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

    from .session import Session


def _usage(usage: runs.Usage | None) -> Usage | None:
    return None if usage is None else Usage(usage.prompt_tokens, usage.completion_tokens)


def _stored(run: runs.StoredRun) -> StoredRun:
    return StoredRun(
        run.run_id,
        run.prompt_id,
        run.created_at,
        run.model,
        run.prompt,
        dict(run.variables),
        [Message(m.role, m.content) for m in run.messages],
        run.output,
        run.finish_reason,
        run.duration_ms,
        _usage(run.usage),
        run.temperature,
        run.max_tokens,
    )


class Runs:
    """The two requests over one server's playground :class:`~.session.Session`."""

    def __init__(self, server: TetherServer, session: Session) -> None:
        self.server = server
        self.runner = runs.Runner(server, session)

    def _output(self, run_id: str, delta: str) -> None:
        self.server.protocol.notify("tether/playground/didRunOutput", RunOutput(run_id, delta))

    async def run(self, params: PlaygroundRunParams) -> PlaygroundRunResult:
        """Send a prompt to the model with its variables; the answer streams as `didRunOutput` first."""
        options = params.options or RunOptions()
        request = runs.RunRequest(
            params.prompt_id, params.variables, params.model, options.temperature, options.max_tokens
        )
        outcome = await self.runner.run(request, self._output)
        return PlaygroundRunResult(
            outcome.run_id,
            outcome.prompt_id,
            outcome.output,
            outcome.model,
            outcome.finish_reason,
            outcome.duration_ms,
            _usage(outcome.usage),
        )

    async def runs(self, params: RunsParams) -> list[StoredRun]:
        """The prompt's latest runs, newest first (they follow the prompt's id across edits and renames)."""
        return [_stored(run) for run in await self.runner.stored_runs(params.prompt_id, params.limit)]
