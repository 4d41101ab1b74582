"""One endpoint rule for every feature, over stdio: inline completion given the URL of a chat model (as the
tasks or the playground take it) asks the same server for a completion, in the protocol the URL says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.fakemodel import Answer, RunningModel
from tests.helpers import open_doc, raw_request, server_config

PY = "def mean(xs):\n    return \n"


@pytest.mark.parametrize(
    ("given", "asked", "protocol_field"),
    [
        ("/api/chat", "/api/generate", "raw"),  # Ollama's own completion request
        ("/v1/chat/completions", "/v1/completions", "max_tokens"),  # OpenAI's
        ("/v1/chat/completions/", "/v1/completions", "max_tokens"),
    ],
)
async def test_inline_completion_on_a_chat_url(tmp_path: Path, given: str, asked: str, protocol_field: str) -> None:
    with RunningModel(Answer("sum(xs) / len(xs)")) as model:
        lsp: Any = await server_config().start()
        try:
            await lsp.initialize_session(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(),
                    root_uri=tmp_path.as_uri(),
                    initialization_options={"tether": {"inference": {"delay": 0, "endpoint": model.url(given)}}},
                )
            )
            uri = (tmp_path / "m.py").as_uri()
            open_doc(lsp, uri, PY)
            params = {
                "textDocument": {"uri": uri},
                "position": {"line": 1, "character": 11},
                "context": {"triggerKind": 1},
            }
            result = await raw_request(lsp, "textDocument/inlineCompletion", params)
            await lsp.shutdown_session()
        finally:
            await lsp.stop()
    assert [item["insertText"] for item in result["items"]] == ["sum(xs) / len(xs)"]
    assert model.paths == [asked]
    (request,) = model.requests
    assert protocol_field in request and "messages" not in request
