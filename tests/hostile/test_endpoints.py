"""Model endpoints that misbehave: answers without end are cut at tether.limits.maxResponseBytes, events of
the wrong shape are skipped; the client always gets an answer and never a traceback."""

from __future__ import annotations

from pathlib import Path

import psutil

from tests.fakemodel import Answer, RunningModel
from tests.helpers import server_env
from tests.hostile.conftest import assert_alive
from tests.rawclient import RawServer

ENDLESS = 400 * 1024 * 1024  # what the fake would send if nobody hung up
LIMIT = 1024 * 1024


def start(root: Path, settings: dict[str, object]) -> RawServer:
    # the warnings checked on stderr: over stdio it gets only errors unless a level is asked for
    server = RawServer(
        "--log-level", "info", env=server_env({"TETHER_DATABASE_URL": f"sqlite:///{root / 'tether.db'}"})
    )
    server.initialize(
        rootUri=root.as_uri(), initializationOptions={"tether": {"limits": {"maxResponseBytes": LIMIT}, **settings}}
    )
    return server


def open_task(server: RawServer, root: Path, text: str) -> dict[str, object]:
    path = root / "calc.py"
    path.write_text(text)
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": text}},
    )
    return {"textDocument": {"uri": path.as_uri()}, "position": {"line": 0, "character": 0}}


def test_a_task_stream_without_end_is_cut_at_the_limit(tmp_path: Path) -> None:
    with RunningModel(Answer(endless=ENDLESS)) as model:
        server = start(tmp_path, {"tasks": {"endpoint": model.url("/v1")}})
        try:
            answer = server.request("tether/tasks/run", open_task(server, tmp_path, "# @run make it faster\n"), 120)
            assert "result" in answer or answer["error"]["code"] != -32603, answer
            assert model.endless_sent < 64 * 1024 * 1024  # the server hung up near 1 MB (plus socket buffers)
            assert psutil.Process(server.proc.pid).memory_info().rss < 400 * 1024 * 1024
            assert_alive(server)
            assert b"Traceback" not in server.stderr
        finally:
            server.close()


def test_stream_events_with_non_text_content_are_skipped(tmp_path: Path) -> None:
    answer = Answer(chunks=["<description>nothing to do</description>"], raw_events=[42, {"a": 1}, ["x"], None])
    with RunningModel(answer) as model:
        server = start(tmp_path, {"tasks": {"endpoint": model.url("/v1")}})
        try:
            result = server.request("tether/tasks/run", open_task(server, tmp_path, "# @run explain\n"), 60)
            assert result["result"]["edits"] == []
            assert b"Traceback" not in server.stderr
        finally:
            server.close()


def test_an_inline_completion_body_without_end_gives_no_items(tmp_path: Path) -> None:
    with RunningModel(Answer(endless=ENDLESS)) as model:
        server = start(tmp_path, {"inference": {"endpoint": model.url("/api/generate"), "delay": -1}})
        try:
            params = open_task(server, tmp_path, "def f():\n    \n")
            params["position"] = {"line": 1, "character": 4}
            params["context"] = {"triggerKind": 1}
            answer = server.request("textDocument/inlineCompletion", params, 60)
            assert answer["result"]["items"] == []
            assert model.endless_sent < 64 * 1024 * 1024
            server.wait_for_stderr(b"maxResponseBytes")
            assert_alive(server)
        finally:
            server.close()
