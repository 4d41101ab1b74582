"""Inline tasks as a service: an ``@run <instruction>`` line becomes a streamed model session whose changes
are placed and applied as they arrive (docs/edits.md and docs/protocol.md, "Inline tasks"), in plain Python
values.

The prompt shows the model the current file and the context the instruction names (:mod:`.taskcontext`).
The model's chat stream is parsed incrementally; each change of an open document streams in through
:class:`.streamer.Streamer`, a change of a file that is not open is applied when complete, a new file is
created. Everything is written down in Tether's data folder (:mod:`.sessionlog`).

What a task needs of the server and the editor it runs for is the small :class:`Host` (the LSP glue,
``lsp_tasks.py``, applies edits through ``workspace/applyEdit`` and shows progress with ``$/progress``;
another front does both its own way). Places are positions in the host's encoding (:class:`Pos`), never
LSP ranges.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tether_lsp.server import chat, http
from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.files import FileRefused, read_text, uri_to_path
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.settings import LimitSettings, Settings, setting

from .resolve import EditRequest, Options, Text, resolve_one
from .sessionlog import SessionLog, session_folder
from .streamer import Streamer, StreamState
from .taskcontext import TaskContext, gather, messages
from .taskformat import Event, TaskOutputParser

if TYPE_CHECKING:
    from tether_lsp.server.documents import Document
    from tether_lsp.server.syntax import Snapshot

log = logging.getLogger(__name__)

R = TypeVar("R")

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


class Reporter(Protocol):
    """The progress of one task, as the front shows it (``$/progress`` over LSP)."""

    def report(self, done: int, total: int, message: str | None = None) -> None: ...
    def end(self, message: str = "done") -> None: ...


class Host(Protocol):
    """What a task needs of the server it runs in (documents, trees, settings, workers) and of the editor it
    writes to. Positions are in the host's ``encoding``."""

    @property
    def settings(self) -> Settings: ...
    @property
    def workspace_root(self) -> Path | None: ...
    @property
    def encoding(self) -> Encoding: ...
    def document(self, uri: str) -> Document | None: ...
    def open_documents(self) -> Iterable[Document]: ...
    def snapshot(self, uri: str) -> Snapshot | None: ...
    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R: ...

    async def start_progress(self, title: str, token: str | int | None) -> Reporter:
        """Show the task's progress (on the front's own ``token`` when the request gave one)."""

    def suggest(self, command: str) -> None:
        """The model suggests running ``command`` in a terminal: tell the user (Tether never runs it)."""

    async def create(self, uri: str, text: str) -> bool:
        """Have the editor create the file ``uri`` (unless it exists) and insert ``text`` at its start; False
        when the edit was refused or failed."""

    async def replace(self, uri: str, version: int | None, start: Pos, end: Pos, text: str) -> bool:
        """Have the editor replace ``start``..``end`` of ``uri`` with ``text``: of the open document at the
        client's ``version``, or of the file on disk (None); False when the edit was refused or failed."""


def syntax_errors(host: Host, uri: str) -> list[str]:
    """Loop: the syntax errors Tether sees in a document (at most 20), one line each."""
    snapshot = host.snapshot(uri)
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
    """One change of the model's output while it streams, and what became of it.

    ``place``: where its text stood in its document's current version when last written (positions in the
    host's encoding); None for a change that was not streamed into an open document.
    """

    path: str = ""
    uri: str = ""
    old: str = ""
    old_final: bool = False
    new: str = ""
    edit_id: str | None = None
    status: str = "pending"
    place: tuple[Pos, Pos] | None = None


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


class TaskRun:
    """One task: the changes of the model stream as they arrive, and the session log."""

    def __init__(
        self, host: Host, streamer: Streamer, ctx: TaskContext, log_: SessionLog, progress: Reporter | None = None
    ) -> None:
        self.host, self.streamer, self.ctx, self.log = host, streamer, ctx, log_
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
                self.host.suggest(event.text)
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

    def _place(self, state: StreamState) -> tuple[Pos, Pos] | None:
        """The stream's span in its document's current version, as the host's positions."""
        doc = self.host.document(state.uri)
        if doc is None or state.span is None:
            return None
        index, encoding = doc.current.index, self.host.encoding
        return index.position_of(state.span[0], encoding), index.position_of(state.span[1], encoding)

    async def _stream(self, change: ChangeRun, *, final: bool) -> None:
        """Changes of open documents stream in; others wait for their end."""
        shown = self.ctx.files.get(change.path)
        if shown is None or shown.version is None or self.host.document(change.uri) is None or not change.old:
            return
        if change.edit_id is None:
            change.edit_id = self.streamer.begin(change.uri, shown.version)
        state = await self.streamer.update(change.edit_id, change.old, True, change.new, final)
        change.status, change.place = state.status, self._place(state)

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
        exists, on_disk = await self.host.run_blocking(_disk_state, path, shown is None, self.ctx.max_file_bytes)
        if not exists and not change.old.strip():
            change.status = "created" if await self.host.create(change.uri, change.new) else "failed"
            return
        base_text = shown.text if shown is not None else on_disk
        doc = self.host.document(change.uri)
        current = doc.current.text if doc is not None else base_text.encode("utf-8")
        result = resolve_one(
            Text(base_text.encode("utf-8")), Text(current), [], EditRequest("c", change.old, change.new), Options()
        )
        if result.status != "resolved" or result.span is None or result.new_text is None:
            change.status = result.status
            return
        index, encoding = LineIndex(current), self.host.encoding
        start, end = index.position_of(result.span[0], encoding), index.position_of(result.span[1], encoding)
        version = doc.client_version if doc is not None else None
        applied = await self.host.replace(change.uri, version, start, end, result.new_text)
        change.status = "applied" if applied else "failed"

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


class Tasks:
    """The inline tasks of one host, streaming the model's changes into open documents through ``streamer``."""

    def __init__(self, host: Host, streamer: Streamer) -> None:
        self.host, self.streamer = host, streamer

    async def run(self, request: TaskRequest) -> TaskOutcome:
        """Read the instruction, gather the context, stream the model's changes in, log the session."""
        host = self.host
        settings = host.settings.section(TaskSettings)
        if not settings.endpoint:
            raise RequestFailed(
                "no model endpoint: set tether.tasks.endpoint (a chat model's URL, Ollama or OpenAI-compatible)",
                "noEndpoint",
            )
        max_file_bytes = host.settings.section(LimitSettings).maxFileBytes
        uri = request.uri
        instruction = _instruction_at(await _task_text(host, uri, max_file_bytes), request.line)
        ctx = TaskContext(
            host.workspace_root,
            uri,
            open_docs={d.uri: (d.current.string, d.version, d.client_version) for d in host.open_documents()},
            errors=syntax_errors(host, uri),
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
        task = TaskRun(host, self.streamer, ctx, session, progress)
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


async def _task_text(host: Host, uri: str, max_file_bytes: int) -> str:
    """The text holding the ``@run`` line: the open document's, else the file's (read in a worker)."""
    doc = host.document(uri)
    if doc is not None:
        return doc.current.string
    path = uri_to_path(uri)
    text = await host.run_blocking(_read_if_file, path, max_file_bytes) if path is not None else None
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
