"""One inline task while its model streams: each change of the model's output, placed and applied as it
arrives (:class:`TaskRun`), and what became of it (:class:`ChangeRun`).

A change of an open document streams in through :class:`.streamer.Streamer`; a change of a file that is not
open is placed like every model edit (:class:`.service.Batch`) and written when complete; a new file is
created. Positions handed out are in the editor's encoding (:class:`Pos`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tether_lsp.server.files import FileRefused, read_text, uri_to_path
from tether_lsp.server.positions import LineIndex, Pos

from .service import Batch, Options, Target

if TYPE_CHECKING:
    from tether_lsp.server.host import Host, Reporter

    from .editor import Editor
    from .sessionlog import SessionLog
    from .stream import StreamState
    from .streamer import Streamer
    from .taskcontext import TaskContext
    from .taskformat import Event


def syntax_errors(editor: Editor, uri: str) -> list[str]:
    """Loop: the syntax errors Tether sees in a document (at most 20), one line each."""
    snapshot = editor.snapshot(uri)
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


class TaskRun:
    """One task: the changes of the model stream as they arrive, and the session log."""

    #: The label of a task's writes (the editor's undo entry).
    LABEL = "Tether task"

    def __init__(
        self,
        host: Host,
        editor: Editor,
        streamer: Streamer,
        ctx: TaskContext,
        log_: SessionLog,
        progress: Reporter | None = None,
    ) -> None:
        self.host, self.editor, self.streamer, self.ctx, self.log = host, editor, streamer, ctx, log_
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
                self.editor.suggest(event.text)
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
        doc = self.editor.document(state.uri)
        if doc is None or state.span is None:
            return None
        index, encoding = doc.current.index, self.editor.encoding
        return index.position_of(state.span[0], encoding), index.position_of(state.span[1], encoding)

    async def _stream(self, change: ChangeRun, *, final: bool) -> None:
        """Changes of open documents stream in; others wait for their end."""
        shown = self.ctx.files.get(change.path)
        if shown is None or shown.version is None or self.editor.document(change.uri) is None or not change.old:
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
        """A change of a file that is not open (placed on the text shown) or a new file."""
        path = uri_to_path(change.uri)
        shown = self.ctx.files.get(change.path)
        exists, on_disk = await self.host.run_blocking(_disk_state, path, shown is None, self.ctx.max_file_bytes)
        if not exists and not change.old.strip():
            change.status = "created" if await self.editor.create(change.uri, change.new) else "failed"
            return
        base_text = shown.text if shown is not None else on_disk
        doc = self.editor.document(change.uri)
        current = doc.current.text if doc is not None else base_text.encode("utf-8")
        batch = Batch(base_text.encode("utf-8"), current, [], Options())
        result = batch.place(Target("c", new_text=change.new, old_text=change.old))
        if result.status != "resolved" or result.span is None or result.new_text is None:
            change.status = result.status
            return
        index = doc.current.index if doc is not None else LineIndex(current)
        (edit,) = batch.change(index).edits
        version = doc.client_version if doc is not None else None
        text = edit.new_text.decode("utf-8")
        applied = await self.editor.write(change.uri, version, index, edit.start, edit.old_end, text, self.LABEL)
        change.status = "applied" if applied else "failed"

    async def stop_unfinished(self, why: str) -> None:
        """The stream ended early: a change still being written is reverted, so no half-written code stays."""
        for change in self.changes:
            if change.edit_id is not None:
                ended = await self.streamer.end(change.edit_id, "revert")
                change.status = f"{ended.status} ({why})"
                change.edit_id = None
                self.log.say(f"- `{change.path}`: {change.status}")


def read_if_file(path: Path, max_bytes: int) -> str | None:
    """Worker: a file's text, or None when it cannot or must not be read."""
    try:
        return read_text(path, max_bytes)
    except (OSError, FileRefused):
        return None


def _disk_state(path: Path | None, read: bool, max_bytes: int) -> tuple[bool, str]:
    """Worker: whether the file exists, and its text when ``read`` (else "")."""
    if path is None or not path.exists():
        return False, ""
    return True, (read_if_file(path, max_bytes) or "") if read else ""
