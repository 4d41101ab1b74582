"""The standard-library corpus harness (benchmarks/actions_corpus*.py) on a handful of modules: every action on
every target gives valid Python with the expected ``ast``, and the round trips give the original bytes back.
The whole library is a benchmark (``python -m benchmarks.actions_corpus``), not a test.

The harness must be able to fail: engines broken on purpose (an off-by-one removal, a clone that loses a byte,
a swap that leaves a space) are caught. Its expectations are checked on small golden cases against CPython's
own parse of the text a person would write.
"""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from tree_sitter import Node

from benchmarks.actions_corpus import check_files, table
from benchmarks.actions_corpus_check import ast_verdict, expectation_is_python
from benchmarks.actions_corpus_run import Report, TetherEngine
from benchmarks.actions_corpus_targets import Target, index_file, targets
from tether_lsp.handlers.actions.model import Outcome, Replace, applied
from tether_lsp.server.syntax import parse_text

STDLIB = Path(sysconfig.get_paths()["stdlib"])
MODULES = [STDLIB / name for name in ("colorsys.py", "fnmatch.py", "token.py", "bisect.py")]

SAMPLE = '''"""Échantillon — 東京 🚀."""
import os


@decorator(1, key="ключ")
class Café(Base, metaclass=Meta):
    """Doc."""

    size = {"a": 1, **extra, "ß": [1, 2, 3]}

    def price(self, base, /, rate=0.2, *, tax=None, **kw):
        total = base * (1 + rate)  # 税
        return total, {1, 2}

    async def fetch(self, *urls):
        return await gather(*urls, return_exceptions=True)


def outer(items):
    square = lambda x, y=2: x * y
    (first, second) = items[0], items[1]
    del first, second
    if not items:
        return None
    return [square(i) for i in items], (1,)
'''


def _run(files: list[Path], engine: Any, verify_every: int = 3) -> tuple[Report, dict[str, int]]:
    report = check_files(files, engine, verify_every)
    totals: dict[str, int] = {}
    for row in table(report):
        for key, value in row.items():
            if isinstance(value, int):
                totals[key] = totals.get(key, 0) + value
    return report, totals


def _failures(report: Report) -> dict[str, list[dict[str, str]]]:
    bad = ("crash", "invalid", "unequal", "notRefused", "roundTripFails", "windowDisagrees")
    return {key: examples for key, examples in report.examples.items() if key.split("|")[2] in bad}


@pytest.mark.skipif(not all(p.is_file() for p in MODULES), reason="no standard library sources")
def test_every_action_on_a_handful_of_modules_is_valid_expected_and_round_trips(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    report, totals = _run([*MODULES, sample], TetherEngine())
    assert not report.skipped
    assert totals["tried"] > 1500 and totals["acted"] > 1400
    assert _failures(report) == {}
    assert totals["valid"] == totals["acted"] and totals["equal"] == totals["acted"]
    assert totals["roundTrip"] == totals["roundTripTried"] > 600
    assert totals["verified"] > 100  # a third of the passes were judged on the whole file too, and agreed
    kinds = {row["kind"] for row in table(report)}
    assert kinds == {"argument", "parameter", "element", "entry", "statement", "function", "class"}


class _Broken(TetherEngine):
    """The real engine with one action broken on purpose."""

    def __init__(self, broken: str) -> None:
        super().__init__()
        self.broken = broken

    def remove(self, source: bytes, member: Any) -> Outcome:
        outcome = super().remove(source, member)
        if self.broken != "remove":
            return outcome
        first = outcome.replaces[0]  # one byte too many: the kind of off-by-one an engine makes
        return Outcome((Replace(first.start, first.end + 1, first.text), *outcome.replaces[1:]), outcome.produced)

    def clone(self, source: bytes, member: Any) -> Outcome:
        outcome = super().clone(source, member)
        if self.broken != "clone":
            return outcome
        first = outcome.replaces[0]  # the copy loses its last byte
        return Outcome((Replace(first.start, first.end, first.text[:-1]), *outcome.replaces[1:]), outcome.produced)

    def swap(self, source: bytes, a: Any, b: Any) -> Outcome:
        outcome = super().swap(source, a, b)
        if self.broken != "swap":
            return outcome
        first = outcome.replaces[0]  # valid, the same ast, but not the text a second swap can undo
        return Outcome((Replace(first.start, first.end, b" " + first.text), *outcome.replaces[1:]), outcome.produced)


@pytest.mark.parametrize(
    ("broken", "caught"),
    [("remove", ("invalid", "unequal")), ("clone", ("invalid", "unequal")), ("swap", ("roundTripFails",))],
)
def test_the_harness_catches_a_broken_action(broken: str, caught: tuple[str, ...]) -> None:
    report, totals = _run(MODULES[:1], _Broken(broken), verify_every=0)
    failed = sum(report.counts[f"{broken}|{kind}|{what}"] for kind in _KINDS for what in caught)
    assert failed > 20, report.counts
    if broken != "swap":
        assert totals["valid"] < totals["acted"] or totals["equal"] < totals["acted"]
    else:
        assert totals["roundTrip"] < totals["roundTripTried"]


_KINDS = ("argument", "parameter", "element", "entry", "statement", "function", "class")


def _target(source: str, text: str, kind: str) -> tuple[Any, Target]:
    """The target whose node's text is ``text`` (the first one of ``kind``)."""
    data = source.encode()
    tree = parse_text("python", data)
    index = index_file(data, ast.parse(data), tree.root_node)
    for target in targets(index, tree.root_node):
        node: Node = target.node
        if target.kind == kind and data[node.start_byte : node.end_byte] == text.encode():
            return index, target
    raise AssertionError(f"no {kind} {text!r}")


def _judged(source: str, text: str, kind: str, action: str, result: str) -> str:
    """The verdict on ``result`` (a whole text a person would write) as the outcome of ``action``."""
    index, target = _target(source, text, kind)
    data = source.encode()
    replaces = [Replace(0, len(data), result.encode())]
    assert applied(data, replaces) == result.encode()
    return ast_verdict(index, target, action, replaces, result.encode()).kind


@pytest.mark.parametrize(
    ("source", "text", "kind", "action", "result"),
    [
        ("f(a, b)\n", "b", "argument", "remove", "f(a)\n"),
        ("f(a, *b, c=1, *d)\n", "c=1", "argument", "swap", "f(a, *b, *d, c=1)\n"),
        ("class A(B, C): pass\n", "B", "argument", "remove", "class A(C): pass\n"),
        ("def f(a, *, b): pass\n", "b", "parameter", "remove", "def f(a): pass\n"),
        ("def f(a, /, b): pass\n", "a", "parameter", "remove", "def f(b): pass\n"),
        ("def f(a, b=1): pass\n", "b=1", "parameter", "clone", "def f(a, b=1, b=1): pass\n"),
        ("lambda x, y=2: 0\n", "x", "parameter", "remove", "lambda y=2: 0\n"),
        ("x = (a, b)\n", "b", "element", "remove", "x = (a,)\n"),
        ("x = a,\n", "a", "element", "remove", "x = ()\n"),
        ("del a, b\n", "a", "element", "remove", "del b\n"),
        ("d = {1: 2, **e}\n", "**e", "entry", "moveUp", "d = {**e, 1: 2}\n"),
        ("def f():\n    x = 1\n", "x = 1", "statement", "remove", "def f():\n    pass\n"),
        ("x = 1\ny = 2\n", "y = 2", "statement", "remove", "x = 1\n"),
        ("@d\ndef f(): pass\nx = 1\n", "@d\ndef f(): pass", "function", "swap", "x = 1\n@d\ndef f(): pass\n"),
    ],
)
def test_the_expected_ast_is_what_a_person_would_write(
    source: str, text: str, kind: str, action: str, result: str
) -> None:
    assert _judged(source, text, kind, action, result) == "equal"


@pytest.mark.parametrize(
    ("source", "text", "kind", "action", "result"),
    [
        ("f(a, b)\n", "b", "argument", "remove", "f(a, b)\n"),  # nothing removed
        ("f(a, b)\n", "b", "argument", "remove", "f(b)\n"),  # the wrong one
        ("x = (a, b)\n", "b", "element", "remove", "x = (a)\n"),  # no longer a tuple
        ("def f():\n    x = 1\n", "x = 1", "statement", "remove", "def f():\n    ...\n"),  # not pass
        ("def f(a=1, *, b): pass\n", "b", "parameter", "remove", "def f(a=1, *, b=2): pass\n"),
    ],
)
def test_a_result_that_is_not_the_expected_ast_is_judged_unequal(
    source: str, text: str, kind: str, action: str, result: str
) -> None:
    assert _judged(source, text, kind, action, result) == "unequal"


@pytest.mark.parametrize(
    ("source", "text", "kind", "action"),
    [
        ("f(a, b=1)\n", "a", "argument", "swap"),  # positional after keyword
        ("f(*a, **k)\n", "*a", "argument", "swap"),  # *a after **k
        ("def f(a, b=1): pass\n", "a", "parameter", "swap"),  # non-default after default
        ("def f(*a, b): pass\n", "*a", "parameter", "clone"),  # two *
        ("def f(a, *, b): pass\n", "*", "parameter", "swap"),  # bare * with nothing after
        ("x = {a}\n", "a", "element", "remove"),  # {} is a dict
        ("del a,\n", "a", "element", "remove"),  # del needs a target
    ],
)
def test_a_transformation_with_no_python_text_expects_a_refusal(source: str, text: str, kind: str, action: str) -> None:
    index, target = _target(source, text, kind)
    assert not expectation_is_python(index, target, action)
