"""FIM prompts, the clean-up of model output, and endpoint parsing (pure parts of inline completion)."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.replacement import fim
from tether_lsp.handlers.replacement.inference import Endpoint, InferenceError, completion_of


def test_qwen_and_deepseek_prompts_with_limits() -> None:
    p = fim.build("abcdef", "uvwxyz", "yaml", "qwen", 3, 2)
    assert p.text == "<|fim_prefix|># Language: yaml\ndef<|fim_suffix|>uv<|fim_middle|>"
    p = fim.build("ab", "cd", "python", "deepseek", 10, 10)
    assert p.text == "<｜fim▁begin｜># Language: python\nab<｜fim▁hole｜>cd<｜fim▁end｜>"
    assert (
        fim.build("ab", "cd", "json", "qwen", 0, 0).text == "<|fim_prefix|>Language: json\n<|fim_suffix|><|fim_middle|>"
    )


@pytest.mark.parametrize(
    ("completion", "suffix", "max_lines", "expected"),
    [
        ("x = 1<|endoftext|>junk", "", 5, "x = 1"),
        ("a\nb\nc\nd", "", 2, "a\nb"),
        ("a, b)", ")\nmore", 5, "a, b"),  # the closing paren is already there
        ("z = 2\n    return y\n", "\n    return y\n", 5, "z = 2"),
        ("return y", "\n    return y\n", 5, ""),
        ("xs", "s\n", 5, "xs"),  # a one-letter suffix line is not an overlap inside a line
        ("café 🚀\n東京", "東京\n", 5, "café 🚀"),
    ],
)
def test_clean(completion: str, suffix: str, max_lines: int, expected: str) -> None:
    assert fim.clean(completion, suffix, max_lines) == expected


@pytest.mark.parametrize(
    ("url", "path", "protocol"),
    [
        ("http://localhost:11434", "/api/generate", "ollama"),
        ("http://localhost:11434/api/generate", "/api/generate", "ollama"),
        ("http://h:8000/v1", "/v1/completions", "openai"),
        ("https://h/v1/completions", "/v1/completions", "openai"),
    ],
)
def test_endpoints(url: str, path: str, protocol: str) -> None:
    endpoint = Endpoint.parse(url)
    assert (endpoint.path, endpoint.protocol) == (path, protocol)


@pytest.mark.parametrize("url", ["ftp://x/v1", "localhost:11434", "http://", "http://h:port/v1"])
def test_bad_endpoints(url: str) -> None:
    with pytest.raises(InferenceError):
        Endpoint.parse(url)


def test_answers() -> None:
    ollama, openai = Endpoint.parse("http://h:11434"), Endpoint.parse("http://h/v1")
    assert completion_of(ollama, b'{"response": "x", "done": true}') == "x"
    assert completion_of(ollama, b'{"response": "a"}\n{"response": "b"}\n{"response": "", "done": true}\n') == "ab"
    assert completion_of(openai, b'{"choices": [{"text": "y"}]}') == "y"
    for bad in (b"<html>", b'{"choices": []}', b'{"response": 5}', b"null"):
        with pytest.raises(InferenceError):
            completion_of(openai if b"choices" in bad else ollama, bad)
