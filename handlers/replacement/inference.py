"""Completion endpoints: Ollama ``/api/generate`` and OpenAI-compatible ``/v1/completions`` over
``server/http.py``. Cancellable (a superseded request is cancelled mid-flight), with a timeout, and every
failure — refused, slow, dropped, an HTTP error, a body that is not what the protocol says — is an
:class:`InferenceError` with a one-line reason, never anything else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tether_lsp.server import http
from tether_lsp.server.endpoints import model_endpoint

from .fim import STOP


class InferenceError(Exception):
    """The endpoint gave no usable completion; the message says why in one line."""


@dataclass(frozen=True)
class Endpoint:
    """Where to send a prompt and in which protocol (``ollama`` or ``openai``)."""

    scheme: str
    host: str
    port: int
    path: str
    protocol: str
    query: str = ""

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        """The completion of the model server ``url`` names (which API it speaks: see ``server/endpoints.py``)."""
        try:
            found = model_endpoint(url)
        except http.HttpError as exc:
            raise InferenceError(f"tether.inference.endpoint must be an http(s) URL, got {url!r}") from exc
        where = found.completion()
        return cls(where.scheme, where.host, where.port, where.path, found.kind, where.query)


def request_body(endpoint: Endpoint, model: str, prompt: str, max_tokens: int, temperature: float) -> dict[str, Any]:
    if endpoint.protocol == "ollama":
        return {
            "model": model,
            "prompt": prompt,
            "raw": True,
            "stream": False,
            "options": {"num_predict": max_tokens, "temperature": temperature, "stop": STOP},
        }
    return {
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "stop": STOP[:4],
        "stream": False,
    }


def completion_of(endpoint: Endpoint, body: bytes) -> str:
    """The completion text in a response body, or InferenceError when it is not what the protocol says."""
    try:
        if endpoint.protocol == "ollama" and body.count(b"\n") > 1:  # a server that streamed anyway (NDJSON)
            text = "".join(json.loads(line)["response"] for line in body.splitlines() if line.strip())
        else:
            data = json.loads(body)
            text = data["response"] if endpoint.protocol == "ollama" else data["choices"][0]["text"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise InferenceError(f"unexpected answer from the endpoint: {body[:80]!r}") from exc
    if not isinstance(text, str):
        raise InferenceError(f"unexpected answer from the endpoint: {body[:80]!r}")
    return text


async def post_json(endpoint: Endpoint, payload: dict[str, Any], limit_s: float, max_bytes: int) -> bytes:
    """POST ``payload`` and return the body of a 200 answer within ``limit_s`` and ``max_bytes``."""
    url = http.Url(endpoint.scheme, endpoint.host, endpoint.port, endpoint.path, endpoint.query)
    try:
        return await http.post_json(url, payload, limit_s, max_bytes=max_bytes)
    except http.HttpError as exc:
        raise InferenceError(str(exc)) from exc


async def complete(
    endpoint: Endpoint,
    model: str,
    prompt: str,
    max_tokens: int,
    temperature: float,
    limit_s: float,
    max_bytes: int = http.DEFAULT_MAX_BYTES,
) -> str:
    """One completion for a FIM prompt."""
    body = await post_json(endpoint, request_body(endpoint, model, prompt, max_tokens, temperature), limit_s, max_bytes)
    return completion_of(endpoint, body)
