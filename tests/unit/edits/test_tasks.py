"""tasks.py, the inline tasks service without LSP: a real model server on 127.0.0.1 streams its answer, the
changes stream into open documents through a real :class:`Streamer`, files that are not open are changed
and created when their change is complete, and the session is written down. The host is a real
:class:`ThreadHost` (its progress recorded); the editor is a stand-in: it applies what it is asked to, to
documents in memory or to files on disk."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakemodel import Answer, FakeModel, RunningModel
from tether_lsp.handlers.edits.editor import Editor as EditorProtocol
from tether_lsp.handlers.edits.settings import EditSettings, TaskSettings
from tether_lsp.handlers.edits.streamer import Streamer, StreamState
from tether_lsp.handlers.edits.tasks import TaskOutcome, TaskRequest, Tasks
from tether_lsp.server.documents import ContentChange, Document, DocumentStore
from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.host import Host
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.settings import SettingsSchema
from tether_lsp.server.syntax import Snapshot, SyntaxCache
from tether_lsp.server.thread_host import ThreadHost

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
    minimum = 0

    def __init__(self, title: str, token: str | int | None) -> None:
        self.title, self.token = title, token
        self.reports: list[str | None] = []
        self.ended: str | None = None

    def report(self, done: int, total: int, message: str | None = None) -> None:
        self.reports.append(message)

    def end(self, message: str = "done") -> None:
        self.ended = message


class RecordingHost(ThreadHost):
    """The host of a process with no language server, whose progress is recorded."""

    def __init__(self, root: Path, tasks: dict[str, Any], progress: list[Reporter]) -> None:
        schema = SettingsSchema()
        schema.register("tasks", TaskSettings)
        schema.register("edits", EditSettings)
        super().__init__(schema.parse({"tasks": tasks, "edits": {"streamIdleSeconds": 60}})[0], root, {})
        self.progress = progress

    async def start_progress(self, title: str, client_token: str | int | None = None) -> Reporter:  # type: ignore[override]
        self.progress.append(Reporter(title, client_token))
        return self.progress[-1]


HOSTS: list[ThreadHost] = []


@pytest.fixture(autouse=True)
def _hosts_closed() -> Iterator[None]:
    yield
    while HOSTS:
        HOSTS.pop().close()


class Editor:
    """The editor: documents in memory (each write comes back as a change, as a client's didChange would) and
    other files on disk; it runs on a real host (``host``)."""

    def __init__(self, root: Path, encoding: Encoding = Encoding.UTF16, **tasks: Any) -> None:
        self.encoding = encoding
        self.docs = DocumentStore()
        self.syntax = SyntaxCache()
        self.progress: list[Reporter] = []
        self.host = RecordingHost(root, tasks, self.progress)
        HOSTS.append(self.host)
        self.suggested: list[str] = []
        self.refuse = False
        self.wrote = asyncio.Event()

    # --- the editor ---------------------------------------------------------------------------------

    def document(self, uri: str) -> Document | None:
        return self.docs.get(uri)

    def open_documents(self) -> list[Document]:
        return list(self.docs)

    def snapshot(self, uri: str) -> Snapshot | None:
        return self.syntax.get(uri)

    def suggest(self, command: str) -> None:
        self.suggested.append(command)

    async def create(self, uri: str, text: str) -> bool:
        path = Path(uri.removeprefix("file://"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return not self.refuse

    async def write(
        self, uri: str, version: int | None, index: LineIndex, start: int, end: int, text: str, label: str
    ) -> bool:
        """Positions as the editor's encoding counts them, as an editor is handed them."""
        if self.refuse:
            return False
        a, b = index.position_of(start, self.encoding), index.position_of(end, self.encoding)
        doc = self.docs.get(uri)
        if doc is not None:
            if version != doc.client_version:
                return False
            self._change(doc, a, b, text)
            return True
        path = Path(uri.removeprefix("file://"))
        old = path.read_bytes()
        on_disk = LineIndex(old)
        x, y = on_disk.offset_of(a, self.encoding), on_disk.offset_of(b, self.encoding)
        path.write_bytes(old[:x] + text.encode() + old[y:])
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
    host: Host = editor.host
    front: EditorProtocol = editor  # the stand-in offers everything a task needs of its editor
    return Tasks(host, front, Streamer(host, front))


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
