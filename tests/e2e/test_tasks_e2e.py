"""``tether/tasks/run`` end to end: a fake model server streams a response token by token that changes two
files and creates a third; a cancelled run; a server error mid-stream; no endpoint configured."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException

from tests.e2e.test_edits_e2e import EditorModel
from tests.e2e.test_markers_e2e import git
from tests.fakemodel import Answer, FakeModel, RunningModel
from tests.helpers import raw_notify, raw_request, server_config

CALC = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n\n# @run use sum() and add a helper @file:util.py\n"
UTIL = "def double(x):\n    return x * 2\n"

RESPONSE = """Here you go.
<description>total() uses sum(); a triple helper; a test</description>
<change><path>calc.py</path>
<range-to-replace>
    s = 0
    for i in items:
        s += i
    return s
</range-to-replace>
<replacement>
    return sum(items)
</replacement></change>
<change><path>util.py</path>
<range-to-replace>
def double(x):
    return x * 2
</range-to-replace>
<replacement>
def double(x):
    return x * 2


def triple(x):
    return x * 3
</replacement></change>
<change><path>tests/test_calc.py</path>
<range-to-replace>
</range-to-replace>
<replacement>
from calc import total


def test_total():
    assert total([1, 2, 3]) == 6
</replacement></change>
<terminal-command>pytest -q</terminal-command>
"""


def tokens(text: str, size: int = 4) -> list[str]:
    return [text[k : k + size] for k in range(0, len(text), size)]


class Workspace:
    """The client side: open documents edited in memory, other files on disk (as an editor would)."""

    def __init__(self, lsp: Any, root: Path) -> None:
        self.lsp, self.root = lsp, root
        self.editors: dict[str, EditorModel] = {}

        @lsp.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: Any) -> types.ApplyWorkspaceEditResult:
            data = get_converter().unstructure(params)
            for change in data["edit"]["documentChanges"]:
                if change.get("kind") == "create":
                    path = Path(change["uri"].removeprefix("file://"))
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.touch()
                    continue
                uri = change["textDocument"]["uri"]
                if uri in self.editors:
                    result = self.editors[uri].apply({"edit": {"documentChanges": [change]}})
                    if not result.applied:
                        return result
                    continue
                path = Path(uri.removeprefix("file://"))
                text = path.read_text(encoding="utf-8")
                editor = EditorModel.__new__(EditorModel)
                editor.text = text
                for edit in change["edits"]:
                    r = edit["range"]
                    start = editor.offset(r["start"]["line"], r["start"]["character"])
                    end = editor.offset(r["end"]["line"], r["end"]["character"])
                    editor.text = editor.text[:start] + edit["newText"] + editor.text[end:]
                path.write_text(editor.text, encoding="utf-8")
            return types.ApplyWorkspaceEditResult(applied=True)

    def open(self, name: str, text: str) -> EditorModel:
        (self.root / name).write_text(text, encoding="utf-8")
        editor = EditorModel(self.lsp, (self.root / name).as_uri(), text)
        self.editors[editor.uri] = editor
        return editor


async def start(
    tmp_path: Path, model: FakeModel | None, *, root: Path | None = None, **tasks: Any
) -> tuple[Any, Workspace]:
    """A server on the workspace ``root`` (``tmp_path`` when not given), its user data folder in ``tmp_path``."""
    root = root or tmp_path
    data = str(user_data(tmp_path).parent)
    lsp: Any = await server_config(TETHER_TEST_API_KEY="sk-secret-123", XDG_DATA_HOME=data).start()
    workspace = Workspace(lsp, root)
    settings = {"endpoint": model.url("/v1"), "apiKeyEnv": "TETHER_TEST_API_KEY", **tasks} if model else {}
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
            root_uri=root.as_uri(),
            initialization_options={"tether": {"tasks": settings}},
        )
    )
    return lsp, workspace


def user_data(tmp_path: Path) -> Path:
    """Tether's folder in the user data folder of the servers ``start`` starts."""
    return tmp_path / "user-data" / "tether"


async def stop(lsp: Any) -> None:
    await lsp.shutdown_session()
    await lsp.stop()


def run_params(editor: EditorModel) -> dict[str, Any]:
    line = editor.text.split("\n").index(next(x for x in editor.text.split("\n") if "@run" in x))
    return {"textDocument": {"uri": editor.uri}, "position": {"line": line, "character": 0}}


def _ended(lsp: Any) -> bool:
    return any(
        reports and type(reports[-1]).__name__ == "WorkDoneProgressEnd" for reports in lsp.progress_reports.values()
    )


async def test_a_streamed_task_changes_two_files_and_creates_a_third(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text(UTIL, encoding="utf-8")
    with RunningModel(Answer(chunks=tokens(RESPONSE), chunk_delay=0.002)) as model:
        lsp, ws = await start(tmp_path, model)
        try:
            calc = ws.open("calc.py", CALC)
            result = await raw_request(lsp, "tether/tasks/run", run_params(calc))
            while not _ended(lsp):  # the end report may follow the answer: wait for it, not for a while
                await asyncio.wait_for(lsp.wait_for_notification("$/progress"), 10)
            (reports,) = lsp.progress_reports.values()
        finally:
            await stop(lsp)
    kinds = [type(r).__name__ for r in reports]
    assert kinds[0] == "WorkDoneProgressBegin"
    assert kinds[-1] == "WorkDoneProgressEnd"
    assert [r.message for r in reports if type(r).__name__ == "WorkDoneProgressReport"] == [
        "change 1: calc.py",
        "change 2: util.py",
        "change 3: tests/test_calc.py",
    ]
    assert calc.text == CALC.replace(
        "    s = 0\n    for i in items:\n        s += i\n    return s\n", "    return sum(items)\n"
    )
    assert (tmp_path / "util.py").read_text(encoding="utf-8") == UTIL + "\n\ndef triple(x):\n    return x * 3\n"
    assert (tmp_path / "tests" / "test_calc.py").read_text(encoding="utf-8").startswith("from calc import total")
    assert [e["status"] for e in result["edits"]] == ["applied", "applied", "created"]
    assert any("pytest -q" in m.message and "not run" in m.message for m in lsp.messages)
    (request,) = model.requests
    assert request["stream"] is True
    user = request["messages"][1]["content"]
    assert "use sum() and add a helper @file:util.py" in user
    assert '<file path="calc.py">' in user
    assert '<file path="util.py">' in user
    session = Path(result["sessionUri"].removeprefix("file://"))
    assert session.parent.parent == user_data(tmp_path) / "sessions"  # not a git clone: the user data folder
    assert not (tmp_path / ".tether").exists()
    story = session.read_text(encoding="utf-8")
    assert "`calc.py`: applied" in story
    assert "`tests/test_calc.py`: created" in story
    assert "Done." in story
    raw = (session.parent / "raw.md").read_text(encoding="utf-8")
    assert RESPONSE in raw  # exactly what the model said
    assert '"role": "system"' in raw
    assert "sk-secret-123" not in raw + story  # the API key is never written down


async def test_progress_goes_to_the_clients_own_token_when_it_gives_one(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text(UTIL, encoding="utf-8")
    with RunningModel(Answer(chunks=tokens(RESPONSE), chunk_delay=0.002)) as model:
        lsp, ws = await start(tmp_path, model)
        seen: list[Any] = []
        lsp.protocol.fm.features.pop("$/progress", None)

        @lsp.feature("$/progress")
        def on_progress(params: Any) -> None:
            seen.append(get_converter().unstructure(params))

        try:
            calc = ws.open("calc.py", CALC)
            result = await raw_request(lsp, "tether/tasks/run", {**run_params(calc), "workDoneToken": "my-token-7"})
            while not seen or seen[-1]["value"]["kind"] != "end":  # the end may follow the answer: wait for it
                await asyncio.wait_for(lsp.wait_for_notification("$/progress"), 10)
        finally:
            await stop(lsp)
    assert {p["token"] for p in seen} == {"my-token-7"}  # no token of the server's own was created
    assert lsp.progress_reports == {}
    assert seen[0]["value"]["kind"] == "begin" and seen[0]["value"]["cancellable"] is True
    reports = [p["value"].get("message") for p in seen if p["value"]["kind"] == "report"]
    assert reports[:3] == ["change 1: calc.py", "change 2: util.py", "change 3: tests/test_calc.py"]
    assert [e["status"] for e in result["edits"]] == ["applied", "applied", "created"]


async def test_a_cancelled_run_leaves_documents_consistent(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text(UTIL, encoding="utf-8")
    line = "    return sum(items)\n"
    cut = RESPONSE.index(line) + len(line)  # a complete line of calc.py's replacement is written, more is coming
    slow = tokens(RESPONSE[:cut]) + ["x"] * 400
    with RunningModel(Answer(chunks=slow, chunk_delay=0.02)) as model:
        lsp, ws = await start(tmp_path, model)
        try:
            calc = ws.open("calc.py", CALC)
            msg_id = str(uuid.uuid4())
            future = lsp.protocol.send_request("tether/tasks/run", run_params(calc), msg_id=msg_id)
            await asyncio.wait_for(calc.changed.wait(), 10)  # the first applied piece of the change
            assert "return sum(items)" in calc.text  # it was being written when cancelled
            raw_notify(lsp, "$/cancelRequest", {"id": msg_id})
            with pytest.raises(JsonRpcException) as cancelled:
                await asyncio.wait_for(asyncio.wrap_future(future), 10)
            assert cancelled.value.code == -32800  # answered only once the change being written was reverted
        finally:
            await stop(lsp)
    assert calc.text == CALC  # the change being written was reverted exactly
    sessions = list((user_data(tmp_path) / "sessions").iterdir())
    assert "Cancelled by the user." in (sessions[0] / "session.md").read_text(encoding="utf-8")


async def test_a_server_error_mid_stream(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text(UTIL, encoding="utf-8")
    cut = RESPONSE.index("<change><path>util.py") + 60
    pieces = tokens(RESPONSE[:cut])
    # the fake server drops the connection halfway through its pieces: right after `cut`, inside util.py's change
    answer = Answer(chunks=pieces + pieces, drop=True)
    with RunningModel(answer) as model:
        lsp, ws = await start(tmp_path, model)
        try:
            calc = ws.open("calc.py", CALC)
            result = await raw_request(lsp, "tether/tasks/run", run_params(calc))
        finally:
            await stop(lsp)
    assert result["edits"][0]["status"] == "applied"  # the complete first change is kept
    assert "return sum(items)" in calc.text
    assert (tmp_path / "util.py").read_text(encoding="utf-8") == UTIL  # the broken one never half-applied
    story = Path(result["sessionUri"].removeprefix("file://")).read_text(encoding="utf-8")
    assert "The model stream failed" in story


async def test_no_endpoint_says_which_setting_to_set(tmp_path: Path) -> None:
    lsp, ws = await start(tmp_path, None)
    try:
        calc = ws.open("calc.py", CALC)
        with pytest.raises(JsonRpcException) as info:
            await raw_request(lsp, "tether/tasks/run", run_params(calc))
        assert info.value.code == -32803
        assert "tether.tasks.endpoint" in str(info.value.message)
    finally:
        await stop(lsp)


async def test_a_line_without_an_instruction_is_refused(tmp_path: Path) -> None:
    with RunningModel(Answer(chunks=tokens(RESPONSE))) as model:
        lsp, ws = await start(tmp_path, model)
        try:
            calc = ws.open("calc.py", CALC)
            with pytest.raises(JsonRpcException) as info:
                await raw_request(
                    lsp,
                    "tether/tasks/run",
                    {"textDocument": {"uri": calc.uri}, "position": {"line": 0, "character": 0}},
                )
            assert info.value.code == -32602
            assert "position: the line holds no `@run <instruction>`" in str(info.value.message)
        finally:
            await stop(lsp)
    assert model.requests == []  # nothing was sent to the model


async def test_session_logs_stay_out_of_the_worktree(tmp_path: Path) -> None:
    """In a git clone the log goes to Tether's folder in the git directory (where the database is), so the
    worktree shows nothing new."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "calc.py").write_text(CALC, encoding="utf-8")
    (repo / "util.py").write_text(UTIL, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    answer = "<description>nothing to change</description>\n"
    with RunningModel(Answer(chunks=tokens(answer))) as model:
        lsp, ws = await start(tmp_path, model, root=repo)
        try:
            calc = ws.open("calc.py", CALC)
            result = await raw_request(lsp, "tether/tasks/run", run_params(calc))
        finally:
            await stop(lsp)
    assert result["edits"] == []
    assert git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored") == ""
    session = Path(result["sessionUri"].removeprefix("file://"))
    assert session.parent.parent == repo / ".git" / "tether" / "sessions"
    assert "nothing to change" in session.read_text(encoding="utf-8")
    assert answer in (session.parent / "raw.md").read_text(encoding="utf-8")
