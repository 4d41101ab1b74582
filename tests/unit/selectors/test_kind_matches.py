"""Kind selectors find each kind's matches over the whole tree once per version and slice them for every cursor
after, with the same answers as testing each node under each cursor: checked against the definition on
realistic sources (cold and warm, from any cursors), and against CPython's own parser over a sample of the
standard library (functions, classes, methods, calls, returns... counted by :mod:`ast`), where ``filterText``
also keeps exactly what a search of every node keeps.
"""

from __future__ import annotations

import ast
import dataclasses
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.selectors.harness import Doc
from tests.unit.selectors.sources import K8S, PY
from tether_lsp.handlers.selectors.engine import run, validate
from tether_lsp.handlers.selectors.index import TreeIndex
from tether_lsp.handlers.selectors.kinds import KindTable
from tether_lsp.handlers.selectors.vocabulary import KIND_SELECTORS

Predicate = Callable[[TreeIndex, int], bool]


def counted(table: KindTable) -> tuple[KindTable, dict[str, int]]:
    """A copy of ``table`` whose kind predicates count their calls."""
    calls: dict[str, int] = dict.fromkeys(table.predicates, 0)

    def counting(name: str, test: Predicate) -> Predicate:
        def predicate(index: TreeIndex, i: int) -> bool:
            calls[name] += 1
            return test(index, i)

        return predicate

    predicates = {name: counting(name, test) for name, test in table.predicates.items()}
    return dataclasses.replace(table, predicates=predicates), calls


def chain_on(doc: Doc, table: KindTable, *names: str, start: list[int] | None = None) -> list[int]:
    cursors = start if start is not None else [0]
    for name in names:
        cursors = run(validate(name, []), doc.index, table, doc.tree, cursors, lambda line, ch: 0)
    return cursors


def test_a_whole_file_kind_selection_tests_each_candidate_once_per_version() -> None:
    doc = Doc("python", "".join(f"class C{k}:\n    def get(self):\n        return {k}\n\n" for k in range(300)))
    table, calls = counted(doc.table)
    first = chain_on(doc, table, "selectFunctions")
    tested = calls["function"]
    assert len(first) == 300 and tested >= 300
    assert chain_on(doc, table, "selectFunctions") == first
    assert chain_on(doc, table, "selectClasses", "selectFunctions") == first
    assert calls["function"] == tested  # before: each selection tested all 300 candidates again


def by_definition(doc: Doc, kind_name: str, cursors: list[int]) -> list[int]:
    """The kind's nodes among the cursors and their descendants, one node at a time."""
    test, index = doc.table.predicates[kind_name], doc.index
    return sorted({p for c in cursors for p in range(c, index.subtree_end[c]) if test(index, p)})


DOCS = {"python": Doc("python", PY), "yaml": Doc("yaml", K8S)}


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(sorted(DOCS)),
    st.sampled_from(sorted(KIND_SELECTORS)),
    st.lists(st.floats(0, 1, exclude_max=True), max_size=30),
    st.booleans(),
)
def test_kind_selections_from_any_cursors_match_the_definition(
    language: str, selector: str, where: list[float], warm: bool
) -> None:
    source = PY if language == "python" else K8S
    doc = Doc(language, source) if not warm else DOCS[language]
    if warm:
        doc.chain(selector)  # the whole tree's matches are found before the cursors ask
    cursors = sorted({int(w * len(doc.index)) for w in where}) or [0]
    assert doc.chain(selector, start=cursors) == by_definition(doc, KIND_SELECTORS[selector][0], cursors)


def _function_count(tree: ast.AST) -> int:
    return sum(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in ast.walk(tree))


def _method_count(tree: ast.AST) -> int:
    return sum(
        isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef)
        for s in n.body
    )


def _count(*types: type[ast.AST]) -> Callable[[ast.AST], int]:
    return lambda tree: sum(isinstance(n, types) for n in ast.walk(tree))


#: Kind selectors and how CPython's parser counts the same nodes.
AST_COUNTS: dict[str, Callable[[ast.AST], int]] = {
    "selectFunctions": _function_count,
    "selectMethods": _method_count,
    "selectClasses": _count(ast.ClassDef),
    "selectCalls": _count(ast.Call),
    "selectReturns": _count(ast.Return),
    "selectLambdas": _count(ast.Lambda),
    "selectImports": _count(ast.Import, ast.ImportFrom),
    "selectLoops": _count(ast.For, ast.AsyncFor, ast.While),
    "selectComprehensions": _count(ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp),
}
#: Patterns an agent filters whole files with: literal starts, a literal after a class, none at all.
PATTERNS = [r"^def _", r"^async def ", r"^class \w+\(", r"self\._\w+ = ", r"\bNone\b", r"(?i)^def test", r"^\s*@"]
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def stdlib_sample() -> list[Path]:
    """Every 30th module of the standard library (by path), without third-party packages."""
    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
    return files[::30]


@pytest.mark.skipif(not STDLIB.is_dir(), reason="no standard library sources")
def test_kinds_and_filters_agree_with_cpython_over_the_standard_library() -> None:
    compared = 0
    for path in stdlib_sample():
        data = path.read_bytes()
        try:
            tree = ast.parse(data)
            source = data.decode("utf-8")
        except (SyntaxError, ValueError):
            continue  # test data that is not Python on purpose, or not UTF-8
        doc = Doc("python", source)
        if doc.tree.root_node.has_error:
            continue  # newer syntax than the grammar knows
        compared += 1
        for selector, count in AST_COUNTS.items():
            assert len(doc.chain(selector)) == count(tree), (path, selector)
        functions = doc.chain("selectFunctions")
        for pattern in PATTERNS:
            compiled = regex.compile(pattern, flags=regex.VERSION0)
            expected = [f for f in functions if compiled.search(doc.index.node_text(f)) is not None]
            assert doc.chain("selectFunctions", ("filterText", pattern)) == expected, (path, pattern)
    assert compared >= 40
