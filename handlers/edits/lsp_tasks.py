"""LSP edge of inline tasks, ``tether/tasks/run``: an ``@run <instruction>`` line becomes a streamed model
session whose changes are placed and applied as they arrive (docs/edits.md and docs/protocol.md, "Inline
tasks").

The prompt shows the model the current file and the context the instruction names (:mod:`.taskcontext`).
The model's chat stream is parsed incrementally; each change of an open document streams in through
:class:`.streamer.Streamer`, a change of a file that is not open is applied when complete, a new file is
created. Everything is written down in Tether's data folder, ``sessions/<UTC timestamp>/``: ``raw.md`` (what
the model got and said) and ``session.md`` — in the clone's git directory, never in the worktree, where git
would show it as untracked.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tether_lsp.server import chat, http
from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.files import FileRefused, read_text, uri_to_path
from tether_lsp.server.positions import LineIndex, lsp_range
from tether_lsp.server.progress import Progress
from tether_lsp.server.settings import LimitSettings, setting

from .resolve import EditRequest, Options, Text, resolve_one
from .sessionlog import SessionLog, session_folder
from .taskcontext import TaskContext, gather, messages
from .taskformat import Event, TaskOutputParser
from .wire import RunParams, RunResult, TaskEdit

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

    from .streamer import Streamer, StreamState

    #: A stream's span as a range of its document's current version (None: not placed).
    ToRange = Callable[[StreamState], types.Range | None]

log = logging.getLogger(__name__)

TRIGGER = re.compile(r"@(run|task)\b\s*(?P<instruction>.*)$")


@dataclass(frozen=True)
class TaskSettings:
    """``tether.tasks``: the chat completions endpoint, its model, and where the API key is (never logged)."""

    endpoint: str | None = setting(
        None,
        "Chat model URL for inline tasks: OpenAI-compatible (`.../v1` or `.../v1/chat/completions`) or Ollama "
        '(`http://host:11434` or `.../api/chat`), read as docs/settings.md "Model endpoints" says. '
        "null: `tether/tasks/run` answers -32803 saying so.",
    )
    model: str = setting("gpt-4o-mini", "Model name sent to the tasks endpoint.")
    apiKeyEnv: str | None = setting(
        "OPENAI_API_KEY", "Environment variable holding the API key (sent as a bearer token; never logged or stored)."
    )
    timeout: float = setting(300.0, "Seconds a task may stream before it is stopped.", minimum=1)
    maxFileChars: int = setting(
        60_000, "Characters of each file included in a task's prompt (longer files are cut).", minimum=1
    )


#: The session log is written at most this often while a task streams.


def syntax_errors(ls: TetherServer, uri: str) -> list[str]:
    """Loop: the syntax errors Tether sees in a document (at most 20), one line each."""
    snapshot = ls.snapshot(uri)
    tree = snapshot.tree if snapshot is not None and snapshot.text_only is None else None
    if tree is None or not tree.root_node.has_error:
        return []
    found: list[str] = []
    stack = [tree.root_node]
    while stack and len(found) < 20:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            found.append(
                f"line {node.start_point.row + 1}: {'missing ' + node.type if node.is_missing else 'syntax error'}"
            )
        elif node.has_error:
            stack.extend(reversed(node.children))
    return found


@dataclass
class ChangeRun:
    """One change of the model's output while it streams."""

    path: str = ""
    uri: str = ""
    old: str = ""
    old_final: bool = False
    new: str = ""
    edit_id: str | None = None
    status: str = "pending"
    range: types.Range | None = None


class TaskRun:
    """One ``tether/tasks/run``: the model stream, the changes as they arrive, the session log."""

    def __init__(
        self,
        ls: TetherServer,
        streamer: Streamer,
        to_range: ToRange,
        ctx: TaskContext,
        log_: SessionLog,
        progress: Progress | None = None,
    ) -> None:
        self.ls, self.streamer, self.to_range, self.ctx, self.log = ls, streamer, to_range, ctx, log_
        self.progress = progress
        self.changes: list[ChangeRun] = []
        self.current: ChangeRun | None = None

    async def on_event(self, event: Event) -> None:
        if event.kind == "change-start":
            self.current = ChangeRun()
            self.changes.append(self.current)
        elif event.kind in ("description", "terminal-command"):
            self.log.say(
                f"- {event.kind}: `{event.text}`" + (" (shown, not run)" if event.kind != "description" else "")
            )
            if event.kind == "terminal-command":
                self.ls.window_show_message(
                    types.ShowMessageParams(types.MessageType.Info, f"Tether suggests running (not run): {event.text}")
                )
        elif self.current is not None:
            await self.on_change_event(self.current, event)

    async def on_change_event(self, change: ChangeRun, event: Event) -> None:
        if event.kind == "path":
            change.path = event.text
            change.uri = self._uri(event.text)
            if self.progress is not None:
                count = len(self.changes)
                self.progress.report(count, count + 1, f"change {count}: {change.path}")
        elif event.kind == "old":
            change.old, change.old_final = event.text, event.final
        elif event.kind == "new":
            change.new = event.text
            if change.old_final:
                await self._stream(change, final=event.final)
        elif event.kind == "change-end":
            await self._finish(change)

    def _uri(self, path: str) -> str:
        shown = self.ctx.files.get(path)
        if shown is not None:
            return shown.uri
        if self.ctx.root is None:
            return path
        target = (self.ctx.root / path).resolve()
        try:
            target.relative_to(self.ctx.root.resolve())
        except ValueError:
            return ""
        return target.as_uri()

    async def _stream(self, change: ChangeRun, *, final: bool) -> None:
        """Changes of open documents stream in; others wait for their end."""
        shown = self.ctx.files.get(change.path)
        if shown is None or shown.version is None or self.ls.document(change.uri) is None or not change.old:
            return
        if change.edit_id is None:
            change.edit_id = self.streamer.begin(change.uri, shown.version)
        state = await self.streamer.update(change.edit_id, change.old, True, change.new, final)
        change.status, change.range = state.status, self.to_range(state)

    async def _finish(self, change: ChangeRun) -> None:
        if not change.uri:
            change.status = "rejected"
            self.log.say(f"- `{change.path}`: outside the workspace, not applied")
            return
        if change.edit_id is not None:
            await self._stream(change, final=True)
            ended = await self.streamer.end(change.edit_id, "keep")
            change.status = "applied" if ended.status == "done" else ended.status
            change.edit_id = None
        else:
            await self._apply_whole(change)
        self.log.say(f"- `{change.path}`: {change.status}")

    async def _apply_whole(self, change: ChangeRun) -> None:
        """A change of a file that is not open (resolved against the text shown) or a new file."""
        path = uri_to_path(change.uri)
        shown = self.ctx.files.get(change.path)
        exists, on_disk = await self.ls.run_blocking(_disk_state, path, shown is None, self.ctx.max_file_bytes)
        if not exists and not change.old.strip():
            edit = types.WorkspaceEdit(
                document_changes=[
                    types.CreateFile(uri=change.uri, options=types.CreateFileOptions(ignore_if_exists=True)),
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=change.uri, version=None),
                        edits=[types.TextEdit(range=_at(0, 0, 0, 0), new_text=change.new)],
                    ),
                ]
            )
            change.status = "created" if await self._apply(edit) else "failed"
            return
        base_text = shown.text if shown is not None else on_disk
        doc = self.ls.document(change.uri)
        current = doc.current.text if doc is not None else base_text.encode("utf-8")
        result = resolve_one(
            Text(base_text.encode("utf-8")), Text(current), [], EditRequest("c", change.old, change.new), Options()
        )
        if result.status != "resolved" or result.span is None or result.new_text is None:
            change.status = result.status
            return
        index = LineIndex(current)
        edit = types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=change.uri, version=doc.client_version if doc is not None else None
                    ),
                    edits=[
                        types.TextEdit(range=lsp_range(index, *result.span, self.ls.encoding), new_text=result.new_text)
                    ],
                )
            ]
        )
        change.status = "applied" if await self._apply(edit) else "failed"

    async def _apply(self, edit: types.WorkspaceEdit) -> bool:
        try:
            result = await self.ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=edit, label="Tether task")
            )
        except Exception as exc:
            log.warning("task: the client failed to apply an edit: %s", exc)
            return False
        return bool(result.applied)

    async def stop_unfinished(self, why: str) -> None:
        """The stream ended early: a change still being written is reverted, so no half-written code stays."""
        for change in self.changes:
            if change.edit_id is not None:
                ended = await self.streamer.end(change.edit_id, "revert")
                change.status = f"{ended.status} ({why})"
                change.edit_id = None
                self.log.say(f"- `{change.path}`: {change.status}")


def _read_if_file(path: Path, max_bytes: int) -> str | None:
    """Worker: a file's text, or None when it cannot or must not be read."""
    try:
        return read_text(path, max_bytes)
    except (OSError, FileRefused):
        return None


def _disk_state(path: Path | None, read: bool, max_bytes: int) -> tuple[bool, str]:
    """Worker: whether the file exists, and its text when ``read`` (else "")."""
    if path is None or not path.exists():
        return False, ""
    return True, (_read_if_file(path, max_bytes) or "") if read else ""


def _at(sl: int, sc: int, el: int, ec: int) -> types.Range:
    return types.Range(start=types.Position(sl, sc), end=types.Position(el, ec))


class Tasks:
    """``tether/tasks/run`` over one server, streaming the model's changes through ``streamer`` (``to_range``
    reports where)."""

    def __init__(self, server: TetherServer, streamer: Streamer, to_range: ToRange) -> None:
        server.register_settings("tasks", TaskSettings)
        self.server, self.streamer, self.to_range = server, streamer, to_range

    async def run(self, params: RunParams) -> RunResult:
        """Run the `@run <instruction>` task on this line: the model's changes stream into the files."""
        return await run_task(self.server, self.streamer, self.to_range, params)


async def run_task(ls: TetherServer, streamer: Streamer, to_range: ToRange, params: RunParams) -> RunResult:
    """Read the instruction, gather the context, stream the model's changes in, log the session."""
    settings = ls.settings.section(TaskSettings)
    if not settings.endpoint:
        raise RequestFailed(
            "no model endpoint: set tether.tasks.endpoint (a chat model's URL, Ollama or OpenAI-compatible)",
            "noEndpoint",
        )
    max_file_bytes = ls.settings.section(LimitSettings).maxFileBytes
    uri = params.text_document.uri
    instruction = _instruction_at(await _task_text(ls, uri, max_file_bytes), params.position.line)
    ctx = TaskContext(
        ls.workspace_root,
        uri,
        open_docs={d.uri: (d.current.string, d.version) for d in ls.documents},
        errors=syntax_errors(ls, uri),
        max_file_bytes=max_file_bytes,
    )
    await ls.run_blocking(gather, ctx, instruction)
    folder = await ls.run_blocking(session_folder, ls.workspace_root)
    body = {"model": settings.model, "messages": messages(ctx, instruction, settings.maxFileChars), "stream": True}
    session = await _open_session(ls, folder, ctx, instruction, body)
    headers = {}
    key = os.environ.get(settings.apiKeyEnv or "") if settings.apiKeyEnv else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    progress = await ls.start_progress(f"Tether: {instruction[:60]}", params.work_done_token)
    task = TaskRun(ls, streamer, to_range, ctx, session, progress)
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
                ls.settings.section(LimitSettings).maxResponseBytes,
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
    edits = [TaskEdit(c.uri, c.status, c.range) for c in task.changes]
    return RunResult((folder / "session.md").as_uri(), edits)


async def _task_text(ls: TetherServer, uri: str, max_file_bytes: int) -> str:
    """The text holding the ``@run`` line: the open document's, else the file's (read in a worker)."""
    doc = ls.document(uri)
    if doc is not None:
        return doc.current.string
    path = uri_to_path(uri)
    text = await ls.run_blocking(_read_if_file, path, max_file_bytes) if path is not None else None
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
    ls: TetherServer, folder: Path, ctx: TaskContext, instruction: str, body: dict[str, Any]
) -> SessionLog:
    """The session log, opened with the task, its context and the request as sent."""
    session = await SessionLog(ls.run_blocking, folder).open()
    session.say(f"# Task\n\n{instruction}\n\n## Context\n")
    for shown in ctx.files.values():
        version = f"version {shown.version}" if shown.version is not None else "from disk"
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
