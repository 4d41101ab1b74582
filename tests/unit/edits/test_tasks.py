"""tasks.py, the inline tasks service without LSP: a real model server on 127.0.0.1 streams its answer, the
changes stream into open documents through a real :class:`Streamer`, files that are not open are changed
and created when their change is complete, and the session is written down. The host stands in for the
editor only: it applies what it is asked to, to documents in memory or to files on disk."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.fakemodel import Answer, FakeModel, RunningModel
from tether_lsp.handlers.edits.streamer import Streamer, StreamState
from tether_lsp.handlers.edits.tasks import Host, TaskOutcome, TaskRequest, Tasks, TaskSettings
from tether_lsp.server.documents import ContentChange, Document, DocumentStore
from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.settings import Settings, SettingsSchema
from tether_lsp.server.syntax import Snapshot, SyntaxCache
from tether_lsp.server.workers import Workers

CALC = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n\n# @run use sum() @file:util.py\n"
RUN_LINE = 6
UTIL = "def double(x):\n    return x * 2\n"
OLD_BODY = "    s = 0\n    for i in items:\n        s += i\n    return s\n"


def change(path: str, old: str, new: str) -> str:
    return f"<change><path>{path}</path>\n<range-to-replace>\n{old}</range-to-replace>\n<replacement>\n{new}</replacement></change>\n"


RESPONSE = (
    "Here you go.\n<description>sum() and a helper</description>\n"
    + change("calc.py", OLD_BODY, "    return sum(items)\n")
    + change("util.py", UTIL, UTIL + "\n\ndef triple(x):\n    return x * 3\n")
    + change("tests/test_calc.py", "", "from calc import total\n")
    + "<terminal-command>pytest -q</terminal-command>\n"
)


def tokens(text: str, size: int = 4) -> list[str]:
    return [text[k : k + size] for k in range(0, len(text), size)]


class Reporter:
    def __init__(self, title: str, token: str | int | None) -> None:
        self.title, self.token = title, token
        self.reports: list[str | None] = []
        self.ended: str | None = None

    def report(self, done: int, total: int, message: str | None = None) -> None:
        self.reports.append(message)

    def end(self, message: str = "done") -> None:
        self.ended = message


class Editor:
    """The host, and the streamer's front: an editor with documents in memory (each write comes back as a
    change, as a client's didChange would) and other files on disk, with a real worker pool."""

    def __init__(self, root: Path, encoding: Encoding = Encoding.UTF16, **tasks: Any) -> None:
        self.workspace_root: Path | None = root
        self.encoding = encoding
        schema = SettingsSchema()
        schema.register("tasks", TaskSettings)
        self.settings: Settings = schema.parse({"tasks": tasks})[0]
        self.docs = DocumentStore()
        self.syntax = SyntaxCache()
        self.workers = Workers(lambda: 2)
        self.progress: list[Reporter] = []
        self.suggested: list[str] = []
        self.refuse = False
        self.wrote = asyncio.Event()

    # --- the host -----------------------------------------------------------------------------------

    def document(self, uri: str) -> Document | None:
        return self.docs.get(uri)

    def open_documents(self) -> list[Document]:
        return list(self.docs)

    def snapshot(self, uri: str) -> Snapshot | None:
        return self.syntax.get(uri)

    async def run_blocking(self, fn: Any, *args: Any) -> Any:
        return await self.workers.run_blocking(fn, *args)

    async def start_progress(self, title: str, token: str | int | None) -> Reporter:
        self.progress.append(Reporter(title, token))
        return self.progress[-1]

    def suggest(self, command: str) -> None:
        self.suggested.append(command)

    async def create(self, uri: str, text: str) -> bool:
        path = Path(uri.removeprefix("file://"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return not self.refuse

    async def replace(self, uri: str, version: int | None, start: Pos, end: Pos, text: str) -> bool:
        if self.refuse:
            return False
        doc = self.docs.get(uri)
        if doc is not None:
            if version != doc.client_version:
                return False
            self._change(doc, start, end, text)
            return True
        path = Path(uri.removeprefix("file://"))
        old = path.read_bytes()
        index = LineIndex(old)
        a, b = index.offset_of(start, self.encoding), index.offset_of(end, self.encoding)
        path.write_bytes(old[:a] + text.encode() + old[b:])
        return True

    # --- the streamer's front -----------------------------------------------------------------------

    def idle_seconds(self) -> float:
        return 60.0

    async def write(self, doc: Document, start: int, end: int, text: str) -> bool:
        index = doc.current.index
        self._change(doc, index.position_of(start, self.encoding), index.position_of(end, self.encoding), text)
        return True

    def changed(self, state: StreamState) -> None:
        pass

    # --- the user -----------------------------------------------------------------------------------

    def open(self, path: Path, text: str) -> Document:
        path.write_text(text, encoding="utf-8")
        doc = self.docs.open(path.as_uri(), "python", 1, text)
        self.syntax.open(doc)
        return doc

    def _change(self, doc: Document, start: Pos, end: Pos, text: str) -> None:
        doc.apply(doc.client_version + 1, [ContentChange(text, (start, end))], self.encoding)
        self.syntax.update(doc)
        self.wrote.set()


def service(editor: Editor) -> Tasks:
    host: Host = editor  # the editor offers everything a task needs of its host
    return Tasks(host, Streamer(editor))


async def run(editor: Editor, uri: str, line: int = RUN_LINE, token: str | int | None = None) -> TaskOutcome:
    return await service(editor).run(TaskRequest(uri, line, token))


@pytest.fixture(autouse=True)
def _data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's sessions in a user data folder of its own (the workspaces are not git clones)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def setting(model: FakeModel, **more: Any) -> dict[str, Any]:
    return {"endpoint": model.url("/v1"), "apiKeyEnv": "TETHER_UNIT_KEY", **more}


async def test_changes_stream_into_the_open_document_and_apply_to_files_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_UNIT_KEY", "sk-unit-42")
    (tmp_path / "util.py").write_text(UTIL, encoding="utf-8")
    with RunningModel(Answer(chunks=tokens(RESPONSE), chunk_delay=0.001)) as model:
        editor = Editor(tmp_path, **setting(model))
        calc = editor.open(tmp_path / "calc.py", CALC)
        outcome = await run(editor, calc.uri, token="t-1")
    assert calc.current.string == CALC.replace(OLD_BODY, "    return sum(items)\n")
    assert (tmp_path / "util.py").read_text(encoding="utf-8") == UTIL + "\n\ndef triple(x):\n    return x * 3\n"
    assert (tmp_path / "tests" / "test_calc.py").read_text(encoding="utf-8") == "from calc import total\n"
    assert [(c.path, c.uri, c.status) for c in outcome.changes] == [
        ("calc.py", calc.uri, "applied"),
        ("util.py", (tmp_path / "util.py").as_uri(), "applied"),
        ("tests/test_calc.py", (tmp_path / "tests" / "test_calc.py").as_uri(), "created"),
    ]
    # where the streamed change stands in the document, in the host's positions; none for the others
    assert [c.place for c in outcome.changes] == [(Pos(1, 0), Pos(2, 0)), None, None]
    assert editor.suggested == ["pytest -q"]
    (progress,) = editor.progress
    assert (progress.title, progress.token) == ("Tether: use sum() @file:util.py", "t-1")
    assert progress.reports == ["change 1: calc.py", "change 2: util.py", "change 3: tests/test_calc.py"]
    assert progress.ended == "done"
    (request,) = model.requests
    assert model.headers[0]["Authorization"] == "Bearer sk-unit-42"
    assert request["stream"] is True
    assert '<file path="util.py">' in request["messages"][1]["content"]
    assert outcome.session.parent.parent == tmp_path / "data" / "tether" / "sessions"
    assert outcome.session.name == "session.md"
    story = outcome.session.read_text(encoding="utf-8")
    assert "# Task\n\nuse sum() @file:util.py" in story
    assert "- `calc.py` (version 1)" in story and "- `util.py` (from disk)" in story
    assert "`calc.py`: applied" in story and "`tests/test_calc.py`: created" in story
    assert "`pytest -q` (shown, not run)" in story and story.endswith("Done.\n")
    raw = (outcome.session.parent / "raw.md").read_text(encoding="utf-8")
    assert RESPONSE in raw
    assert "sk-unit-42" not in raw + story


@pytest.mark.parametrize("encoding", [Encoding.UTF8, Encoding.UTF16])
async def test_a_file_that_is_not_open_runs_its_own_task_in_the_hosts_positions(
    tmp_path: Path, encoding: Encoding
) -> None:
    """The instruction is read from disk, and the change is placed in the host's encoding: the end of a last
    line with no newline, after a 2-byte and a 4-byte character, is 8 UTF-8 bytes in but 5 UTF-16 units."""
    text = "# @run say hi\nx = 'é😀'"
    (tmp_path / "hi.py").write_text(text, encoding="utf-8")
    answer = change("hi.py", "x = 'é😀'\n", "x = 'hi'\n")
    with RunningModel(Answer(chunks=tokens(answer))) as model:
        editor = Editor(tmp_path, encoding, **setting(model))
        outcome = await run(editor, (tmp_path / "hi.py").as_uri(), line=0)
    assert (tmp_path / "hi.py").read_text(encoding="utf-8").rstrip("\n") == "# @run say hi\nx = 'hi'"
    assert [c.status for c in outcome.changes] == ["applied"]
    assert "from disk" in outcome.session.read_text(encoding="utf-8")


async def test_a_cancelled_task_reverts_the_change_it_was_writing(tmp_path: Path) -> None:
    line = "    return sum(items)\n"
    cut = RESPONSE.index(line) + len(line)  # one complete line of the replacement written, more to come
    with RunningModel(Answer(chunks=tokens(RESPONSE[:cut]) + ["x"] * 400, chunk_delay=0.02)) as model:
        editor = Editor(tmp_path, **setting(model))
        calc = editor.open(tmp_path / "calc.py", CALC)
        running = asyncio.ensure_future(run(editor, calc.uri))
        await asyncio.wait_for(editor.wrote.wait(), 10)
        assert "return sum(items)" in calc.current.string
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(running, 10)
    assert calc.current.string == CALC
    assert editor.progress[0].ended == "failed"
    (session,) = (tmp_path / "data" / "tether" / "sessions").glob("*/session.md")
    story = session.read_text(encoding="utf-8")
    assert "`calc.py`: reverted (cancelled)" in story
    assert "Cancelled by the user." in story


async def test_a_stream_that_fails_midway_keeps_complete_changes_only(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text(UTIL, encoding="utf-8")
    pieces = tokens(RESPONSE[: RESPONSE.index("<change><path>util.py") + 60])
    with RunningModel(Answer(chunks=pieces + pieces, drop=True)) as model:  # dropped right after the pieces
        editor = Editor(tmp_path, **setting(model))
        calc = editor.open(tmp_path / "calc.py", CALC)
        outcome = await run(editor, calc.uri)
    assert [c.status for c in outcome.changes] == ["applied", "pending"]
    assert "return sum(items)" in calc.current.string
    assert (tmp_path / "util.py").read_text(encoding="utf-8") == UTIL
    assert "The model stream failed" in outcome.session.read_text(encoding="utf-8")
    assert editor.progress[0].ended == "failed"


async def test_a_model_too_slow_for_the_timeout_is_stopped(tmp_path: Path) -> None:
    with RunningModel(Answer(chunks=["Thinking"] * 400, chunk_delay=0.02)) as model:
        editor = Editor(tmp_path, **setting(model, timeout=1))
        calc = editor.open(tmp_path / "calc.py", CALC)
        outcome = await run(editor, calc.uri)
    assert outcome.changes == []
    assert "The model stream failed: no answer in time." in outcome.session.read_text(encoding="utf-8")


async def test_changes_outside_the_workspace_or_refused_are_not_applied(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text(UTIL, encoding="utf-8")
    answer = change("../evil.py", "", "boom\n") + change("util.py", UTIL, "pass\n")
    with RunningModel(Answer(chunks=tokens(answer))) as model:
        editor = Editor(tmp_path, **setting(model))
        editor.refuse = True
        calc = editor.open(tmp_path / "calc.py", CALC)
        outcome = await run(editor, calc.uri)
    assert [(c.uri, c.status) for c in outcome.changes] == [
        ("", "rejected"),
        ((tmp_path / "util.py").as_uri(), "failed"),
    ]
    assert not (tmp_path.parent / "evil.py").exists()
    assert (tmp_path / "util.py").read_text(encoding="utf-8") == UTIL
    story = outcome.session.read_text(encoding="utf-8")
    assert "`../evil.py`: outside the workspace, not applied" in story and "`util.py`: failed" in story


async def test_the_files_syntax_errors_are_shown_when_asked_for(tmp_path: Path) -> None:
    with RunningModel(Answer("<description>fixed</description>\n")) as model:
        editor = Editor(tmp_path, **setting(model))
        broken = editor.open(tmp_path / "broken.py", "def f(:\n    pass\n# @run fix it @errors\n")
        await run(editor, broken.uri, line=2)
    prompt = model.requests[0]["messages"][1]["content"]
    assert "Errors in the current file:\nline 1: missing )" in prompt


async def test_what_is_refused_before_the_model_is_asked(tmp_path: Path) -> None:
    with RunningModel(Answer("")) as model:
        editor = Editor(tmp_path, **setting(model))
        calc = editor.open(tmp_path / "calc.py", CALC)
        with pytest.raises(InvalidParams, match="^position: the line holds no `@run <instruction>`"):
            await run(editor, calc.uri, line=0)
        with pytest.raises(InvalidParams, match="^position: line 40 is outside the document"):
            await run(editor, calc.uri, line=40)
        with pytest.raises(InvalidParams, match="^textDocument.uri: .* is neither open nor a readable file"):
            await run(editor, (tmp_path / "nowhere.py").as_uri())
    assert model.requests == []
    with pytest.raises(RequestFailed, match="tether.tasks.endpoint") as info:
        await run(Editor(tmp_path), calc.uri)
    assert info.value.data["kind"] == "noEndpoint"
