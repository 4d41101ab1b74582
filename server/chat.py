"""Chat models over HTTP, streamed: OpenAI-compatible chat completions (server-sent events) and Ollama's
``/api/chat`` (NDJSON). Inline tasks and the playground's runs both talk through this module.

:func:`stream` yields the answer's text pieces as they arrive, then one :class:`Finish` (why the model stopped,
token counts when the endpoint says). Every failure is an :class:`~.http.HttpError` with a one-line reason:
a status other than 200, a connection that breaks, a stream that ends without its end marker.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from . import http
from .endpoints import model_endpoint


@dataclass(frozen=True)
class ChatEndpoint:
    url: http.Url
    protocol: str  # "openai" | "ollama"

    @classmethod
    def parse(cls, endpoint: str) -> ChatEndpoint:
        """The chat of the model server ``endpoint`` names (which API it speaks: see ``endpoints.py``)."""
        found = model_endpoint(endpoint)
        return cls(found.chat(), found.kind)

    def body(
        self,
        model: str,
        messages: list[dict[str, str]],
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        """The streaming request for this endpoint's protocol."""
        body: dict[str, Any] = {"model": model, "messages": messages, "stream": True}
        if self.protocol == "ollama":
            options: dict[str, Any] = {}
            if temperature is not None:
                options["temperature"] = temperature
            if max_tokens is not None:
                options["num_predict"] = max_tokens
            if options:
                body["options"] = options
            return body
        if temperature is not None:
            body["temperature"] = temperature
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        return body


@dataclass(frozen=True)
class Finish:
    """The end of an answer: the model's reason (``stop``, ``length``…) and token counts, when given."""

    reason: str | None
    usage: dict[str, int] | None


async def stream(
    endpoint: ChatEndpoint, body: dict[str, Any], headers: dict[str, str], max_bytes: int
) -> AsyncIterator[str | Finish]:
    """The answer's text pieces as they arrive, then its :class:`Finish`."""
    response = await http.open_post(endpoint.url, body, headers, max_bytes)
    try:
        if response.status != 200:
            data = await response.body()
            raise http.HttpError(f"HTTP {response.status} from the endpoint: {data[:80]!r}")
        parse = _openai if endpoint.protocol == "openai" else _ollama
        try:
            async for piece in parse(response.lines()):
                yield piece
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise http.HttpError(f"the connection broke mid-stream: {exc}") from exc
    finally:
        response.close()


async def _openai(lines: AsyncIterator[str]) -> AsyncIterator[str | Finish]:
    reason: str | None = None
    usage: dict[str, int] | None = None
    async for line in lines:
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            yield Finish(reason, usage)
            return
        try:
            event = json.loads(payload)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        usage = _usage(event.get("usage"), "prompt_tokens", "completion_tokens") or usage
        choices = event.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        if isinstance(choice.get("finish_reason"), str):
            reason = choice["finish_reason"]
        delta = choice.get("delta")
        piece = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(piece, str) and piece:  # an event we do not understand is not text
            yield piece
    raise http.HttpError("the stream ended without [DONE]")


async def _ollama(lines: AsyncIterator[str]) -> AsyncIterator[str | Finish]:
    async for line in lines:
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if isinstance(event.get("error"), str):
            raise http.HttpError(f"the endpoint said: {event['error'][:200]}")
        message = event.get("message")
        piece = message.get("content") if isinstance(message, dict) else None
        if isinstance(piece, str) and piece:
            yield piece
        if event.get("done") is True:
            reason = event.get("done_reason")
            usage = _usage(event, "prompt_eval_count", "eval_count")
            yield Finish(reason if isinstance(reason, str) else "stop", usage)
            return
    raise http.HttpError("the stream ended without its last message (done: true)")


def _usage(data: Any, prompt_key: str, completion_key: str) -> dict[str, int] | None:
    """Token counts as ``{promptTokens, completionTokens}``, when the endpoint gives them."""
    if not isinstance(data, dict):
        return None
    prompt, completion = data.get(prompt_key), data.get(completion_key)
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return {"promptTokens": prompt, "completionTokens": completion}
