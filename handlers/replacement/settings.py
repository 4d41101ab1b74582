"""Settings of replacement analysis and inline completion (docs/replacement.md), section ``tether.completion`` and
``tether.inference``. Field names are the camelCase keys on the wire."""

from __future__ import annotations

from dataclasses import dataclass

from tether_lsp.server.settings import setting

from .model import Options

_ENGINE = Options()  # the engine's defaults are the settings' defaults: written once, in model.Options


@dataclass(frozen=True)
class CompletionSettings:
    """``tether.completion``: when an AI completion replaces code instead of being inserted."""

    enableReplacements: bool = setting(
        _ENGINE.enable_replacements, "Off: every completion is an insert, never a replacement."
    )
    minConfidence: float = setting(
        _ENGINE.min_confidence, "A replacement whose confidence is below this becomes an insert.", minimum=0, maximum=1
    )
    visualDiffMinLines: int = setting(
        _ENGINE.visual_diff_min_lines,
        "`showVisualDiff` is true only when the replaced unit has at least this many lines.",
        minimum=1,
    )
    visualDiffMinConfidence: float = setting(
        _ENGINE.visual_diff_min_confidence,
        "`showVisualDiff` is true only when the confidence is at least this.",
        minimum=0,
        maximum=1,
    )

    def options(self) -> Options:
        return Options(
            enable_replacements=self.enableReplacements,
            min_confidence=self.minConfidence,
            visual_diff_min_lines=self.visualDiffMinLines,
            visual_diff_min_confidence=self.visualDiffMinConfidence,
        )


@dataclass(frozen=True)
class InferenceSettings:
    """``tether.inference``: the fill-in-the-middle model behind ``textDocument/inlineCompletion``."""

    endpoint: str | None = setting(
        None,
        "URL of the completion model: Ollama (`http://host:11434` or `.../api/generate`) or OpenAI-compatible "
        "(`.../v1` or `.../v1/completions`). null: no inline completions (the answer is an empty list).",
    )
    model: str = setting("qwen2.5-coder:1.5b-base", "Model name sent to the endpoint.")
    format: str = setting("qwen", "Fill-in-the-middle tokens of the model family.", choices=("qwen", "deepseek"))
    delay: int = setting(
        250,
        "Milliseconds to wait before an automatic request (a newer request supersedes it); -1: only when the "
        "user asks explicitly.",
        minimum=-1,
    )
    maxPrefixLength: int = setting(10_000, "Characters of text before the cursor sent to the model.", minimum=0)
    maxSuffixLength: int = setting(1_000, "Characters of text after the cursor sent to the model.", minimum=0)
    maxLines: int = setting(5, "Lines a completion may have.", minimum=1)
    maxTokens: int = setting(100, "Tokens the model may generate.", minimum=1)
    temperature: float = setting(0.2, "Sampling temperature.", minimum=0, maximum=2)
    timeout: float = setting(10.0, "Seconds to wait for the model; a slower answer is dropped.", minimum=0.1)
