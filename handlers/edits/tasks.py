"""Inline tasks as a service: an ``@run <instruction>`` line becomes a streamed model session whose changes
are placed and applied as they arrive (docs/edits.md and docs/protocol.md, "Inline tasks"), in plain Python
values.

The prompt shows the model the current file and the context the instruction names (:mod:`.taskcontext`).
The model's chat stream is parsed incrementally and each change is placed and applied as it arrives
(:mod:`.taskrun`). Everything is written down in Tether's data folder (:mod:`.sessionlog`).

A task runs on the process's :class:`~tether_lsp.server.host.Host` (settings, workers, progress) and writes
into an :class:`~.editor.Editor` (the LSP glue, ``lsp_editor.py``, applies edits through
``workspace/applyEdit``). Places are positions in the editor's encoding, never LSP ranges.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_lsp.server import chat, http
from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.files import uri_to_path
from tether_lsp.server.settings import LimitSettings

from .sessionlog import SessionLog, session_folder
from .settings import TaskSettings
from .taskcontext import TaskContext, gather, messages
from .taskformat import TaskOutputParser
from .taskrun import ChangeRun, TaskRun, read_if_file, syntax_errors

if TYPE_CHECKING:
    from tether_lsp.server.host import Host

    from .editor import Editor
    from .streamer import Streamer

__all__ = ["ChangeRun", "TaskOutcome", "TaskRequest", "TaskSettings", "Tasks"]

log = logging.getLogger(__name__)

TRIGGER = re.compile(r"@(run|task)\b\s*(?P<instruction>.*)$")


@dataclass(frozen=True)
class TaskRequest:
    """Run the ``@run``/``@task`` instruction on ``line`` (0-based) of ``uri``; ``progress_token`` is the
    front's own token for its progress, when the request gave one."""

    uri: str
    line: int
    progress_token: str | int | None = None


@dataclass(frozen=True)
class TaskOutcome:
    """A task's changes, in the order the model made them, and its ``session.md``."""

    session: Path
    changes: list[ChangeRun]


class Tasks:
    """The inline tasks of one process, written into ``editor``: changes of open documents stream in through
    ``streamer``."""

    def __init__(self, host: Host, editor: Editor, streamer: Streamer) -> None:
        self.host, self.editor, self.streamer = host, editor, streamer

    async def run(self, request: TaskRequest) -> TaskOutcome:
        """Read the instruction, gather the context, stream the model's changes in, log the session."""
        host, editor = self.host, self.editor
        settings = host.settings.section(TaskSettings)
        if not settings.endpoint:
            raise RequestFailed(
                "no model endpoint: set tether.tasks.endpoint (a chat model's URL, Ollama or OpenAI-compatible)",
                "noEndpoint",
            )
        max_file_bytes = host.settings.section(LimitSettings).maxFileBytes
        uri = request.uri
        instruction = _instruction_at(await _task_text(host, editor, uri, max_file_bytes), request.line)
        ctx = TaskContext(
            host.workspace_root,
            uri,
            open_docs={d.uri: (d.current.string, d.version, d.client_version) for d in editor.open_documents()},
            errors=syntax_errors(editor, uri),
            max_file_bytes=max_file_bytes,
        )
        await host.run_blocking(gather, ctx, instruction)
        folder = await host.run_blocking(session_folder, host.workspace_root)
        body = {"model": settings.model, "messages": messages(ctx, instruction, settings.maxFileChars), "stream": True}
        session = await _open_session(host, folder, ctx, instruction, body)
        headers = {}
        key = os.environ.get(settings.apiKeyEnv or "") if settings.apiKeyEnv else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        progress = await host.start_progress(f"Tether: {instruction[:60]}", request.progress_token)
        task = TaskRun(host, editor, self.streamer, ctx, session, progress)
        outcome = "failed"
        try:
            await asyncio.wait_for(
                _consume(
                    chat.ChatEndpoint.parse(settings.endpoint),
                    body,
                    headers,
                    TaskOutputParser(),
                    task,
                    session,
                    host.settings.section(LimitSettings).maxResponseBytes,
                ),
                settings.timeout,
            )
            session.say("\nDone.")
            outcome = "done"
        except asyncio.CancelledError:
            await task.stop_unfinished("cancelled")
            session.say("\nCancelled by the user.")
            raise
        except (http.HttpError, TimeoutError) as exc:
            await task.stop_unfinished("the model stream failed")
            reason = str(exc) or "no answer in time"
            session.say(f"\nThe model stream failed: {reason}. Changes already complete were kept.")
            log.warning("task: %s", reason)
        finally:
            progress.end(outcome)
            await asyncio.shield(session.close())
        return TaskOutcome(folder / "session.md", task.changes)


async def _task_text(host: Host, editor: Editor, uri: str, max_file_bytes: int) -> str:
    """The text holding the ``@run`` line: the open document's, else the file's (read in a worker)."""
    doc = editor.document(uri)
    if doc is not None:
        return doc.current.string
    path = uri_to_path(uri)
    text = await host.run_blocking(read_if_file, path, max_file_bytes) if path is not None else None
    if text is None:
        raise InvalidParams("textDocument.uri", f"{uri} is neither open nor a readable file")
    return text


def _instruction_at(text: str, line: int) -> str:
    """The instruction of the ``@run``/``@task`` trigger on ``line``; -32602 naming ``position`` otherwise."""
    lines = text.split("\n")
    if line >= len(lines):
        raise InvalidParams("position", f"line {line} is outside the document")
    trigger = TRIGGER.search(lines[line])
    if trigger is None or not trigger.group("instruction").strip():
        raise InvalidParams("position", "the line holds no `@run <instruction>` (or `@task`)")
    return str(trigger.group("instruction").strip())


async def _open_session(
    host: Host, folder: Path, ctx: TaskContext, instruction: str, body: dict[str, Any]
) -> SessionLog:
    """The session log, opened with the task, its context and the request as sent."""
    session = await SessionLog(host.run_blocking, folder).open()
    session.say(f"# Task\n\n{instruction}\n\n## Context\n")
    for shown in ctx.files.values():
        version = f"version {shown.client_version}" if shown.client_version is not None else "from disk"
        session.say(f"- `{shown.path}` ({version})")
    for note in ctx.notes:
        session.say(f"- note: {note}")
    session.say("\n## Changes\n")
    session.raw_write(
        "# Sent\n\n```json\n" + json.dumps(body, indent=2, ensure_ascii=False) + "\n```\n\n# Received\n\n"
    )
    return session


async def _consume(
    endpoint: chat.ChatEndpoint,
    body: dict[str, Any],
    headers: dict[str, str],
    parser: TaskOutputParser,
    task: TaskRun,
    log_: SessionLog,
    max_bytes: int,
) -> None:
    async for piece in chat.stream(endpoint, body, headers, max_bytes):
        if isinstance(piece, chat.Finish):
            return
        log_.raw_write(piece)
        for event in parser.feed(piece):
            await task.on_event(event)
