"""Which API a model endpoint speaks, Ollama's or an OpenAI-compatible one: one rule, read off the URL, for
every feature that calls a model (inline completion, inline tasks, playground runs), so the same URL means
the same server to all of them.

The rule, on the URL's path without its trailing slashes:

* **Ollama**: no path on Ollama's own port (``http://host:11434``), ``/api``, or a path ending ``/api/chat``
  or ``/api/generate``. What comes before ``/api/…`` (a proxy's prefix) is kept.
* **OpenAI-compatible**: any other path. One ending ``/chat/completions`` or ``/completions`` names the
  API's base by what comes before it; one ending ``/v1`` is the base; to any other path ``/v1`` is added
  (``https://host/openai`` is ``https://host/openai/v1``, ``http://host:8000`` is ``http://host:8000/v1``:
  the OpenAI-compatible servers people run on their own ports, vLLM, llama.cpp, LM Studio, serve ``/v1``).

Each feature then asks for its own operation under that base: a chat (``/api/chat`` or
``…/chat/completions``) or a completion (``/api/generate`` or ``…/completions``). The query string is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from . import http

Kind = Literal["ollama", "openai"]

_OLLAMA_ENDINGS = ("/api/chat", "/api/generate")
OLLAMA_PORT = 11434
_OPENAI_ENDINGS = ("/chat/completions", "/completions")


@dataclass(frozen=True)
class ModelEndpoint:
    """A model server: which API it speaks and the base its operations' paths go under."""

    kind: Kind
    base: http.Url  # the path is the prefix of every operation's path ("" for Ollama at the root)

    def chat(self) -> http.Url:
        """Where a chat goes: ``/api/chat`` or ``…/chat/completions``."""
        return self._at("/api/chat" if self.kind == "ollama" else "/chat/completions")

    def completion(self) -> http.Url:
        """Where a plain completion goes: ``/api/generate`` or ``…/completions``."""
        return self._at("/api/generate" if self.kind == "ollama" else "/completions")

    def _at(self, operation: str) -> http.Url:
        base = self.base
        return http.Url(base.scheme, base.host, base.port, base.path + operation, base.query)


def model_endpoint(url: str) -> ModelEndpoint:
    """The endpoint ``url`` names, by the rule above; :class:`~.http.HttpError` when it is not an http(s) URL."""
    parts = http.Url.parse(url)
    path = parts.path.rstrip("/")
    kind: Kind
    if (path == "" and parts.port == OLLAMA_PORT) or path == "/api" or path.endswith(_OLLAMA_ENDINGS):
        kind, prefix = "ollama", _without(path, (*_OLLAMA_ENDINGS, "/api"))
    elif path.endswith(_OPENAI_ENDINGS):
        kind, prefix = "openai", _without(path, _OPENAI_ENDINGS)
    else:
        kind, prefix = "openai", path if path.endswith("/v1") else path + "/v1"
    return ModelEndpoint(kind, http.Url(parts.scheme, parts.host, parts.port, prefix, parts.query))


def _without(path: str, endings: tuple[str, ...]) -> str:
    """``path`` without the first of ``endings`` it ends with (the longer ones come first)."""
    for ending in endings:
        if path.endswith(ending):
            return path[: -len(ending)]
    return path
