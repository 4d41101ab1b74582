"""Replacement analysis benchmark: analyses per second on a generated corpus (Ansible, Kubernetes,
Python; cursor positions sampled over the files) and p50 per analysis on a 1,000-line file (target <= 2 ms).

Each sample is what a user does: a new line opened above an existing line (same indentation, the cursor on
it) and a completion that redefines the unit starting there (the model's text starts at the cursor column).
The document is parsed before timing (the server has it cached per version); the timing covers the whole
analysis: checks, parsing the completion, the scope search, and the validation reparse. Prints figures only.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from pathlib import Path

from tree_sitter import Tree

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import ansible_file, python_file, yaml_file
from benchmarks.syntax import row
from tether_lsp.handlers.replacement.engine import analyze
from tether_lsp.handlers.replacement.model import Options
from tether_lsp.server.syntax import parse_text


def samples(text: str, language: str, count: int, seed: int) -> list[tuple[bytes, Tree, int, str]]:
    lines = text.split("\n")
    rnd = random.Random(seed)
    out: list[tuple[bytes, Tree, int, str]] = []
    candidates = [k for k, line in enumerate(lines[:-3]) if line.strip() and not line.lstrip().startswith("#")]
    for k in rnd.sample(candidates, min(count, len(candidates))):
        indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
        doc = "\n".join([*lines[:k], indent, *lines[k:]])
        body = [lines[k][len(indent) :] + "  # changed", *lines[k + 1 : k + 3]]
        data = doc.encode()
        cursor = len("\n".join([*lines[:k], indent]).encode())
        out.append((data, parse_text(language, data), cursor, "\n".join(body)))
    return out


def run(name: str, language: str, text: str, count: int) -> None:
    cases = samples(text, language, count, 7)
    times: list[float] = []
    modes: Counter[str] = Counter()
    for data, tree, cursor, completion in cases:
        t = time.perf_counter()
        result = analyze(data, tree, language, cursor, completion, Options())
        times.append((time.perf_counter() - t) * 1000)
        modes[result.mode] += 1
    per_second = len(times) / (sum(times) / 1000)
    print(f"{name}: {text.count(chr(10)):,} lines, {len(cases)} cursor positions ({dict(modes)})")
    row("analysis", times)
    print(f"  {per_second:,.0f} analyses/s")


def main() -> None:
    run("Ansible playbook", "yaml", ansible_file(1_000), 200)
    run("Kubernetes manifests", "yaml", yaml_file(1_000), 200)
    run("Python module", "python", python_file(1_000), 200)
    run("Python module, 10,000 lines", "python", python_file(10_000), 50)


if __name__ == "__main__":
    main()
