"""Running prompts over stdio against the fake model server: variables, streaming order, both chat protocols,
cancel, a missing variable, no endpoint, an endpoint that is down, and a run history that follows a renamed
prompt across a restart."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.test_playground_e2e import Editor, start, stop
from tests.fakemodel import Answer, RunningModel
from tests.helpers import raw_notify, raw_request
from tether_lsp.server.lspclient import plain

PROMPTS = """from textwrap import dedent

SYSTEM_PROMPT = "You are a concise support assistant for a café."


def translation_prompt(text: str, language: str) -> str:
    return f"Translate into {language}, keeping product names: {text}"


def build_messages(question):
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Question from a customer in 東京: {question}"},
    ]
"""


def outputs(editor: Editor) -> list[dict[str, Any]]:
    """Every ``didRunOutput`` the client received, in order."""
    if not hasattr(editor, "runs_seen"):
        seen: list[dict[str, Any]] = []

        @editor.lsp.feature("tether/playground/didRunOutput")
        def on_output(params: Any) -> None:
            seen.append(plain(params))

        editor.runs_seen = seen  # type: ignore[attr-defined]
    return editor.runs_seen  # type: ignore[attr-defined]


async def prompt_ids(editor: Editor) -> dict[str, str]:
    return {p["anchor"]: p["promptId"] for p in (await editor.state())["prompts"]}


def playground(url: str, **more: Any) -> dict[str, Any]:
    return {"tether": {"playground": {"endpoint": url, "model": "fake-chat", **more}}}


async def test_a_run_with_variables_streams_then_answers_and_is_stored(tmp_path: Path) -> None:
    pieces = ["Traduire ", "en ", "français", " : ", "café ☕"]
    with RunningModel(Answer(chunks=pieces)) as model:
        lsp, editor = await start(tmp_path, **playground(model.url("/v1"), apiKeyEnv="TETHER_TEST_KEY"))
        seen = outputs(editor)
        try:
            editor.open("prompts.py", PROMPTS)
            pid = (await prompt_ids(editor))["translation_prompt().return"]
            params = {
                "promptId": pid,
                "variables": {"language": "French", "text": "Un café 🚀"},
                "options": {"temperature": 0.2, "maxTokens": 50},
            }
            result = await raw_request(lsp, "tether/playground/run", params)
            assert [o["delta"] for o in seen] == pieces  # every piece arrived before the answer, in order
            assert {o["runId"] for o in seen} == {result["runId"]}
            assert result["output"] == "".join(pieces)
            assert result["model"] == "fake-chat" and result["finishReason"] == "stop"
            assert result["usage"] == {"promptTokens": 7, "completionTokens": len(pieces)}
            (sent,) = model.requests
            assert model.paths == ["/v1/chat/completions"]
            assert sent["messages"] == [
                {"role": "user", "content": "Translate into French, keeping product names: Un café 🚀"}
            ]
            assert sent["temperature"] == 0.2 and sent["max_tokens"] == 50 and sent["stream"] is True
            (history,) = await raw_request(lsp, "tether/playground/runs", {"promptId": pid})
            assert history["runId"] == result["runId"] and history["output"] == result["output"]
            assert history["variables"] == {"text": "Un café 🚀", "language": "French"}
            assert history["prompt"] == "Translate into {language}, keeping product names: {text}"
            assert (history["temperature"], history["maxTokens"]) == (0.2, 50)  # the options sent, with the run
        finally:
            await stop(lsp)


async def test_a_message_of_a_conversation_sends_the_conversation_to_ollama(tmp_path: Path) -> None:
    with RunningModel(Answer(chunks=["Bonjour", "!"])) as model:
        lsp, editor = await start(tmp_path, **playground(model.url("/api/chat")))
        try:
            editor.open("prompts.py", PROMPTS)
            ids = await prompt_ids(editor)
            await raw_request(
                lsp,
                "tether/playground/setSettings",
                {"promptId": ids["build_messages()[1].content"], "settings": {"variables": {"question": "Ouvert ?"}}},
            )
            result = await raw_request(
                lsp, "tether/playground/run", {"promptId": ids["build_messages()[1].content"], "model": "llama3"}
            )
            assert result["output"] == "Bonjour!" and result["model"] == "llama3"
            assert result["usage"] == {"promptTokens": 7, "completionTokens": 2}
            (sent,) = model.requests
            assert model.paths == ["/api/chat"]
            assert sent["messages"] == [  # the whole conversation, the constant read, the saved variable filled in
                {"role": "system", "content": "You are a concise support assistant for a café."},
                {"role": "user", "content": "Question from a customer in 東京: Ouvert ?"},
            ]
            system = await raw_request(lsp, "tether/playground/run", {"promptId": ids["SYSTEM_PROMPT"]})
            assert system["output"] == "Bonjour!"
            assert model.requests[1]["messages"] == [
                {"role": "system", "content": "You are a concise support assistant for a café."}
            ]
        finally:
            await stop(lsp)


async def test_a_missing_variable_names_it(tmp_path: Path) -> None:
    with RunningModel(Answer("unused")) as model:
        lsp, editor = await start(tmp_path, **playground(model.url("/v1")))
        try:
            editor.open("prompts.py", PROMPTS)
            pid = (await prompt_ids(editor))["translation_prompt().return"]
            with pytest.raises(JsonRpcException) as info:
                await raw_request(lsp, "tether/playground/run", {"promptId": pid, "variables": {"language": "de"}})
            assert info.value.code == -32602
            assert info.value.data == {"kind": "missingVariable", "field": "variables.text", "missing": ["text"]}
            assert info.value.message == (
                "variables.text: no value for the variable text: set it in the playground (e.g. its variables form) "
                "before running"
            )
            with pytest.raises(JsonRpcException) as info:
                await raw_request(lsp, "tether/playground/run", {"promptId": pid})
            assert (info.value.data or {})["missing"] == ["text", "language"]
            assert info.value.message == (  # each named plainly, and what to do: the clients add their key
                "variables.text: no value for the variables text and language: set them in the playground "
                "(e.g. its variables form) before running"
            )
            assert model.requests == []  # nothing was sent
            bad = [
                ({"promptId": pid, "variables": {"language": 5, "text": "x"}}, "variables.language"),
                (
                    {"promptId": pid, "variables": {"language": "a", "text": "b"}, "options": {"temperature": 9}},
                    "options.temperature",
                ),
                ({"promptId": "p-nope"}, "promptId"),
            ]
            for params, field in bad:
                with pytest.raises(JsonRpcException) as info:
                    await raw_request(lsp, "tether/playground/run", params)
                assert info.value.code == -32602 and field in info.value.message
            with pytest.raises(JsonRpcException) as info:
                await raw_request(lsp, "tether/playground/runs", {"promptId": pid, "limit": 0})
            assert info.value.code == -32602 and "limit" in info.value.message
        finally:
            await stop(lsp)


async def test_no_endpoint_and_an_endpoint_that_is_down(tmp_path: Path) -> None:
    lsp, editor = await start(tmp_path)
    try:
        editor.open("prompts.py", PROMPTS)
        pid = (await prompt_ids(editor))["SYSTEM_PROMPT"]
        with pytest.raises(JsonRpcException) as info:
            await raw_request(lsp, "tether/playground/run", {"promptId": pid})
        assert info.value.code == -32803 and "tether.playground.endpoint" in info.value.message
        assert (info.value.data or {})["kind"] == "noEndpoint"
    finally:
        await stop(lsp)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    lsp, editor = await start(tmp_path, **playground(f"http://127.0.0.1:{port}/v1"))
    try:
        editor.open("prompts.py", PROMPTS)
        with pytest.raises(JsonRpcException) as info:
            await raw_request(lsp, "tether/playground/run", {"promptId": pid})
        assert info.value.code == -32803 and (info.value.data or {})["kind"] == "modelFailed"
        assert await raw_request(lsp, "tether/playground/runs", {"promptId": pid}) == []  # a failed run is not kept
    finally:
        await stop(lsp)


async def test_the_tasks_endpoint_is_the_fallback_and_the_key_is_sent_not_stored(tmp_path: Path) -> None:
    with RunningModel(Answer("ok")) as model:
        tasks = {"tether": {"tasks": {"endpoint": model.url("/v1"), "model": "task-model", "apiKeyEnv": "MY_KEY"}}}
        import os

        os.environ["MY_KEY"] = "sk-secret-456"  # the server inherits the test's environment
        try:
            lsp, editor = await start(tmp_path, **tasks)
        finally:
            del os.environ["MY_KEY"]
        try:
            editor.open("prompts.py", PROMPTS)
            pid = (await prompt_ids(editor))["SYSTEM_PROMPT"]
            result = await raw_request(lsp, "tether/playground/run", {"promptId": pid})
            assert result["model"] == "task-model"
            assert model.headers[0]["Authorization"] == "Bearer sk-secret-456"
            (stored,) = await raw_request(lsp, "tether/playground/runs", {"promptId": pid})
            assert "sk-secret-456" not in str(stored)
        finally:
            await stop(lsp)
    assert b"sk-secret-456" not in (tmp_path / "db" / "tether.db").read_bytes()


async def test_cancel_stops_the_model_call(tmp_path: Path) -> None:
    slow = ["tick "] * 400
    with RunningModel(Answer(chunks=slow, chunk_delay=0.02)) as model:
        lsp, editor = await start(tmp_path, **playground(model.url("/v1")))
        seen = outputs(editor)
        try:
            editor.open("prompts.py", PROMPTS)
            pid = (await prompt_ids(editor))["SYSTEM_PROMPT"]
            msg_id = str(uuid.uuid4())
            future = lsp.protocol.send_request("tether/playground/run", {"promptId": pid}, msg_id=msg_id)
            while not seen:  # until the answer is streaming
                await asyncio.wait_for(lsp.wait_for_notification("tether/playground/didRunOutput"), 10)
            raw_notify(lsp, "$/cancelRequest", {"id": msg_id})
            with pytest.raises(JsonRpcException) as cancelled:
                await asyncio.wait_for(asyncio.wrap_future(future), 10)
            assert cancelled.value.code == -32800
            assert len(seen) < len(slow)  # stopped before the model finished
            assert await raw_request(lsp, "tether/playground/runs", {"promptId": pid}) == []
        finally:
            await stop(lsp)


async def test_the_history_follows_a_renamed_prompt_across_a_restart(tmp_path: Path) -> None:
    text = 'SUMMARY_PROMPT = "Summarize the support ticket below in three bullet points: {ticket}"\n'
    with RunningModel(Answer("first"), Answer("second"), Answer("third")) as model:
        lsp, editor = await start(tmp_path, **playground(model.url("/v1")))
        try:
            editor.open("old.py", text)
            (pid,) = (await prompt_ids(editor)).values()
            for ticket in ("#1", "#2"):
                await raw_request(lsp, "tether/playground/run", {"promptId": pid, "variables": {"ticket": ticket}})
        finally:
            await stop(lsp)
        (tmp_path / "old.py").unlink()  # renamed while the server was not running, and the prompt edited too
        renamed = text.replace("SUMMARY_PROMPT", "TICKET_SUMMARY_PROMPT").replace("three", "3")
        lsp, editor = await start(tmp_path, **playground(model.url("/v1")))
        try:
            editor.open("new.py", renamed)
            assert list((await prompt_ids(editor)).values()) == [pid]
            history = await raw_request(lsp, "tether/playground/runs", {"promptId": pid})
            assert [r["output"] for r in history] == ["second", "first"]  # newest first
            assert [r["variables"] for r in history] == [{"ticket": "#2"}, {"ticket": "#1"}]
            await raw_request(lsp, "tether/playground/run", {"promptId": pid, "variables": {"ticket": "#3"}})
            latest = await raw_request(lsp, "tether/playground/runs", {"promptId": pid, "limit": 1})
            assert [r["output"] for r in latest] == ["third"]
            assert latest[0]["prompt"].startswith("Summarize the support ticket below in 3 bullet points")
        finally:
            await stop(lsp)


async def test_each_stored_run_keeps_the_options_it_was_sent_with(tmp_path: Path) -> None:
    """``temperature`` and ``maxTokens`` of each run as sent: from the request, from the saved inputs, or left
    out when none was sent. A run stored by an earlier Tether (its JSON without the two keys) is listed as it was."""
    with RunningModel(Answer("a"), Answer("b"), Answer("c")) as model:
        lsp, editor = await start(tmp_path, **playground(model.url("/v1")))
        try:
            editor.open("prompts.py", PROMPTS)
            pid = (await prompt_ids(editor))["SYSTEM_PROMPT"]
            await raw_request(lsp, "tether/playground/run", {"promptId": pid})
            await raw_request(lsp, "tether/playground/run", {"promptId": pid, "options": {"temperature": 1}})
            saved = {"options": {"temperature": 0.7, "maxTokens": 256}}
            await raw_request(lsp, "tether/playground/setSettings", {"promptId": pid, "settings": saved})
            await raw_request(lsp, "tether/playground/run", {"promptId": pid, "options": {"maxTokens": 64}})
            history = await raw_request(lsp, "tether/playground/runs", {"promptId": pid})
        finally:
            await stop(lsp)
        assert [(r["output"], r.get("temperature"), r.get("maxTokens")) for r in history] == [
            ("c", 0.7, 64),  # the saved temperature, the request's maxTokens
            ("b", 1.0, None),  # maxTokens left out: none was sent
            ("a", None, None),  # neither: the model's defaults
        ]
        assert "temperature" not in history[2] and "maxTokens" not in history[1]
        assert [("temperature" in sent, sent.get("max_tokens")) for sent in model.requests] == [
            (False, None),
            (True, None),
            (True, 64),
        ]
        database = tmp_path / "db" / "tether.db"
        earlier = {k: v for k, v in history[2].items() if k not in ("temperature", "maxTokens")}
        earlier["runId"] = "r-0000000001-abcdef"
        with sqlite3.connect(database) as conn:  # a run as an earlier Tether stored it
            conn.execute(
                "INSERT INTO tether_playground_runs (run_id, prompt_id, created_at, data) VALUES (?, ?, ?, ?)",
                (earlier["runId"], pid, 1.0, json.dumps(earlier)),
            )
        lsp, editor = await start(tmp_path, **playground(model.url("/v1")))
        try:
            editor.open("prompts.py", PROMPTS)
            again = await raw_request(lsp, "tether/playground/runs", {"promptId": pid})
        finally:
            await stop(lsp)
    assert [r["runId"] for r in again] == [r["runId"] for r in history] + [earlier["runId"]]
    assert again[-1] == earlier  # as it was stored: sent without options
