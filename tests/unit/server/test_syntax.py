"""syntax.py + nodes.py: registry, incremental reparse == fresh parse, immutable snapshots, node ids."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tree_sitter import Node, Tree

from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.nodes import descendant_index
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.syntax import SNAPSHOTS_PER_URI, SyntaxCache, language_for, parse_text

PY = "class Café:\n    def f(self, x):\n        return [y for y in x if y]  # 東京\n\nasync def g():\n    await h('🚀')\n"
YAML = "a: 1\nb:\n  - x: é\n  - y: [1, 2]\n---\nc: |\n  text 🚀\n"


@pytest.mark.parametrize(
    ("language_id", "uri", "expected"),
    [
        ("python", "file:///a.txt", "python"),
        ("yaml", "file:///a", "yaml"),
        ("ansible", "file:///site.yml", "yaml"),
        ("github-actions-workflow", "file:///ci.yml", "yaml"),
        ("dockercompose", "file:///compose.yaml", "yaml"),
        ("helm", "file:///values.yaml", "yaml"),
        ("plaintext", "file:///x.pyi", "python"),  # unknown languageId: by extension
        ("", "file:///x.YML", "yaml"),
        ("plaintext", "file:///notes.txt", None),
        ("markdown", "untitled:Untitled-1", None),
    ],
)
def test_language_registry(language_id: str, uri: str, expected: str | None) -> None:
    spec = language_for(language_id, uri)
    assert (spec.name if spec else None) == expected


def sexp(tree: Tree) -> list[tuple[str, int, int, tuple[int, ...]]]:
    """Every node's type, byte span and start point: stricter than the s-expression alone."""
    return [(n.type, n.start_byte, n.end_byte, tuple(n.start_point)) for n in all_nodes(tree.root_node)]


def all_nodes(node: Node) -> list[Node]:
    out = [node]
    for child in node.children:
        out.extend(all_nodes(child))
    return out


def test_open_and_update_reparse_incrementally() -> None:
    cache = SyntaxCache()
    doc = Document("file:///a.py", "python", 1, PY)
    first = cache.open(doc)
    assert first.language == "python" and first.tree is not None and not first.tree.root_node.has_error
    doc.apply(2, [ContentChange("_renamed", (Pos(1, 9), Pos(1, 9)))], Encoding.UTF16)
    second = cache.update(doc)
    assert second.version == 2
    assert second.tree is not None
    assert sexp(second.tree) == sexp(parse_text("python", doc.current.text))
    # the older snapshot is untouched (its tree was copied before Tree.edit)
    assert first.tree.root_node.end_byte == len(PY.encode())
    assert cache.get("file:///a.py", 1) is first
    parses = cache.parse_count
    assert cache.get("file:///a.py") is second  # a request on the current version never reparses
    assert cache.parse_count == parses


def test_snapshots_are_bounded_per_uri() -> None:
    cache = SyntaxCache()
    doc = Document("file:///a.yaml", "yaml", 1, YAML)
    cache.open(doc)
    for v in range(2, 12):
        doc.apply(v, [ContentChange("z", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)
        cache.update(doc)
    assert cache.get("file:///a.yaml", 1) is None
    kept = [v for v in range(1, 12) if cache.get("file:///a.yaml", v)]
    assert kept == list(range(12 - SNAPSHOTS_PER_URI, 12))


def test_unsupported_language_has_no_tree() -> None:
    cache = SyntaxCache()
    snap = cache.open(Document("file:///n.txt", "plaintext", 1, "hello"))
    assert snap.tree is None and snap.ids is None and snap.text == b"hello"


def test_node_ids_are_unique_across_parses_and_resolve() -> None:
    cache = SyntaxCache()
    doc = Document("file:///a.py", "python", 1, PY)
    first = cache.open(doc)
    doc.apply(2, [ContentChange(PY)], Encoding.UTF16)  # same text: still a new parse with new ids
    second = cache.update(doc)
    assert first.ids is not None and second.ids is not None and first.tree and second.tree
    assert first.ids.base + first.ids.count <= second.ids.base
    for i, node in enumerate(all_nodes(second.tree.root_node)):
        node_id = second.ids.base + i
        assert second.ids.id_of(second.tree, node) == node_id
        assert second.ids.node(second.tree, node_id) == node
        assert first.ids.node(first.tree, node_id) is None  # stale for the other parse
    assert not second.ids.contains(first.ids.base)


def test_descendant_index_with_zero_width_nodes() -> None:
    tree = parse_text("python", b"def f(:\n  pass\nx = (1,\n")
    for i, node in enumerate(all_nodes(tree.root_node)):
        assert descendant_index(tree, node) == i


EDIT_TEXT = st.sampled_from(
    ["", "x", "é", "東京", "🚀", "\n", "\r\n", "    ", "def g():\n    pass\n", ": [1, 2]", "'", '"""', "(", "- a: b\n"]
)


@st.composite
def edit_sequences(draw: st.DrawFn) -> tuple[str, str, list[tuple[float, float, str]]]:
    language = draw(st.sampled_from(["python", "yaml"]))
    base = PY if language == "python" else YAML
    edits = draw(
        st.lists(
            st.tuples(st.floats(0, 1), st.floats(0, 1), EDIT_TEXT),
            min_size=1,
            max_size=12,
        )
    )
    return language, base, edits


@given(edit_sequences(), st.sampled_from(list(Encoding)))
def test_incremental_edits_match_a_fresh_parse(
    case: tuple[str, str, list[tuple[float, float, str]]], enc: Encoding
) -> None:
    """Random edit sequences with non-ASCII text: same text and same tree as parsing from scratch."""
    language, base, edits = case
    cache = SyntaxCache()
    doc = Document(f"file:///t.{'py' if language == 'python' else 'yaml'}", language, 1, base)
    cache.open(doc)
    expected = base
    for version, (a, b, new) in enumerate(edits, start=2):
        index = doc.current.index
        total = len(doc.current.text)
        start_off, end_off = sorted((int(a * total), int(b * total)))
        start = index.position_of(start_off, enc)
        end = index.position_of(end_off, enc)
        s_byte, e_byte = index.offset_of(start, enc), index.offset_of(end, enc)
        raw = doc.current.text
        expected = (raw[:s_byte] + new.encode() + raw[e_byte:]).decode()
        doc.apply(version, [ContentChange(new, (start, end))], enc)
        snap = cache.update(doc)
        assert snap.text.decode() == expected
        assert snap.tree is not None
        assert sexp(snap.tree) == sexp(parse_text(language, snap.text))


def test_tree_budget_evicts_least_recently_used_and_refills_with_the_same_ids() -> None:
    cache = SyntaxCache(tree_budget=2 * len(PY.encode()) + 10)
    docs = [Document(f"file:///{name}.py", "python", 1, PY) for name in "abc"]
    snaps = [cache.open(doc) for doc in docs]
    assert cache.resident_uris() == []  # nothing parsed yet: parsing waits for the first use
    for snap in snaps:
        assert snap.tree is not None
    assert cache.resident_uris() == ["file:///b.py", "file:///c.py"]
    assert not snaps[0].slot.resident
    cache.get("file:///b.py")  # a query keeps b recent
    parses = cache.parse_count
    tree = snaps[0].tree  # refilled on demand, one parse
    assert tree is not None
    assert cache.parse_count == parses + 1
    assert cache.resident_uris() == ["file:///b.py", "file:///a.py"]  # c was least recent
    ids = snaps[0].ids
    assert ids is not None
    for i, node in enumerate(all_nodes(tree.root_node)):
        assert ids.id_of(tree, node) == ids.base + i
    docs[2].apply(2, [ContentChange("x", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)
    updated = cache.update(docs[2])  # editing an evicted document works (refill, then incremental)
    assert updated.tree is not None
    assert sexp(updated.tree) == sexp(parse_text("python", updated.text))


def test_the_tree_budget_is_read_when_it_is_applied() -> None:
    """``tether.limits.treeCacheBytes`` changes at run time: the next use applies the new budget."""
    budget = [10 * len(PY.encode())]
    cache = SyntaxCache(tree_budget=lambda: budget[0])
    docs = [Document(f"file:///{name}.py", "python", 1, PY) for name in "abc"]
    for doc in docs:
        assert cache.open(doc).tree is not None
    assert cache.resident_uris() == ["file:///a.py", "file:///b.py", "file:///c.py"]

    def typed_into(doc: Document) -> None:
        doc.apply(doc.version + 1, [ContentChange("x", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)
        assert cache.update(doc).tree is not None

    budget[0] = len(PY.encode()) + 1  # one document's worth
    typed_into(docs[0])  # its next parse applies the new budget: the others go
    assert cache.resident_uris() == ["file:///a.py"]
    budget[0] = 0
    typed_into(docs[1])  # the document in use always keeps its tree
    assert cache.resident_uris() == ["file:///b.py"]


def test_a_burst_of_changes_costs_one_incremental_parse() -> None:
    cache = SyntaxCache()
    doc = Document("file:///burst.py", "python", 1, PY)
    first = cache.open(doc)
    assert first.tree is not None
    assert cache.parse_counts[doc.uri] == 1
    snaps = []
    for version in range(2, 62):  # sixty keystrokes, no request in between
        doc.apply(version, [ContentChange("x", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)
        snaps.append(cache.update(doc))
    assert cache.parse_counts[doc.uri] == 1  # nothing parsed while typing
    last = snaps[-1]
    assert last.tree is not None and last.ids is not None
    assert cache.parse_counts[doc.uri] == 2  # one parse for the sixty changes
    assert sexp(last.tree) == sexp(parse_text("python", last.text))  # the incremental result is right
    assert first.ids is not None and first.ids.base + first.ids.count <= last.ids.base  # fresh ids
    assert not snaps[-2].slot.is_parsed  # an intermediate version that nobody asked for never had ids


def test_the_next_parse_starts_from_the_latest_parsed_tree() -> None:
    cache = SyntaxCache()
    doc = Document("file:///steps.py", "python", 1, PY)
    assert cache.open(doc).tree is not None
    for version in range(2, 6):
        doc.apply(version, [ContentChange("# c\n", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)
        snap = cache.update(doc)
        if version % 2 == 0:
            assert snap.tree is not None
            assert sexp(snap.tree) == sexp(parse_text("python", snap.text))
    assert cache.parse_counts[doc.uri] == 3


def test_evicted_trees_are_freed() -> None:
    """The budget bounds memory, not just bookkeeping: an evicted tree is not kept alive by anything
    (the parse record held every tree ever parsed: 830 MB for 50 queried 10,000-line files)."""
    import tracemalloc

    text = PY * 300  # about 30 KB: its tree costs about 1 MB
    cache = SyntaxCache(tree_budget=2 * len(text.encode()) + 10)
    docs = [Document(f"file:///{k}.py", "python", 1, text) for k in range(12)]
    tracemalloc.start()
    try:
        for doc in docs:
            assert cache.open(doc).tree is not None
        one = parse_text("python", text.encode())
        traced_one = tracemalloc.get_traced_memory()[0]
        del one
        with_all = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(cache.resident_uris()) == 2
    assert with_all < 5 * (traced_one - with_all)  # about two trees resident, not twelve
