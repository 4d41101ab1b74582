"""server/http.py against a real local HTTP server (the fake model): the request target keeps its query
string, answers are bounded, failures are one-line HttpErrors."""

from __future__ import annotations

import json

import pytest

from tests.fakemodel import Answer, RunningModel
from tether_lsp.server import http


def test_a_url_keeps_its_query_string() -> None:
    url = http.Url.parse("https://example.invalid:8443/v1/chat/completions?api-version=2024-10-21&x=1")
    assert (url.scheme, url.host, url.port) == ("https", "example.invalid", 8443)
    assert url.target == "/v1/chat/completions?api-version=2024-10-21&x=1"
    assert http.Url.parse("http://h/").target == "/"


@pytest.mark.parametrize("bad", ["ftp://h/x", "not a url", "http://", "http://h:99999999/"])
def test_a_bad_url_is_an_http_error(bad: str) -> None:
    with pytest.raises(http.HttpError):
        http.Url.parse(bad)


async def test_the_query_string_reaches_the_endpoint() -> None:
    with RunningModel(Answer("hi")) as model:
        url = http.Url.parse(model.url("/v1/completions?api-version=2024-10-21"))
        body = await http.post_json(url, {"prompt": "x"}, 10)
    assert json.loads(body)["choices"][0]["text"] == "hi"
    assert model.paths == ["/v1/completions?api-version=2024-10-21"]


async def test_an_answer_over_the_limit_is_refused_whole_or_streamed() -> None:
    with RunningModel(Answer(endless=10 * 1024 * 1024)) as model:
        url = http.Url.parse(model.url("/api/generate"))
        with pytest.raises(http.HttpError, match="maxResponseBytes"):
            await http.post_json(url, {"prompt": "x"}, 30, max_bytes=64 * 1024)
        response = await http.open_post(url, {"prompt": "x", "stream": True}, max_bytes=64 * 1024)
        read = 0
        with pytest.raises(http.HttpError, match="maxResponseBytes"):
            async for line in response.lines():
                read += len(line)
        response.close()
    assert read <= 64 * 1024
    assert model.endless_sent < 10 * 1024 * 1024  # the client hung up long before the end


async def test_an_error_status_is_an_http_error_with_the_status() -> None:
    with RunningModel(Answer(status=503)) as model, pytest.raises(http.HttpError, match="HTTP 503"):
        await http.post_json(http.Url.parse(model.url("/v1/completions")), {}, 10)


async def test_nobody_listening_is_an_http_error() -> None:
    with RunningModel(Answer("x")) as model:
        port = model.port
    with pytest.raises(http.HttpError, match="127.0.0.1"):
        await http.post_json(http.Url("http", "127.0.0.1", port, "/"), {}, 5)
