"""The edits' one service API (``service.py``) in-process: a batch placed on a text that moved on and applied as
one change, the write loop that places the edits again when the file moves on before the write lands, and the
editor's and the agent's fronts going through the same functions to place an edit and to apply it."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.fakemodel import Answer, RunningModel
from tests.mcpclient import McpClient
from tether_lsp.handlers.edits import lsp as edits_lsp
from tether_lsp.handlers.edits import lsp_tasks, service
from tether_lsp.handlers.edits.resolve import resolve_one
from tether_lsp.handlers.edits.service import Batch, Change, Options, Target, write_all
from tether_lsp.handlers.edits.wire import DocumentRef, EditItem, ResolveParams, RunParams
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.server import build
from tether_lsp.server.app import TetherServer
from tether_lsp.server.byte_edits import ByteEdit, diff_edits
from tether_lsp.server.document_sync import did_open
from tether_lsp.server.positions import LineIndex

BASE = b"def area(r):\n    return 3.14 * r * r\n\n\ndef total(xs):\n    return sum(xs)\n"
HEADER = b"# shapes\n"


def moved(old: bytes, new: bytes) -> list[ByteEdit]:
    """The edits from ``old`` to ``new``, as a document records them."""
    return diff_edits(old, new, LineIndex(old))


def test_a_batch_is_placed_on_the_moved_text_and_applied_as_one_change() -> None:
    current = HEADER + BASE
    batch = Batch(BASE, current, moved(BASE, current), Options(fuzzy=False))
    first = batch.place(Target("0", "    return sum(xs, 0)\n", "    return sum(xs)\n"))
    second = batch.place(Target("1", "def circle_area(r):", span=(0, len(b"def area(r):"))))
    assert [r.status for r in batch.placed(together=True)] == ["resolved", "resolved"]
    assert first.span == (len(current) - len(b"    return sum(xs)\n"), len(current))
    assert second.span == (len(HEADER), len(HEADER) + len(b"def area(r):"))
    change = batch.change()
    expected = HEADER + BASE.replace(b"def area", b"def circle_area").replace(b"sum(xs)", b"sum(xs, 0)")
    assert change.text == expected
    assert [e.start for e in change.edits] == [first.span[0], second.span[0]]  # last first
    for edit in change.edits:  # each holds in the text the previous ones leave
        current = edit.apply(current)
    assert current == expected
    assert change.text[slice(*change.spans[1])] == b"def circle_area(r):"
    assert change.text[slice(*change.spans[0])] == b"    return sum(xs, 0)\n"


def test_what_has_no_place_is_told_and_two_targets_overlapping_in_the_base_are_refused() -> None:
    batch = Batch(BASE, BASE, [], Options(fuzzy=False))
    assert batch.place(Target("0", "x", "not in the text")).status == "notFound"
    assert not batch.resolved
    overlapping = Batch(BASE, BASE, [], Options())
    overlapping.place(Target("0", "a", "def area(r):"))
    overlapping.place(Target("1", "b", span=(4, 8)))
    with pytest.raises(Exception, match="^edits: the targets of edits\\[0\\] and edits\\[1\\] overlap"):
        overlapping.placed(together=False)


class MovingFile:
    """A file edits are written to, which the user changes between the edits' placing and their write
    ``moves`` times (a line added at the top each time)."""

    def __init__(self, moves: int) -> None:
        self.text = BASE
        self.moves = moves
        self.placed_on: list[bytes] = []
        self.writes = 0

    def read(self) -> bytes:
        return self.text

    def index(self, file: bytes) -> LineIndex:
        return LineIndex(file)

    def place(self, file: bytes) -> Batch:
        self.placed_on.append(file)
        batch = Batch(BASE, file, moved(BASE, file), Options())
        batch.place(Target("0", "    return sum(xs, 0)\n", "    return sum(xs)\n"))
        return batch

    def write(self, file: bytes, change: Change) -> bytes | None:
        self.writes += 1
        if self.moves:
            self.moves -= 1
            self.text = b"# typed\n" + self.text
            return None
        self.text = change.text
        return self.text


def test_a_file_that_moves_before_the_write_lands_has_its_edits_placed_again() -> None:
    moving = MovingFile(moves=1)
    done = write_all(moving, retries=3)
    assert done is not None and done.wrote == moving.text
    assert moving.text == b"# typed\n" + BASE.replace(b"sum(xs)", b"sum(xs, 0)")
    assert moving.placed_on == [BASE, b"# typed\n" + BASE]
    assert done.read == b"# typed\n" + BASE and [r.status for r in done.results] == ["resolved"]


def test_a_file_that_keeps_moving_is_not_written_and_an_edit_already_there_writes_nothing() -> None:
    assert write_all(MovingFile(moves=3), retries=3) is None
    already = MovingFile(moves=0)
    already.text = BASE.replace(b"sum(xs)", b"sum(xs, 0)")
    already.place = lambda file: _placed_again(file)  # type: ignore[method-assign]
    done = write_all(already, retries=3)
    assert done is not None and done.wrote is done.read and already.writes == 0


def _placed_again(file: bytes) -> Batch:
    batch = Batch(file, file, [], Options())
    batch.place(Target("0", "    return sum(xs, 0)\n", "    return sum(xs, 0)\n"))
    return batch


@asynccontextmanager
async def language_server(root: Path) -> AsyncIterator[tuple[TetherServer, edits_lsp.Edits, list[Any]]]:
    """A language server in this process with the edits feature, on ``root``; the edits it asks the editor to
    apply are collected (and applied)."""
    server = TetherServer("tether-lsp", "test")
    edits: edits_lsp.Edits = server.router.install(edits_lsp.FEATURE)
    server.workspace_root = root
    server.protocol.client_capabilities = types.ClientCapabilities()  # as initialize leaves it: none asked for
    server.workers.bind_loop(asyncio.get_running_loop())
    applied: list[Any] = []

    async def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    server.workspace_apply_edit_async = apply_edit  # type: ignore[method-assign]
    try:
        yield server, edits, applied
    finally:
        await asyncio.to_thread(server.workers.close)


async def test_the_editors_and_the_agents_edits_are_placed_and_applied_by_one_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tether/edits/resolve`` and ``edit`` place their edits in ``Batch.place``; a task's change of a file that is
    not open (``tether/tasks/run``) and ``edit`` apply theirs in ``Batch.change``."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    placers: list[tuple[str, str]] = []
    appliers: list[tuple[str, str]] = []
    compose = service._compose

    def callers() -> tuple[str, str]:
        return sys._getframe(2).f_code.co_qualname, sys._getframe(3).f_code.co_qualname

    def resolve_spy(*args: Any) -> Any:
        placers.append(callers())  # resolve_one <- Batch.place <- the front
        return resolve_one(*args)

    def compose_spy(*args: Any) -> Any:
        appliers.append(callers())  # _compose <- Batch.change <- the front's way to it
        return compose(*args)

    monkeypatch.setattr(service, "resolve_one", resolve_spy)
    monkeypatch.setattr(service, "_compose", compose_spy)
    root = (tmp_path / "root").resolve()
    root.mkdir()
    (root / "calc.py").write_bytes(BASE)
    (root / "open.py").write_bytes(BASE)
    open_uri = (root / "open.py").as_uri()
    answer = "<change><path>calc.py</path>\n<range-to-replace>\n    return sum(xs)\n</range-to-replace>\n"
    answer += "<replacement>\n    return sum(xs, 0)\n</replacement></change>\n"
    with RunningModel(Answer(answer)) as model:
        async with language_server(root) as (server, edits, applied):
            did_open(
                server, types.DidOpenTextDocumentParams(types.TextDocumentItem(open_uri, "python", 1, BASE.decode()))
            )
            item = EditItem("    return sum(xs)\n", "    return sum(xs, 0)\n")
            resolved = edits_lsp.resolve(edits, ResolveParams(DocumentRef(open_uri), 1, [item]))
            server.apply_settings({"tasks": {"endpoint": model.url("/v1")}})
            (root / "task.py").write_text("# @run use a start value\n")
            run = RunParams(types.TextDocumentIdentifier((root / "task.py").as_uri()), types.Position(0, 0))
            ran = await lsp_tasks.run(edits.tasks, run)
        context = Context([root])
        with McpClient(build(context)) as client:
            version = client.ok("read", {"path": "calc.py"})["version"]
            item_ = {"old_text": "    return sum(xs)\n", "new_text": "    return sum(xs, 0)\n"}
            edited = client.ok("edit", {"path": "calc.py", "base_version": version, "edits": [item_]})
    assert [e.status for e in resolved.edits] == ["resolved"]
    assert [(e.status, e.uri) for e in ran.edits] == [("applied", (root / "calc.py").as_uri())]
    assert len(applied) == 1 and applied[0].label == "Tether task"
    assert edited["written"] and (root / "calc.py").read_bytes() == BASE.replace(b"sum(xs)", b"sum(xs, 0)")
    assert placers == [
        ("Batch.place", "resolve"),  # tether/edits/resolve
        ("Batch.place", "TaskRun._apply_whole"),  # tether/tasks/run
        ("Batch.place", "_Edits.place"),  # edit
    ]
    assert appliers == [("Batch.change", "TaskRun._apply_whole"), ("Batch.change", "write_all")]
