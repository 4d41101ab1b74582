"""``textDocument/inlineCompletion`` over stdio against a local fake model server (Ollama and OpenAI-compatible):
fixed answers, a slow answer, an error, a dropped connection, garbage, latest-request-wins."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e.test_replacement_e2e import COMPLETION, SITE
from tests.fakemodel import Answer, RunningModel
from tests.helpers import open_doc, raw_request, server_config

PY = "import os\n\n\ndef total(items):\n    return sum(items)\n\n\ndef mean(xs):\n    return \n"


async def start(tmp_path: Path, inference: dict[str, Any], experimental: Any = None) -> Any:
    lsp: Any = await server_config().start()
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(experimental=experimental),
            root_uri=tmp_path.as_uri(),
            initialization_options={"tether": {"inference": {"delay": 0, **inference}}},
        )
    )
    return lsp


async def stop(lsp: Any) -> None:
    await lsp.shutdown_session()
    await lsp.stop()


async def inline(lsp: Any, uri: str, line: int, character: int, trigger: int = 1) -> list[dict[str, Any]]:
    params = {
        "textDocument": {"uri": uri},
        "position": {"line": line, "character": character},
        "context": {"triggerKind": trigger},
    }
    result = await raw_request(lsp, "textDocument/inlineCompletion", params)
    return list(result["items"])


def warnings(lsp: Any) -> list[str]:
    return [m.message for m in lsp.log_messages if m.type == types.MessageType.Warning]


def shown_warnings(lsp: Any) -> list[str]:
    """What the editor showed the user (window/showMessage), not the log."""
    return [m.message for m in lsp.messages if m.type == types.MessageType.Warning]


async def test_ollama_fim_prompt_and_an_insert(tmp_path: Path) -> None:
    with RunningModel(Answer("len(xs) and sum(xs) / len(xs)")) as model:
        lsp = await start(
            tmp_path, {"endpoint": model.url("/api/generate"), "model": "qwen-test", "maxSuffixLength": 12}
        )
        try:
            uri = (tmp_path / "m.py").as_uri()
            open_doc(lsp, uri, PY)
            (item,) = await inline(lsp, uri, 8, 11)
            assert item["insertText"] == "len(xs) and sum(xs) / len(xs)"
            assert item["range"] == {"start": {"line": 8, "character": 11}, "end": {"line": 8, "character": 11}}
        finally:
            await stop(lsp)
    (request,) = model.requests
    assert model.paths == ["/api/generate"]
    assert request["model"] == "qwen-test"
    assert request["raw"] is True
    assert request["stream"] is False
    prompt = request["prompt"]
    assert prompt.startswith("<|fim_prefix|># Language: python\nimport os\n")
    assert prompt.endswith("    return <|fim_suffix|>\n<|fim_middle|>")
    assert str(tmp_path) not in prompt  # no file path in the prompt


async def test_openai_compatible_deepseek_format_and_limits(tmp_path: Path) -> None:
    with RunningModel(Answer("xs[0]")) as model:
        lsp = await start(
            tmp_path, {"endpoint": model.url("/v1"), "format": "deepseek", "maxPrefixLength": 20, "maxTokens": 7}
        )
        try:
            uri = (tmp_path / "m.py").as_uri()
            open_doc(lsp, uri, PY)
            (item,) = await inline(lsp, uri, 8, 11)
            assert item["insertText"] == "xs[0]"
        finally:
            await stop(lsp)
    (request,) = model.requests
    assert model.paths == ["/v1/completions"]
    assert request["max_tokens"] == 7
    prompt = request["prompt"]
    assert prompt.startswith("<｜fim▁begin｜># Language: python\n")
    assert "<｜fim▁hole｜>" in prompt
    assert prompt.endswith("<｜fim▁end｜>")
    before = prompt.split("\n", 1)[1].split("<｜fim▁hole｜>")[0]
    assert before == PY[: PY.index("return \n") + 7][-20:]


async def test_a_replacement_for_a_client_that_opted_in(tmp_path: Path) -> None:
    experimental = {"tether": {"multilineInlineCompletionRange": True}}
    with RunningModel(Answer(COMPLETION)) as model:
        lsp = await start(tmp_path, {"endpoint": model.url("/api/generate")}, experimental)
        try:
            uri = (tmp_path / "site.yml").as_uri()
            open_doc(lsp, uri, SITE, "yaml")
            (item,) = await inline(lsp, uri, 5, 0)
            assert item["range"] == {"start": {"line": 5, "character": 0}, "end": {"line": 8, "character": 28}}
            assert item["insertText"] == COMPLETION
            assert item["command"]["command"] == "tether.replacementAccepted"
        finally:
            await stop(lsp)


async def test_a_multiline_replacement_is_withheld_from_stock_clients(tmp_path: Path) -> None:
    with RunningModel(Answer(COMPLETION)) as model:
        lsp = await start(tmp_path, {"endpoint": model.url("/api/generate")})
        try:
            uri = (tmp_path / "site.yml").as_uri()
            open_doc(lsp, uri, SITE, "yaml")
            assert await inline(lsp, uri, 5, 0) == []
        finally:
            await stop(lsp)


async def test_lines_that_repeat_the_suffix_are_trimmed_and_identical_is_no_item(tmp_path: Path) -> None:
    doc = "def f(x):\n    y = x + 1\n    \n    return y\n"
    answers = [Answer("z = y * 2\n    return y\n"), Answer("return y")]
    with RunningModel(*answers) as model:
        lsp = await start(tmp_path, {"endpoint": model.url("/api/generate")})
        try:
            uri = (tmp_path / "f.py").as_uri()
            open_doc(lsp, uri, doc)
            (item,) = await inline(lsp, uri, 2, 4)
            assert item["insertText"] == "z = y * 2"  # "return y" is already below the cursor
            assert await inline(lsp, uri, 2, 4) == []  # the whole answer was what follows
        finally:
            await stop(lsp)


async def test_failing_endpoints_give_no_items_and_one_warning(tmp_path: Path) -> None:
    answers = [
        Answer("late", delay=3),
        Answer(status=500),
        Answer(drop=True),
        Answer(garbage=True),
        Answer("fine"),
        Answer(status=503),
    ]
    with RunningModel(*answers) as model:
        lsp = await start(tmp_path, {"endpoint": model.url("/api/generate"), "timeout": 0.5})
        try:
            uri = (tmp_path / "m.py").as_uri()
            open_doc(lsp, uri, PY)
            for _ in range(4):
                assert await inline(lsp, uri, 8, 11) == []
            assert len(warnings(lsp)) == 1  # one per outage, not one per request
            assert "within 0.5 s" in warnings(lsp)[0]
            (item,) = await inline(lsp, uri, 8, 11)
            assert item["insertText"] == "fine"
            assert await inline(lsp, uri, 8, 11) == []  # its warning was sent before this answer
            assert len(warnings(lsp)) == 2  # a new outage after it answered again
            assert "HTTP 503" in warnings(lsp)[1]
        finally:
            await stop(lsp)


async def test_an_unreachable_endpoint(tmp_path: Path) -> None:
    lsp = await start(tmp_path, {"endpoint": "http://127.0.0.1:9/api/generate"})
    try:
        uri = (tmp_path / "m.py").as_uri()
        open_doc(lsp, uri, PY)
        assert await inline(lsp, uri, 8, 11) == []
        assert await inline(lsp, uri, 8, 11) == []
        assert len(warnings(lsp)) == 1
    finally:
        await stop(lsp)


async def test_the_latest_request_wins(tmp_path: Path) -> None:
    with RunningModel(Answer("old", delay=2), Answer("new")) as model:
        lsp = await start(tmp_path, {"endpoint": model.url("/api/generate")})
        try:
            uri = (tmp_path / "m.py").as_uri()
            open_doc(lsp, uri, PY)
            first = asyncio.ensure_future(inline(lsp, uri, 8, 11))
            await asyncio.to_thread(model.wait_for_requests, 1)
            second = await inline(lsp, uri, 8, 11)
            assert [i["insertText"] for i in second] == ["new"]
            assert await first == []  # cancelled, not answered late
        finally:
            await stop(lsp)


async def test_no_endpoint_and_disabled_automatic_trigger(tmp_path: Path) -> None:
    lsp = await start(tmp_path, {})
    try:
        uri = (tmp_path / "m.py").as_uri()
        open_doc(lsp, uri, PY)
        assert await inline(lsp, uri, 8, 11) == []
    finally:
        await stop(lsp)
    with RunningModel(Answer("1")) as model:
        lsp = await start(tmp_path, {"endpoint": model.url("/api/generate"), "delay": -1})
        try:
            open_doc(lsp, uri, PY)
            assert await inline(lsp, uri, 8, 11, trigger=2) == []  # automatic: off
            assert model.requests == []
            assert [i["insertText"] for i in await inline(lsp, uri, 8, 11, trigger=1)] == ["1"]  # invoked: on
        finally:
            await stop(lsp)


async def test_a_rewrite_typed_left_of_a_class_body_is_re_indented_or_withheld(tmp_path: Path) -> None:
    """From a line with no indentation in a class body, the model's `def` at column 0 is offered as the
    replacement of the method below, moved into the class (Tab leaves a file that parses); an answer that fits at
    neither column is not offered, and the user is told once for that line."""
    shapes = "class Shapes:\n    def area(self):\n        return 1\n\n    def side(self):\n        return 2\n"
    doc = shapes.replace("\n\n    def side", "\n\n\n    def side")
    answers = [Answer("def side(self):\n    return 3"), Answer("else:\n    pass")]
    experimental = {"tether": {"multilineInlineCompletionRange": True}}
    with RunningModel(*answers) as model:
        lsp = await start(tmp_path, {"endpoint": model.url("/api/generate")}, experimental)
        try:
            uri = (tmp_path / "shapes.py").as_uri()
            open_doc(lsp, uri, doc)
            (item,) = await inline(lsp, uri, 4, 0)
            assert item["range"] == {"start": {"line": 4, "character": 0}, "end": {"line": 6, "character": 16}}
            assert item["insertText"] == "    def side(self):\n        return 3"
            lines = doc.split("\n")
            assert "\n".join([*lines[:4], item["insertText"], *lines[7:]]) == shapes.replace("return 2", "return 3")
            assert shown_warnings(lsp) == []
            assert await inline(lsp, uri, 4, 0) == []
            assert await inline(lsp, uri, 4, 0) == []
            (warning,) = shown_warnings(lsp)  # once for the line, not once per request
            assert warning.startswith(
                "Tether: completion on line 5 not offered: it would end the enclosing block early"
            )
        finally:
            await stop(lsp)
