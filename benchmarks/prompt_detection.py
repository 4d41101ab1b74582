"""Prompt detection recall and precision on the hand-labelled corpus ``tests/corpus/prompts/``.

Each file's expected prompts are listed by anchor in ``expected.json`` (written from reading the files: the
prompts a user would expect the playground to offer, and files with none). Prints, per file and per
language, expected / found / correct and recall and precision, then the misses and false prompts, and the
detection time per file. Asserts nothing: ``tests/unit/playground/test_corpus.py`` pins the same figures.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from tether_lsp.handlers.playground.engine import detect
from tether_lsp.server.syntax import parse_text

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "prompts"


def language(name: str) -> str:
    return "python" if name.endswith(".py") else "yaml"


def anchors(name: str) -> list[str]:
    data = (CORPUS / name).read_bytes()
    lang = language(name)
    return [p.anchor for p in detect(lang, parse_text(lang, data), data)]


def score(expected: list[str], found: list[str]) -> int:
    """Correct detections: anchors in both, counted with multiplicity."""
    return sum((Counter(expected) & Counter(found)).values())


def main() -> None:
    truth = {k: v for k, v in json.loads((CORPUS / "expected.json").read_text()).items() if not k.startswith("_")}
    totals: dict[str, list[int]] = {}
    print(f"{'file':32} {'expected':>8} {'found':>6} {'correct':>8} {'ms':>6}")
    for name, expected in truth.items():
        start = time.perf_counter()
        found = anchors(name)
        ms = (time.perf_counter() - start) * 1000
        correct = score(expected, found)
        print(f"{name:32} {len(expected):8} {len(found):6} {correct:8} {ms:6.2f}")
        for key in (language(name), "all"):
            row = totals.setdefault(key, [0, 0, 0])
            row[0], row[1], row[2] = row[0] + len(expected), row[1] + len(found), row[2] + correct
        missed = Counter(expected) - Counter(found)
        extra = Counter(found) - Counter(expected)
        for anchor in missed.elements():
            print(f"    missed: {anchor}")
        for anchor in extra.elements():
            print(f"    not a prompt, found: {anchor}")
    print()
    for key, (expected_n, found_n, correct) in totals.items():
        recall = correct / expected_n if expected_n else 1.0
        precision = correct / found_n if found_n else 1.0
        print(
            f"{key:8} recall {recall:6.1%} ({correct}/{expected_n})   precision {precision:6.1%} ({correct}/{found_n})"
        )


if __name__ == "__main__":
    main()
