"""Prompt detection recall and precision on the hand-labelled corpus ``tests/corpus/prompts/``.

Each file's expected prompts are listed by anchor in ``expected.json`` (written from reading the files: the
prompts a user would expect the playground to offer, and files with none). Prints, per file and per
language, expected / found / correct and recall and precision, then the misses and false prompts, and the
detection time per file. Asserts nothing: ``tests/unit/playground/test_corpus.py`` pins the same figures.

Then detection on hostile nesting (a dict of dicts, keyword arguments, chained assignments, YAML flow mappings
and lists, ...) at two depths: linear work takes about twice as long at twice the depth.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
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


def nested(opening: str, inner: str, closing: str, depth: int) -> str:
    return opening * depth + inner + closing * depth


#: name -> (language, the text at a depth)
DEEP: dict[str, tuple[str, Callable[[int], str]]] = {
    "python: a dict of dicts": ("python", lambda d: "PROMPT = " + nested('{"prompt": ', '"hi there you"', "}", d)),
    "python: keyword arguments": ("python", lambda d: "X = " + nested("f(prompt=", '"hi there you"', ")", d)),
    "python: chained assignments": ("python", lambda d: "prompt_a = " * d + '"hi there you"'),
    "python: constructor calls": ("python", lambda d: "X = " + nested("Template(", '"hi there you"', ")", d)),
    "python: lists of messages": (
        "python",
        lambda d: "X = " + nested('[{"role": "user", "content": "hello there"}, ', "1", "]", d),
    ),
    "python: a + chain": ("python", lambda d: "PROMPT = " + " + ".join(['"hi there you"'] * d)),
    "python: parentheses": ("python", lambda d: "SYSTEM_PROMPT = " + nested("(", '"hi there you"', ")", d)),
    "yaml: flow mappings": ("yaml", lambda d: "prompt: " + nested("{prompt: ", "hi there you", "}", d)),
    "yaml: messages": ("yaml", lambda d: "x: " + nested("{role: user, content: ", "hi there you", "}", d)),
    "yaml: lists under prompt keys": ("yaml", lambda d: "prompt: " + nested("[{prompt: ", "hi there you", "}]", d)),
}


def deep(depths: tuple[int, int] = (2_500, 5_000), repeat: int = 3) -> None:
    print()
    print(f"{'hostile nesting':32} " + " ".join(f"{f'depth {d:,}':>13}" for d in depths) + "   ratio")
    for name, (lang, make) in DEEP.items():
        times = []
        for depth in depths:
            data = make(depth).encode()
            tree = parse_text(lang, data)
            best = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                detect(lang, tree, data)
                best = min(best, time.perf_counter() - start)
            times.append(best * 1000)
        print(f"{name:32} " + " ".join(f"{t:10.1f} ms" for t in times) + f"   {times[-1] / times[0]:5.1f}")


if __name__ == "__main__":
    main()
    deep()
