"""The settings of inline edits (``tether.edits``) and inline tasks (``tether.tasks``): declarations every front
reads (the language server registers them; the agents' front lists them in its schema)."""

from __future__ import annotations

from dataclasses import dataclass

from tether_lsp.server.settings import setting


@dataclass(frozen=True)
class EditSettings:
    """``tether.edits``: how long a streaming edit may wait for its next update."""

    streamIdleSeconds: float = setting(
        300.0,
        "A stream begun with `tether/edits/begin` and not updated or ended for this long is ended (its base "
        "version is released; what it wrote stays). Closing the document ends its streams too.",
        minimum=1,
    )


@dataclass(frozen=True)
class TaskSettings:
    """``tether.tasks``: the chat completions endpoint, its model, and where the API key is (never logged)."""

    endpoint: str | None = setting(
        None,
        "Chat model URL for inline tasks: OpenAI-compatible (`.../v1` or `.../v1/chat/completions`) or Ollama "
        '(`http://host:11434` or `.../api/chat`), read as docs/settings.md "Model endpoints" says. '
        "null: `tether/tasks/run` answers -32803 saying so.",
    )
    model: str = setting("gpt-4o-mini", "Model name sent to the tasks endpoint.")
    apiKeyEnv: str | None = setting(
        "OPENAI_API_KEY", "Environment variable holding the API key (sent as a bearer token; never logged or stored)."
    )
    timeout: float = setting(300.0, "Seconds a task may stream before it is stopped.", minimum=1)
    maxFileChars: int = setting(
        60_000, "Characters of each file included in a task's prompt (longer files are cut).", minimum=1
    )
