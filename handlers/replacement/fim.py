"""Fill-in-the-middle prompts and the clean-up of what a model returns (docs/replacement.md, "Inline completion").
Pure."""

from __future__ import annotations

from dataclasses import dataclass

FORMATS = {
    "qwen": ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"),
    "deepseek": ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"),
}
#: Tokens a base model may echo or end with; never part of a completion.
SPECIAL = (
    *(token for tokens in FORMATS.values() for token in tokens),
    "<|endoftext|>",
    "<|fim_pad|>",
    "<|file_sep|>",
    "<|repo_name|>",
    "<｜end▁of▁sentence｜>",
)
STOP = ["<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<｜end▁of▁sentence｜>", "<|fim_prefix|>"]
COMMENT = {"python": "#", "yaml": "#"}


@dataclass(frozen=True)
class Prompt:
    text: str
    prefix: str
    suffix: str


def build(prefix: str, suffix: str, language: str, fmt: str, max_prefix: int, max_suffix: int) -> Prompt:
    """The FIM prompt: the last ``max_prefix`` characters before the cursor, the first ``max_suffix`` after it,
    and a language header (as a comment where the language has one). No file path: it would leak and defeat
    prompt caching."""
    before = prefix[-max_prefix:] if max_prefix > 0 else ""
    after = suffix[:max_suffix] if max_suffix > 0 else ""
    comment = COMMENT.get(language)
    header = f"{comment} Language: {language}\n" if comment else f"Language: {language}\n"
    begin, hole, end = FORMATS[fmt]
    return Prompt(f"{begin}{header}{before}{hole}{after}{end}", before, after)


def clean(completion: str, suffix: str, max_lines: int) -> str:
    """What a model returned, made safe to show: special tokens cut, at most ``max_lines`` lines, and no tail
    that repeats what already follows the cursor (the "duplicated lines after accept" problem)."""
    for token in SPECIAL:
        at = completion.find(token)
        if at >= 0:
            completion = completion[:at]
    lines = completion.split("\n")
    if max_lines > 0 and len(lines) > max_lines:
        lines = lines[:max_lines]
    return trim_suffix_overlap("\n".join(lines), suffix).rstrip(" \t") if lines else ""


def trim_suffix_overlap(completion: str, suffix: str) -> str:
    """Drop the completion's trailing lines (or trailing text) that the suffix already starts with."""
    if not completion or not suffix:
        return completion
    rest = suffix.split("\n")
    first_rest = rest[0].strip()
    closing = all(c in ")]}\"'`,:;" for c in first_rest)
    if first_rest and (closing or len(first_rest) >= 4) and completion.rstrip().endswith(first_rest):
        completion = completion.rstrip()[: -len(first_rest)]  # e.g. the closing `)` that is already there
    suffix_lines = [line.strip() for line in rest if line.strip()]
    lines = completion.rstrip().split("\n")
    for k in range(min(len(lines), len(suffix_lines)), 0, -1):
        tail = [line.strip() for line in lines[-k:]]
        if tail == suffix_lines[:k] and any(tail):
            return "\n".join(lines[:-k]).rstrip("\n")
    return completion
