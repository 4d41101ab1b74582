"""A fresh document's first kind selection is answered without the selector index (``unindexed.py``), and an index
scans without numpy until numpy is loaded: both give exactly what the index with numpy gives — the same nodes, in
the same order, with the same trimmed spans and ranges — on realistic sources, broken ones and the standard
library."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from tree_sitter import Tree

from tests.unit.selectors.harness import Doc
from tests.unit.selectors.sources import ACTIONS, ANSIBLE, K8S, PY
from tests.unit.selectors.test_kind_matches import STDLIB, stdlib_sample
from tether_lsp.handlers.selectors import index as index_module
from tether_lsp.handlers.selectors import latest, lsp
from tether_lsp.handlers.selectors.index import TreeIndex
from tether_lsp.handlers.selectors.lsp import Selectors
from tether_lsp.handlers.selectors.unindexed import kind_in_document
from tether_lsp.handlers.selectors.vocabulary import KIND_SELECTORS
from tether_lsp.handlers.selectors.wire import ApplySelectorParams
from tether_lsp.server.app import TetherServer
from tether_lsp.server.document_sync import did_open
from tether_lsp.server.positions import Encoding, LineIndex, json_ranges


def indexed(doc: Doc, selector: str) -> list[tuple[int, int, int]]:
    return [(i, *doc.index.span(i)) for i in doc.chain(selector)]


def assert_same_as_indexed(doc: Doc) -> None:
    for selector, (kind, _, _) in KIND_SELECTORS.items():
        assert kind_in_document(doc.table, doc.tree, doc.text, kind) == indexed(doc, selector), selector


@pytest.mark.parametrize(("language", "source"), [("python", PY), ("yaml", K8S), ("yaml", ANSIBLE), ("yaml", ACTIONS)])
def test_every_kind_over_a_whole_document_equals_the_indexed_selection(language: str, source: str) -> None:
    assert_same_as_indexed(Doc(language, source))


@pytest.mark.skipif(not STDLIB.is_dir(), reason="no standard library sources")
def test_every_kind_equals_the_indexed_selection_over_the_standard_library() -> None:
    compared = 0
    for path in stdlib_sample():
        try:
            source = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        assert_same_as_indexed(Doc("python", source))
        compared += 1
    assert compared >= 40


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([("python", PY), ("yaml", K8S)]), st.lists(st.tuples(st.floats(0, 1), st.integers(1, 12))))
def test_broken_documents_give_the_indexed_selection_or_leave_it_to_the_index(
    document: tuple[str, str], cuts: list[tuple[float, int]]
) -> None:
    """Text cut anywhere (ERROR and MISSING nodes, zero-width nodes): the same answer, or None (the index answers)."""
    language, text = document
    for where, length in cuts:
        at = int(where * len(text))
        text = text[:at] + text[at + length :]
    doc = Doc(language, text)
    for selector, (kind, _, _) in KIND_SELECTORS.items():
        found = kind_in_document(doc.table, doc.tree, doc.text, kind)
        assert found is None or found == indexed(doc, selector), selector


def test_an_index_scans_without_numpy_what_it_scans_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up imports numpy later, in a worker: until then an index's positions and spans are found in Python."""
    doc = Doc("python", PY * 3)
    kinds = [doc.table.candidates(kind) for kind, _, _ in KIND_SELECTORS.values()]
    with_numpy = TreeIndex(doc.tree, doc.text)
    rows = list(range(0, len(with_numpy), 3))
    expected = [with_numpy.positions(k) for k in kinds], with_numpy.spans(rows)
    monkeypatch.setattr(index_module, "numpy_loaded", lambda: False)
    without = TreeIndex(doc.tree, doc.text)
    assert ([without.positions(k) for k in kinds], without.spans(rows)) == expected


@pytest.mark.parametrize("encoding", list(Encoding))
def test_ranges_without_numpy_equal_the_bulk_conversion(monkeypatch: pytest.MonkeyPatch, encoding: Encoding) -> None:
    text = "é = 1\r\nx = '🚀🚀'\n\ndef f():\r\n    return '東京'\n".encode()
    lines = LineIndex(text)
    spans = [(s, e) for s in range(len(text) + 1) for e in (s, len(text))]
    bulk = json_ranges(lines, spans, encoding)
    monkeypatch.setattr(lsp, "imported", lambda name: False)
    assert lsp._json_ranges(lines, spans, encoding) == bulk


@pytest.fixture
def selectors(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TetherServer, Selectors, list[str]]]:
    """A server in this process with the selectors feature; each index it builds is noted (by document uri)."""
    built: list[str] = []

    class Noted(TreeIndex):
        def __init__(self, tree: Tree, text: bytes, columns: dict[str, Any] | None = None) -> None:
            built.append("index")
            super().__init__(tree, text, columns)

    monkeypatch.setattr(latest, "TreeIndex", Noted)
    server = TetherServer("tether-lsp", "test")
    front: Selectors = server.router.install(lsp.FEATURE)
    try:
        yield server, front, built
    finally:
        server.workers.close()


def test_the_first_kind_selection_of_a_document_builds_no_index_and_the_next_selection_builds_it(
    selectors: tuple[TetherServer, Selectors, list[str]],
) -> None:
    """The first selection of a fresh document is a whole-document kind selection, answered without an index;
    from the next selection on, the index answers (built once, as before), with the same answer."""
    server, front, built = selectors
    uri = "file:///defs.py"
    did_open(server, types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, PY * 2)))
    functions = ApplySelectorParams(uri, "selectFunctions", [])
    first = front.apply(functions)
    assert built == [] and len(first.cursor_node_ids) == 2 * len(Doc("python", PY).chain("selectFunctions"))
    assert front.apply(functions) == first
    assert built == ["index"]
    assert front.apply(ApplySelectorParams(uri, "selectClasses", [])).cursor_node_ids
    assert front.apply(functions) == first
    assert built == ["index"]


def test_nested_nodes_are_numbered_walking_each_level_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The query hands nested captures innermost first; numbered in that order, each one walked the chain of
    ancestors down from near the root again (5,000 nested calls: 17 s, the hostile tier's timeout). In document
    order each level is entered once."""
    from tether_lsp.handlers.selectors import unindexed
    from tether_lsp.handlers.selectors.kinds import table_for
    from tether_lsp.server.syntax import parse_text

    depth = 400
    text = ("x = " + "f(" * depth + "1" + ")" * depth + "\n").encode()
    tree = parse_text("python", text)
    entered = 0
    push = unindexed._Numbering._push

    def counted(self: Any, node: Any) -> None:
        nonlocal entered
        entered += 1
        push(self, node)

    monkeypatch.setattr(unindexed._Numbering, "_push", counted)
    found = kind_in_document(table_for("python", tree.language), tree, text, "call")
    assert found is not None and len(found) == depth
    assert [start for _, start, _ in found] == sorted(start for _, start, _ in found)
    assert entered <= 3 * depth + 10, entered  # the old order entered ~depth²/2 levels
