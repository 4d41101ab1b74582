"""comment_edits.py: a YAML edit inside a comment skips the parse, and the tree is exactly a fresh parse's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_sitter import Node, Tree

from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.syntax import Snapshot, SyntaxCache, parse_text

LINES = [
    "# top comment",
    "key: value  # trailing comment",
    "list:",
    "  - a  # é",
    "  # indented comment 東京",
    "  - b: [1, 2]  #🚀",
    "block: |",
    "  not # a comment",
    "  # nor this",
    "quoted: 'a # b'  # but this is",
    "---",
    "# second document",
    "n: 1",
    "#",
]

#: What typing may put in a comment: anything but line breaks and NUL.
BODY = st.text(st.sampled_from(list("ab #:-'\"\t{}[]|>é東🚀\\")), max_size=4)


def nodes(tree: Tree) -> list[tuple[str, int, int, tuple[int, int], tuple[int, int]]]:
    out: list[tuple[str, int, int, tuple[int, int], tuple[int, int]]] = []
    stack: list[Node] = [tree.root_node]
    while stack:
        node = stack.pop()
        start, end = node.start_point, node.end_point
        out.append((node.type, node.start_byte, node.end_byte, (start.row, start.column), (end.row, end.column)))
        stack.extend(reversed(node.children))
    return out


def comments(text: bytes) -> list[tuple[int, int]]:
    tree = parse_text("yaml", text)
    return [(start, end) for kind, start, end, _, _ in nodes(tree) if kind == "comment"]


def position(text: bytes, offset: int) -> Pos:
    before = text[:offset].decode()
    line = before.count("\n")
    return Pos(line, len(before[before.rfind("\n") + 1 :].encode("utf-16-le")) // 2)


def boundaries(text: bytes, start: int, end: int) -> list[int]:
    """Character boundaries in ``text[start:end + 1]``."""
    return [i for i in range(start, end + 1) if i == len(text) or (text[i] & 0xC0) != 0x80]


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=12))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + draw(st.sampled_from(["", newline]))


def open_parsed(text: str) -> tuple[SyntaxCache, Document]:
    cache = SyntaxCache()
    doc = Document("file:///c.yaml", "yaml", 1, text)
    assert cache.open(doc).tree is not None
    return cache, doc


def opened(text: str) -> tuple[SyntaxCache, Document, Snapshot]:
    cache, doc = open_parsed(text)
    snapshot = cache.latest(doc.uri)
    assert snapshot is not None
    return cache, doc, snapshot


@settings(max_examples=300, deadline=None)
@given(documents(), st.data())
def test_typing_in_comments_gives_a_fresh_parse_s_tree_without_parsing(text: str, data: st.DataObject) -> None:
    cache, doc, snapshot = opened(text)
    if not comments(doc.current.text):
        return
    version = 1
    for _ in range(data.draw(st.integers(1, 6))):
        current = doc.current.text
        start, end = data.draw(st.sampled_from(comments(current)))
        first = data.draw(st.sampled_from(boundaries(current, start + 1, end)))
        last = data.draw(st.sampled_from(boundaries(current, first, end)))
        version += 1
        change = ContentChange(data.draw(BODY), (position(current, first), position(current, last)))
        doc.apply(version, [change], Encoding.UTF16)
        snapshot = cache.update(doc)
        if data.draw(st.booleans()):  # sometimes a request in between, sometimes a burst
            assert snapshot.tree is not None
    assert snapshot.tree is not None
    assert nodes(snapshot.tree) == nodes(parse_text("yaml", doc.current.text))
    if not parse_text("yaml", text.encode()).root_node.has_error:
        assert cache.parse_counts[doc.uri] == 1  # only the first parse, when opened


@settings(max_examples=200, deadline=None)
@given(documents(), st.data())
def test_any_edit_after_comment_edits_still_parses_right(text: str, data: st.DataObject) -> None:
    """A tree that skipped its parse is a sound base for the next incremental parse."""
    cache, doc, snapshot = opened(text)
    version = 1
    for _ in range(data.draw(st.integers(1, 5))):
        current = doc.current.text
        found = comments(current)
        anywhere = boundaries(current, 0, len(current))
        if len(found) > 0 and data.draw(st.booleans()):
            start, end = data.draw(st.sampled_from(found))
            first = data.draw(st.sampled_from(boundaries(current, start + 1, end)))
            last = data.draw(st.sampled_from(boundaries(current, first, end)))
            body = data.draw(BODY)
        else:
            first = data.draw(st.sampled_from(anywhere))
            last = data.draw(st.sampled_from([b for b in anywhere if b >= first]))
            body = data.draw(st.sampled_from(["x", "\n", "# c\n", ": v", "- ", "#", ""]))
        if b"\r" in current and "\n" in body:
            body = body.replace("\n", "\r\n")
        version += 1
        doc.apply(version, [ContentChange(body, (position(current, first), position(current, last)))], Encoding.UTF16)
        snapshot = cache.update(doc)
        if data.draw(st.booleans()):
            assert snapshot.tree is not None
            assert nodes(snapshot.tree) == nodes(parse_text("yaml", doc.current.text))
    assert snapshot.tree is not None
    assert nodes(snapshot.tree) == nodes(parse_text("yaml", doc.current.text))


BASE = "a: 1\n# note\nb: |\n  x # y\nc: 2\n"


@pytest.mark.parametrize(
    ("change", "skips"),
    [
        (ContentChange("z", (Pos(1, 6), Pos(1, 6))), True),  # at the comment's end
        (ContentChange("z", (Pos(1, 1), Pos(1, 1))), True),  # right after '#'
        (ContentChange("", (Pos(1, 2), Pos(1, 6))), True),  # its whole body
        (ContentChange("", (Pos(1, 1), Pos(1, 6))), True),
        (ContentChange("z", (Pos(1, 0), Pos(1, 0))), False),  # before '#': no longer a comment
        (ContentChange("", (Pos(1, 0), Pos(1, 1))), False),  # the '#' itself
        (ContentChange("\n", (Pos(1, 3), Pos(1, 3))), False),  # a line break splits it
        (ContentChange("\r", (Pos(1, 3), Pos(1, 3))), False),
        (ContentChange("\x00", (Pos(1, 3), Pos(1, 3))), False),  # the grammar stops a comment at NUL
        (ContentChange("", (Pos(1, 3), Pos(2, 0))), False),  # past its end: joins the next line
        (ContentChange("z", (Pos(3, 5), Pos(3, 5))), False),  # '#' inside a block scalar is text
        (ContentChange("z", (Pos(0, 3), Pos(0, 3))), False),  # not in a comment at all
    ],
)
def test_which_edits_skip_the_parse(change: ContentChange, skips: bool) -> None:
    cache, doc = open_parsed(BASE)
    doc.apply(2, [change], Encoding.UTF16)
    snapshot = cache.update(doc)
    assert snapshot.tree is not None
    assert nodes(snapshot.tree) == nodes(parse_text("yaml", doc.current.text))
    assert cache.parse_counts[doc.uri] == (1 if skips else 2)


def test_two_changes_in_one_version_skip_only_when_both_stay_in_comments() -> None:
    cache, doc = open_parsed(BASE)
    both = [ContentChange("z", (Pos(1, 6), Pos(1, 6))), ContentChange("é", (Pos(1, 2), Pos(1, 2)))]
    doc.apply(2, both, Encoding.UTF16)
    assert cache.update(doc).tree is not None
    assert cache.parse_counts[doc.uri] == 1
    mixed = [ContentChange("z", (Pos(1, 3), Pos(1, 3))), ContentChange("9", (Pos(0, 3), Pos(0, 4)))]
    doc.apply(3, mixed, Encoding.UTF16)
    snapshot = cache.update(doc)
    assert snapshot.tree is not None
    assert nodes(snapshot.tree) == nodes(parse_text("yaml", doc.current.text))
    assert cache.parse_counts[doc.uri] == 2


def test_comments_in_a_text_with_syntax_errors_are_parsed() -> None:
    """The counterexample hypothesis found: error recovery changed with the length of a comment."""
    text = "key: value  # trailing comment\n# top\n  - a  # é"
    cache, doc = open_parsed(text)
    doc.apply(2, [ContentChange("", (Pos(0, 13), Pos(0, 23)))], Encoding.UTF16)
    snapshot = cache.update(doc)
    assert snapshot.tree is not None
    assert nodes(snapshot.tree) == nodes(parse_text("yaml", doc.current.text))
    assert cache.parse_counts[doc.uri] == 2


def test_python_comments_are_parsed_as_before() -> None:
    cache = SyntaxCache()
    doc = Document("file:///c.py", "python", 1, "x = 1  # note\n")
    assert cache.open(doc).tree is not None
    doc.apply(2, [ContentChange("z", (Pos(0, 13), Pos(0, 13)))], Encoding.UTF16)
    assert cache.update(doc).tree is not None
    assert cache.parse_counts[doc.uri] == 2


def test_typing_before_a_comment_at_the_very_start_is_parsed() -> None:
    cache, doc = open_parsed("# c\nk: v\n")
    doc.apply(2, [ContentChange("z", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)
    snapshot = cache.update(doc)
    assert snapshot.tree is not None
    assert nodes(snapshot.tree) == nodes(parse_text("yaml", doc.current.text))
    assert cache.parse_counts[doc.uri] == 2
