"""``tether.playground``: what counts as a prompt, how identity is matched, and where runs go."""

from __future__ import annotations

from dataclasses import dataclass

from tether_lsp.server.settings import setting

from .model import DEFAULT_KEYWORDS, YAML_KEYS
from .resolver import Thresholds


@dataclass(frozen=True)
class PlaygroundSettings:
    """``tether.playground``: which keyword arguments / dict keys (P3, P5) and YAML keys (Y2) hold prompts."""

    keywords: list[str] = setting(
        description="Python keyword arguments and dict keys whose string values are prompts.",
        factory=lambda: list(DEFAULT_KEYWORDS),
    )
    yamlKeys: list[str] = setting(
        description="YAML keys whose values are prompts when they read as text (not `user: admin`).",
        factory=lambda: list(YAML_KEYS),
    )
    similarityThreshold: float = setting(
        0.4, "Least similarity for a changed prompt to keep its identity.", minimum=0, maximum=1
    )
    shortSimilarityThreshold: float = setting(
        0.6, "The same, when both prompts are under 40 characters.", minimum=0, maximum=1
    )
    renameThreshold: float = setting(
        0.5, "Least mean similarity of the prompts for a file gone from disk to count as renamed.", minimum=0, maximum=1
    )
    endpoint: str | None = setting(
        None,
        "Chat model for `tether/playground/run`: OpenAI-compatible (`.../v1` or `.../v1/chat/completions`) or Ollama "
        "(`http://host:11434` or `.../api/chat`). null: the tasks endpoint (`tether.tasks.endpoint`).",
    )
    model: str | None = setting(None, "Model name for runs (a run's `model` wins). null: `tether.tasks.model`.")
    apiKeyEnv: str | None = setting(
        None,
        "Environment variable holding the API key (a bearer token; never logged or stored). "
        "null: `tether.tasks.apiKeyEnv`.",
    )
    timeout: float = setting(300.0, "Seconds a run may take before it is stopped.", minimum=1)
    processMinBytes: int = setting(
        8 * 1024,
        "Documents at least this large have their prompts found in a worker process (`tether.limits.processes`), "
        "which parses the text itself; smaller ones in a worker thread, from the server's tree (the hop to a process "
        "costs about what finding a small file's prompts does). 0: every document goes to a process.",
        minimum=0,
    )
    maxRunsPerPrompt: int = setting(
        100, "Runs kept per prompt (the oldest are deleted when a run is added).", minimum=1, maximum=100_000
    )

    def thresholds(self) -> Thresholds:
        return Thresholds(self.similarityThreshold, self.shortSimilarityThreshold, self.renameThreshold)
