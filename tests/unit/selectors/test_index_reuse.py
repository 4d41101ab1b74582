"""What a spliced index reuses from the previous version's: exactly the subtrees the module doc promises.

test_index_splice checks that a splice is *right* (equal to a full walk); these check that it is *cheap*, as
promised: ``copied_rows`` is compared with a model of the rule written against tree-sitter's own nodes. Down
the path to the change, a child is reused when it lies wholly before or after the changed bytes without
touching them, keeps its kind and its (shifted) span, counts the same nodes and holds no syntax error in
either tree; the walk goes down while exactly one child on each side is left between them, of the same kind.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tree_sitter import Node

from tests.unit.selectors.sources import K8S, PY
from tether_lsp.handlers.selectors.index import TreeIndex
from tether_lsp.handlers.selectors.index_rows import COLUMNS
from tether_lsp.handlers.selectors.index_splice import SPLICE_MAX_CHANGED_SHARE, SPLICE_MAX_DEPTH
from tether_lsp.server.syntax import parse_text

SOURCES = {"python": PY, "yaml": K8S}
TOKENS = ["x", "1", " ", "\n", "    ", '"', "(", ")", "[", "]", ":", ",", "#", "é", "- a: 1\n", "def f():\n    pass\n"]


def changed_bytes(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, end) of the old bytes that differ, and the length change: longest common prefix, then suffix."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, len(old) - suffix, len(new) - len(old)


def promised_reuse(old_root: Node, new_root: Node, old: bytes, new: bytes) -> int:
    """The rows a splice takes from the old index, by the rule in the module doc (0: a full walk)."""
    start, end, delta = changed_bytes(old, new)
    if end - start > SPLICE_MAX_CHANGED_SHARE * max(len(old), 1) or old_root.kind_id != new_root.kind_id:
        return 0

    def same(a: Node, b: Node, shift: int) -> bool:
        return a.kind_id == b.kind_id and (a.start_byte + shift, a.end_byte + shift) == (b.start_byte, b.end_byte)

    def reusable(a: Node, b: Node) -> int:
        unchanged = not a.has_error and not b.has_error and a.descendant_count == b.descendant_count
        return a.descendant_count if unchanged else 0

    reused, depth, old_node, new_node = 0, 0, old_root, new_root
    while True:
        olds, news = old_node.children, new_node.children
        before = 0
        while before < min(len(olds), len(news)) and olds[before].end_byte < start:
            if not same(olds[before], news[before], 0):
                break
            before += 1
        after = 0
        while after < min(len(olds), len(news)) - before and olds[-1 - after].start_byte > end:
            if not same(olds[-1 - after], news[-1 - after], delta):
                break
            after += 1
        aligned = [*zip(olds[:before], news[:before], strict=True)]
        aligned += zip(olds[len(olds) - after :], news[len(news) - after :], strict=True)
        reused += sum(reusable(a, b) for a, b in aligned)
        middle_old, middle_new = olds[before : len(olds) - after], news[before : len(news) - after]
        if len(middle_old) != 1 or len(middle_new) != 1 or middle_old[0].kind_id != middle_new[0].kind_id:
            return reused
        depth += 1
        if depth > SPLICE_MAX_DEPTH:
            return 0
        old_node, new_node = middle_old[0], middle_new[0]


def splice(language: str, old: bytes, new: bytes) -> tuple[TreeIndex, int]:
    """The spliced index (checked equal to a full walk) and the reuse the rule promises."""
    old_tree, new_tree = parse_text(language, old), parse_text(language, new)
    index = TreeIndex.updated(TreeIndex(old_tree, old), new_tree, new)
    fresh = TreeIndex(new_tree, new)
    for name, _, _ in COLUMNS:
        assert bytes(getattr(index, name)) == bytes(getattr(fresh, name)), name
    return index, promised_reuse(old_tree.root_node, new_tree.root_node, old, new)


def edited(text: bytes, where: float, delete: int, insert: str) -> bytes:
    at = int(where * len(text))
    while at < len(text) and (text[at] & 0xC0) == 0x80:  # keep the text valid UTF-8
        at += 1
    end = min(len(text), at + delete)
    while end < len(text) and (text[end] & 0xC0) == 0x80:
        end += 1
    return text[:at] + insert.encode() + text[end:]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(SOURCES)),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 6), st.sampled_from(TOKENS)), min_size=1, max_size=3),
)
@example("python", [(0.5, 1, "7")])  # a one-byte replacement in the middle
@example("python", [(0.0, 0, "x = 1\n")])  # an insertion before everything: all old statements come after it
@example("yaml", [(1.0, 0, "- a: 1\n")])  # after everything
def test_a_splice_reuses_what_the_rule_promises(language: str, edits: list[tuple[float, int, str]]) -> None:
    text = SOURCES[language].encode()
    for where, delete, insert in edits:
        new = edited(text, where, delete, insert)
        index, promised = splice(language, text, new)
        assert index.copied_rows == promised
        text = new


def test_a_child_touching_the_changed_bytes_is_walked_not_reused() -> None:
    """A statement typed right before another: the one after starts where the change ends, so it is walked
    again with the new one (the lexer and error recovery look across the join); the one before is reused."""
    old = b"a = 1\nb = 2\n"
    first = parse_text("python", old).root_node.children[0].descendant_count
    index, promised = splice("python", old, b"a = 1\nc = 3\nb = 2\n")
    assert index.copied_rows == promised == first
    # the mirror: typed right after a statement, which ends where the change starts
    index, promised = splice("python", old, b"a = 1\nb = 2;c = 3\n")
    assert index.copied_rows == promised == first


def test_a_same_length_edit_between_statements_reuses_both_sides() -> None:
    """Only whitespace between two statements changes, keeping its length: both are copied (as one slice: the
    same shift on either side of the change) and only the root is visited."""
    old, new = b"a = 1\n\n\nb = 2\n", b"a = 1\n \nb = 2\n"
    index, promised = splice("python", old, new)
    assert index.copied_rows == promised == len(index) - 1
    # and a whole block of them, inside a function body
    body = b"".join(b"    v%d = %d\n" % (n, n) for n in range(6))
    old = b"def f():\n" + body + b"\n\n\n" + body
    new = b"def f():\n" + body + b"\n\t\n" + body
    index, promised = splice("python", old, new)
    assert index.copied_rows == promised > 0.9 * len(index)


def test_a_one_byte_replacement_is_spliced() -> None:
    text = PY.encode()
    at = text.index(b"size: int = 3") + len("size: int = ")
    index, promised = splice("python", text, text[:at] + b"4" + text[at + 1 :])
    assert index.copied_rows == promised > 0.9 * len(index)


def test_a_sibling_with_a_syntax_error_is_walked_not_reused() -> None:
    """Error recovery depends on context far away: a statement holding an ERROR is never copied, even when
    its kind and span are unchanged. Here only `y` and `=` of the edited statement are reused."""
    old, new = b"x = [1 2]\ny = 1\n", b"x = [1 2]\ny = 2\n"
    broken = parse_text("python", old).root_node.children[0]
    assert broken.has_error and broken.end_byte < old.index(b"1\n", 10)
    index, promised = splice("python", old, new)
    assert index.copied_rows == promised == 2
    # the same edit with the error fixed: the first statement is reused whole
    fixed_old, fixed_new = (text.replace(b"1 2", b"1, 2") for text in (old, new))
    first = parse_text("python", fixed_old).root_node.children[0].descendant_count
    index, promised = splice("python", fixed_old, fixed_new)
    assert index.copied_rows == promised == 2 + first


@pytest.mark.parametrize("extra", [0, 1])
def test_a_change_of_exactly_the_share_is_spliced_and_one_byte_more_is_walked(extra: int) -> None:
    kept = b"x = 1\n" * 10
    old = kept + b"w = '" + b"a" * (len(kept) + 3 + extra) + b"'\n"  # the string's bytes all change
    new = kept + b"w = 0\n"
    start, end, _ = changed_bytes(old, new)
    assert end - start == SPLICE_MAX_CHANGED_SHARE * len(old) + extra / 2
    index, promised = splice("python", old, new)
    assert index.copied_rows == promised
    assert (index.copied_rows > 0) == (extra == 0)


def test_the_deepest_change_spliced_is_max_depth_levels_down() -> None:
    """A changed node SPLICE_MAX_DEPTH levels below the root is spliced; one level more is walked."""
    outcomes = {}
    for depth in range(SPLICE_MAX_DEPTH - 6, SPLICE_MAX_DEPTH):  # the integer is 3 levels below the parentheses
        # spaces inside the parentheses: they do not touch the changed digit, so the walk goes down to it
        old = b"y = 0\nx = " + b"( " * depth + b"1" + b" )" * depth + b"\n"
        new = old.replace(b"1", b"2")
        tree = parse_text("python", new)
        node = tree.root_node.descendant_for_byte_range(new.index(b"2"), new.index(b"2") + 1)
        assert node is not None and node.type == "integer"
        levels = 0
        while node.parent is not None:
            node, levels = node.parent, levels + 1
        index, promised = splice("python", old, new)
        assert index.copied_rows == promised
        outcomes[levels] = index.copied_rows > 0
    assert outcomes[SPLICE_MAX_DEPTH] is True
    assert outcomes[SPLICE_MAX_DEPTH + 1] is False
