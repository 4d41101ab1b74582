"""A playground run as the prompt's history keeps it: what was sent, to which model, the answer (plain values,
stored as JSON in the playground's runs table and answered as ``tether/playground/runs`` lists them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

R = TypeVar("R")


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class StoredRun:
    """A run as stored: what was sent (the prompt text, its variables, the messages, the options), to which
    model, the answer. In the database it is the JSON object :meth:`to_json` makes (camelCase; ``usage``,
    ``temperature`` and ``maxTokens`` left out when there are none, so a run stored before the options were
    recorded reads as one sent without them: the model's defaults)."""

    run_id: str
    prompt_id: str
    created_at: str  # ISO 8601, UTC, milliseconds: 2025-03-01T09:15:02.123Z
    model: str
    prompt: str
    variables: dict[str, str]
    messages: tuple[Message, ...]
    output: str
    finish_reason: str | None
    duration_ms: int
    usage: Usage | None = None
    temperature: float | None = None
    max_tokens: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "runId": self.run_id,
            "promptId": self.prompt_id,
            "createdAt": self.created_at,
            "model": self.model,
            "prompt": self.prompt,
            "variables": dict(self.variables),
            "messages": [{"role": m.role, "content": m.content} for m in self.messages],
            "output": self.output,
            "finishReason": self.finish_reason,
            "durationMs": self.duration_ms,
        }
        if self.usage is not None:
            data["usage"] = {"promptTokens": self.usage.prompt_tokens, "completionTokens": self.usage.completion_tokens}
        if self.temperature is not None:
            data["temperature"] = self.temperature
        if self.max_tokens is not None:
            data["maxTokens"] = self.max_tokens
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StoredRun:
        """A run as the database holds it; ValueError when the object is not one."""
        variables = _typed(data, "variables", dict)
        messages = _typed(data, "messages", list)
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in variables.items()):
            raise ValueError("stored run: variables must map strings to strings")
        usage = data.get("usage")
        return cls(
            _typed(data, "runId", str),
            _typed(data, "promptId", str),
            _typed(data, "createdAt", str),
            _typed(data, "model", str),
            _typed(data, "prompt", str),
            dict(variables),
            tuple(Message(_typed(m, "role", str), _typed(m, "content", str)) for m in messages),
            _typed(data, "output", str),
            None if data.get("finishReason") is None else _typed(data, "finishReason", str),
            _typed(data, "durationMs", int),
            None
            if usage is None
            else Usage(_typed(usage, "promptTokens", int), _typed(usage, "completionTokens", int)),
            None if data.get("temperature") is None else float(_typed(data, "temperature", (int, float))),
            None if data.get("maxTokens") is None else _typed(data, "maxTokens", int),
        )


def _typed(data: Any, key: str, kind: type[R] | tuple[type[R], ...]) -> R:
    if not isinstance(data, Mapping):
        raise ValueError(f"stored run: expected an object holding {key}, got {type(data).__name__}")
    value = data.get(key)
    if value is None and key not in data:
        raise ValueError(f"stored run: {key} is missing")
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise ValueError(f"stored run: {key} is a {type(value).__name__}, not a {names}")
    return value
