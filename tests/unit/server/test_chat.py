"""The chat client against the fake model server: both protocols, finish reasons, token counts, failures."""

from __future__ import annotations

import asyncio

import pytest

from tests.fakemodel import Answer, RunningModel
from tether_lsp.server import chat, http


@pytest.mark.parametrize(
    ("url", "protocol", "path"),
    [
        ("http://h:11434", "ollama", "/api/chat"),
        ("http://h:11434/api", "ollama", "/api/chat"),
        ("http://h/api/chat", "ollama", "/api/chat"),
        ("https://api.openai.com/v1", "openai", "/v1/chat/completions"),
        ("http://h:8080", "openai", "/v1/chat/completions"),  # no path: Ollama on its own port only
        ("http://h:8080/v1", "openai", "/v1/chat/completions"),
        (
            "http://h/openai/deployments/x/chat/completions?api-version=1",
            "openai",
            "/openai/deployments/x/chat/completions",
        ),
    ],
)
def test_endpoints_are_told_apart_by_their_url(url: str, protocol: str, path: str) -> None:
    endpoint = chat.ChatEndpoint.parse(url)
    assert (endpoint.protocol, endpoint.url.path) == (protocol, path)


def test_options_go_where_each_protocol_wants_them() -> None:
    openai = chat.ChatEndpoint.parse("http://h/v1").body("m", [], 0.5, 10)
    assert (openai["temperature"], openai["max_tokens"], "options" in openai) == (0.5, 10, False)
    ollama = chat.ChatEndpoint.parse("http://h/api/chat").body("m", [], 0.5, 10)
    assert ollama["options"] == {"temperature": 0.5, "num_predict": 10} and "max_tokens" not in ollama
    assert "options" not in chat.ChatEndpoint.parse("http://h/api/chat").body("m", [])


async def collect(url: str) -> list[str | chat.Finish]:
    endpoint = chat.ChatEndpoint.parse(url)
    body = endpoint.body("m", [{"role": "user", "content": "hi"}])
    return [piece async for piece in chat.stream(endpoint, body, {}, 1 << 20)]


@pytest.mark.parametrize("path", ["/v1", "/api/chat"])
def test_pieces_then_the_finish(path: str) -> None:
    with RunningModel(Answer(chunks=["a", "é", "🚀"])) as model:
        got = asyncio.run(collect(model.url(path)))
    assert got == ["a", "é", "🚀", chat.Finish("stop", {"promptTokens": 7, "completionTokens": 3})]


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (Answer(status=500), "HTTP 500"),
        (Answer(chunks=["a", "b", "c", "d"], drop=True), "ended without"),
    ],
)
@pytest.mark.parametrize("path", ["/v1", "/api/chat"])
def test_failures_are_http_errors(path: str, answer: Answer, says: str) -> None:
    with RunningModel(answer) as model, pytest.raises(http.HttpError, match=says):
        asyncio.run(collect(model.url(path)))
