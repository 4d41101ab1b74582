"""What a task shows the model: the current file, the context its instruction names, and the prompt.

The context is a small registry of expressions in the instruction (``@file:path`` inside the workspace,
``@errors``, ``@tabs``). Each file is recorded at the version it was shown, which is the ``baseVersion`` of
the model's edits to it. Plain values only: the glue takes the open documents and the syntax errors on the
loop, and gathering (which reads files) runs in a worker.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tether_lsp.server.files import FileRefused, read_text, uri_to_path

SYSTEM = """You edit files of a code base. For each change print exactly:
<change><path>relative/path</path>
<range-to-replace>
the old lines, quoted exactly (long ones may be elided with <truncated/> between the first and last lines)
</range-to-replace>
<replacement>
the new lines
</replacement></change>
For a new file, leave <range-to-replace> empty. You may add one <description>…</description> and
<terminal-command>…</terminal-command> lines. Never repeat a file's content outside a change."""


@dataclass
class Shown:
    """A file shown to the model: its uri and text, at the version it was shown (None: read from disk):
    ``version`` in the server's order (what edits are based on), ``client_version`` the client's number for it
    (what the user is told; a client may give one number to two versions)."""

    path: str
    uri: str
    text: str
    version: int | None
    client_version: int | None = None


@dataclass
class TaskContext:
    root: Path | None
    uri: str
    files: dict[str, Shown] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    #: Taken on the loop before gathering (which runs in a worker): open documents' text, version and the
    #: client's number for that version, and the syntax errors of the task's file.
    open_docs: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    max_file_bytes: int = 8 * 1024 * 1024


def _relative(ctx: TaskContext, uri: str) -> str:
    path = uri_to_path(uri)
    if path is not None and ctx.root is not None:
        try:
            return path.resolve().relative_to(ctx.root.resolve()).as_posix()
        except ValueError:
            pass
    return uri


def show(ctx: TaskContext, uri: str) -> Shown | None:
    """Record a file for the model at its current version (open buffer, else disk; runs in a worker)."""
    if uri in ctx.open_docs:
        text, version, client_version = ctx.open_docs[uri]
        shown = Shown(_relative(ctx, uri), uri, text, version, client_version)
    else:
        path = uri_to_path(uri)
        if path is None:
            return None
        try:
            text = read_text(path, ctx.max_file_bytes)
        except (OSError, FileRefused) as exc:
            ctx.notes.append(f"{_relative(ctx, uri)} was not included: {exc}")
            return None
        shown = Shown(_relative(ctx, uri), uri, text, None)
    ctx.files[shown.path] = shown
    return shown


def _file(ctx: TaskContext, argument: str | None) -> None:
    if not argument or ctx.root is None:
        ctx.notes.append("@file needs a path and a workspace")
        return
    path = (ctx.root / argument).resolve()
    try:
        path.relative_to(ctx.root.resolve())
    except ValueError:
        ctx.notes.append(f"@file:{argument} is outside the workspace: not shown")
        return
    if show(ctx, path.as_uri()) is None:
        ctx.notes.append(f"@file:{argument} does not exist")


def _errors(ctx: TaskContext, argument: str | None) -> None:
    if not ctx.errors:
        ctx.extra.append("Errors: none known.")
        return
    ctx.extra.append("Errors in the current file:\n" + "\n".join(ctx.errors))


def _tabs(ctx: TaskContext, argument: str | None) -> None:
    for uri in ctx.open_docs:
        show(ctx, uri)


#: Context expressions: ``@name`` or ``@name:argument`` in the instruction. Add new ones here.
CONTEXT: dict[str, Callable[[TaskContext, str | None], None]] = {"file": _file, "errors": _errors, "tabs": _tabs}
EXPRESSION = re.compile(r"@(?P<name>[a-z]+)(?::(?P<arg>\S+))?")


def gather(ctx: TaskContext, instruction: str) -> None:
    show(ctx, ctx.uri)
    for match in EXPRESSION.finditer(instruction):
        handler = CONTEXT.get(match.group("name"))
        if handler is not None:
            handler(ctx, match.group("arg"))


def messages(ctx: TaskContext, instruction: str, limit: int) -> list[dict[str, str]]:
    parts = [f"Task: {instruction}"]
    for shown in ctx.files.values():
        text = shown.text if len(shown.text) <= limit else shown.text[:limit] + "\n<truncated/>"
        parts.append(f'<file path="{shown.path}">\n{text}\n</file>')
    parts += ctx.extra
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]
