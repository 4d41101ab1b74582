"""Which API a model endpoint speaks: one rule, read off the URL, for chat (tasks and playground runs) and
inline completion alike."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.replacement import inference
from tether_lsp.server import chat, http
from tether_lsp.server.endpoints import model_endpoint

# url, the kind, where a chat goes, where a completion goes (path and query)
RULE = [
    # Ollama: no path on Ollama's port
    ("http://localhost:11434", "ollama", "/api/chat", "/api/generate"),
    ("http://localhost:11434/", "ollama", "/api/chat", "/api/generate"),
    ("http://[::1]:11434", "ollama", "/api/chat", "/api/generate"),
    # OpenAI-compatible: no path on any other port is the /v1 base
    ("http://h:8080", "openai", "/v1/chat/completions", "/v1/completions"),
    ("https://h", "openai", "/v1/chat/completions", "/v1/completions"),
    ("http://[::1]:8000/", "openai", "/v1/chat/completions", "/v1/completions"),
    # Ollama: /api, or a path ending /api/chat or /api/generate (a proxy's prefix kept)
    ("http://h:11434/api", "ollama", "/api/chat", "/api/generate"),
    ("http://h:11434/api/", "ollama", "/api/chat", "/api/generate"),
    ("http://h/api/chat", "ollama", "/api/chat", "/api/generate"),
    ("http://h/api/chat/", "ollama", "/api/chat", "/api/generate"),
    ("http://localhost:11434/api/generate", "ollama", "/api/chat", "/api/generate"),
    ("https://proxy.example/ollama/api/generate", "ollama", "/ollama/api/chat", "/ollama/api/generate"),
    ("http://[fe80::1]:7000/api/chat", "ollama", "/api/chat", "/api/generate"),
    # OpenAI-compatible: a base ending /v1
    ("https://api.openai.com/v1", "openai", "/v1/chat/completions", "/v1/completions"),
    ("https://api.openai.com/v1/", "openai", "/v1/chat/completions", "/v1/completions"),
    ("http://h:11434/v1", "openai", "/v1/chat/completions", "/v1/completions"),  # Ollama's OpenAI API
    ("https://openrouter.ai/api/v1", "openai", "/api/v1/chat/completions", "/api/v1/completions"),
    ("http://[::1]:8000/v1/", "openai", "/v1/chat/completions", "/v1/completions"),
    # OpenAI-compatible: the full URL of either operation names the base
    ("http://h:8000/v1/completions", "openai", "/v1/chat/completions", "/v1/completions"),
    ("https://h/v1/chat/completions", "openai", "/v1/chat/completions", "/v1/completions"),
    (
        "https://h/openai/deployments/x/chat/completions?api-version=1",
        "openai",
        "/openai/deployments/x/chat/completions?api-version=1",
        "/openai/deployments/x/completions?api-version=1",
    ),
    # OpenAI-compatible: any other path is a base that /v1 is added to
    ("http://h/some/thing", "openai", "/some/thing/v1/chat/completions", "/some/thing/v1/completions"),
    ("http://h/ollama/api", "openai", "/ollama/api/v1/chat/completions", "/ollama/api/v1/completions"),
]


@pytest.mark.parametrize(("url", "kind", "chat_target", "completion_target"), RULE)
def test_the_rule(url: str, kind: str, chat_target: str, completion_target: str) -> None:
    endpoint = model_endpoint(url)
    assert endpoint.kind == kind
    assert endpoint.chat().target == chat_target
    assert endpoint.completion().target == completion_target


@pytest.mark.parametrize(
    ("url", "scheme", "host", "port"),
    [
        ("http://h", "http", "h", 80),
        ("https://h/v1", "https", "h", 443),
        ("http://[::1]:11434/", "http", "::1", 11434),
        ("https://[2001:db8::2]/api/chat", "https", "2001:db8::2", 443),
    ],
)
def test_the_host_and_port_are_kept(url: str, scheme: str, host: str, port: int) -> None:
    for where in (model_endpoint(url).chat(), model_endpoint(url).completion()):
        assert (where.scheme, where.host, where.port) == (scheme, host, port)


@pytest.mark.parametrize("url", ["ftp://h/v1", "localhost:11434", "http://", "http://h:port/v1", ""])
def test_what_is_not_an_http_url_is_refused(url: str) -> None:
    with pytest.raises(http.HttpError, match="not an http"):
        model_endpoint(url)


@pytest.mark.parametrize(("url", "kind", "chat_target", "completion_target"), RULE)
def test_chat_and_inline_completion_follow_the_rule(
    url: str, kind: str, chat_target: str, completion_target: str
) -> None:
    talk = chat.ChatEndpoint.parse(url)
    assert (talk.protocol, talk.url.target) == (kind, chat_target)
    complete = inference.Endpoint.parse(url)
    path, _, query = completion_target.partition("?")
    assert (complete.protocol, complete.path, complete.query) == (kind, path, query)
