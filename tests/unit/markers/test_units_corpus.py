"""``structure.units_of`` finds the units the walk before it found (:mod:`units_reference`), unit for unit: on
standard-library modules, the HEAD-change benchmark's files before and after its commit, YAML, each also broken
(parse errors), and on random lines of definitions and blocks. And it reads no node's text through the parse's
read callback (names and headers come from the bytes)."""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.corpus import python_file, yaml_file
from tether_lsp.handlers.markers import structure
from tether_lsp.handlers.markers.reparse import parse
from tether_lsp.server import sliced_parse

from .units_reference import reference_units

STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: Every 25th module of the standard library (some 60; its tests and bundled packages are its biggest files).
MODULES = [p for p in sorted(STDLIB.rglob("*.py")) if "site-packages" not in p.parts and p.stat().st_size < 150_000]
SAMPLE = MODULES[::25]
REPOSITORY = Path(__file__).resolve().parents[3]


def broken(text: str, seed: int) -> list[str]:
    """The text with a few lines gone, with an opening bracket in the middle, and cut in the middle of a line."""
    lines = text.split("\n")
    rnd = random.Random(seed)
    at = rnd.randrange(len(lines))
    middle = len(text) // 2
    return [
        "\n".join(lines[:at] + lines[at + rnd.randrange(1, 6) :]),
        text[:middle] + "(\n" + text[middle:],
        text[: len(text) * 2 // 3],
    ]


def same_units(language: str, text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    tree = parse(language, data, None)
    assert tree is not None
    assert [tuple(u) for u in structure.units_of(language, tree, data)] == reference_units(language, tree, data)


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: str(p.relative_to(STDLIB)))
def test_standard_library_modules_have_the_reference_units(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    for version in (text, *broken(text, len(text))):
        same_units("python", version)


def head_change_texts(k: int) -> tuple[str, str]:
    """A file of ``benchmarks.markers`` HEAD-change repository at its two commits (make_repo, change_every_file)."""
    old = python_file(500).replace("Widget", f"Widget{k}")
    lines = old.split("\n")
    lines[0:0] = [f"# header {k} {n}" for n in range(20)]
    lines[200:210] = [f"    rewritten_{n} = {n}" for n in range(12)]
    return old, "\n".join(lines)


@pytest.mark.parametrize("k", [0, 7, 199])
def test_the_head_change_benchmark_files_have_the_reference_units(k: int) -> None:
    for version in head_change_texts(k):
        same_units("python", version)


YAML = [*sorted(REPOSITORY.glob(".github/**/*.y*ml")), *sorted((REPOSITORY / "clients").glob("**/*.y*ml"))[:10]]


def test_yaml_has_the_reference_units() -> None:
    texts = [yaml_file(400), *(p.read_text(encoding="utf-8") for p in YAML)]
    for n, text in enumerate(texts):
        for version in (text, *broken(text, n)):
            same_units("yaml", version)


LINES = [
    "def f(a, b):", "async def g():", "class C(Base):", "class D:", "@decorator", "@functools.cache",
    "if x:", "elif y:", "else:", "for i in range(3):", "async for i in it:", "while True:", "with open(p) as f:",
    "try:", "except ValueError:", "except* OSError:", "finally:", "match value:", "case 1:", "case _:",
    "return 1", "pass", "x = (", ")", "'''", "lambda: (", "def", "class", "@", ":", "nom_é = '東京'",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from(LINES)), max_size=30))
def test_random_definitions_and_blocks_have_the_reference_units(lines: list[tuple[int, str]]) -> None:
    same_units("python", "\n".join("    " * depth + line for depth, line in lines) + "\n")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a:", "- b", "- c: 1", "d: [", "]", "e: |", "f"]))))
def test_random_yaml_has_the_reference_units(lines: list[tuple[int, str]]) -> None:
    same_units("yaml", "\n".join("  " * depth + line for depth, line in lines) + "\n")


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("python", "@deco\nclass C:\n    def m(self):\n        if x:\n            pass\n"),
        ("yaml", "jobs:\n  - name: build\n    run: make\n"),
    ],
)
def test_finding_units_reads_no_node_text_through_the_parse(
    language: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tree parsed from a read callback reads ``Node.text`` through it: a Python call and a copy per name (some
    3 us, a third of a unit's cost); the walk slices the bytes it has instead."""
    reads: list[int] = []
    real = sliced_parse._Source.__call__

    def counted(self: Any, offset: int, point: object) -> Any:
        if not self.parsing:
            reads.append(offset)
        return real(self, offset, point)

    monkeypatch.setattr(sliced_parse._Source, "__call__", counted)
    found = structure.units(language, text)
    assert found is not None and len(found) >= 3
    assert reads == []
