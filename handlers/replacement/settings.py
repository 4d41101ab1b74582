"""Settings of replacement analysis and inline completion (REPLACEMENT.md §4), section ``tether.completion`` and
``tether.inference``. Field names are the camelCase keys on the wire."""

from __future__ import annotations

from dataclasses import dataclass

from server.settings import register_section

from .model import Options


@dataclass(frozen=True)
class CompletionSettings:
    enableReplacements: bool = True
    minConfidence: float = 0.6
    visualDiffMinLines: int = 2
    visualDiffMinConfidence: float = 0.85

    def options(self) -> Options:
        return Options(
            enable_replacements=self.enableReplacements,
            min_confidence=min(1.0, max(0.0, self.minConfidence)),
            visual_diff_min_lines=max(1, self.visualDiffMinLines),
            visual_diff_min_confidence=min(1.0, max(0.0, self.visualDiffMinConfidence)),
        )


@dataclass(frozen=True)
class InferenceSettings:
    endpoint: str | None = None
    model: str = "qwen2.5-coder:1.5b-base"
    format: str = "qwen"
    delay: int = 250
    maxPrefixLength: int = 10_000
    maxSuffixLength: int = 1_000
    maxLines: int = 5
    maxTokens: int = 100
    temperature: float = 0.2
    timeout: float = 10.0


register_section("completion", CompletionSettings)
register_section("inference", InferenceSettings, {"format": ("qwen", "deepseek")})
