"""YAML members through the Member protocol: golden before/after texts of removal, clone and swap, and refusals.

Markers name the member by a text inside it (``name@n``: its n-th occurrence)."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.actions.model import ActionRefused

from .yaml_support import _marker, cloned, member_at, parses_cleanly, removed, swapped

REMOVALS = [
    ("first item", "k:\n  - a\n  - b\n  - c\n", "a", "k:\n  - b\n  - c\n"),
    ("middle item", "k:\n  - a\n  - b\n  - c\n", "b", "k:\n  - a\n  - c\n"),
    ("last item", "k:\n  - a\n  - b\n  - c\n", "c", "k:\n  - a\n  - b\n"),
    ("only item leaves []", "k:\n  - a\nj: 1\n", "a", "k: []\nj: 1\n"),
    ("only entry leaves {}", "k:\n  a: 1\nj: 1\n", "a:", "k: {}\nj: 1\n"),
    ("compact sequence", "k:\n- a\n- b\nj: 1\n", "b", "k:\n- a\nj: 1\n"),
    ("compact sequence emptied", "k:\n- a\nj: 1\n", "a", "k: []\nj: 1\n"),
    ("item that is a mapping", "- a: 1\n  b: 2\n- c: 3\n", "- a", "- c: 3\n"),
    ("first entry of an item's mapping", "- a: 1\n  b: 2\n- c: 3\n", "a: 1", "- b: 2\n- c: 3\n"),
    ("second entry of an item's mapping", "- a: 1\n  b: 2\n- c: 3\n", "b:", "- a: 1\n- c: 3\n"),
    ("only entry of an item's mapping", "- a: 1\n- c: 3\n", "a: 1", "- {}\n- c: 3\n"),
    ("dash on its own line", "-\n  a\n- b\n", "a", "- b\n"),
    ("entry with a nested block", "a:\n  b:\n    c: 1\nd: 2\n", "a:", "d: 2\n"),
    ("literal block scalar", "a: |\n  one\n  two\nb: 2\n", "a:", "b: 2\n"),
    ("folded block scalar, last", "a: 1\nb: >\n  one\n  two\n", "b:", "a: 1\n"),
    ("comment above goes", "a: 1\n# about b\nb: 2\nc: 3\n", "b:", "a: 1\nc: 3\n"),
    ("comment at the end of its line goes", "a: 1  # one\nb: 2\n", "a:", "b: 2\n"),
    ("comment apart by a blank line stays", "a: 1\n# loose\n\nb: 2\nc: 3\n", "b:", "a: 1\n# loose\n\nc: 3\n"),
    ("deeper comment under it goes", "a:\n  x: 1\n  # more x\nb: 2\n", "a:", "b: 2\n"),
    ("comment after the key stays", "k: # the list\n  - a\nj: 1\n", "a", "k: [] # the list\nj: 1\n"),
    ("blank lines on both sides: one side goes", "a: 1\n\nb: 2\n\nc: 3\n", "b:", "a: 1\n\nc: 3\n"),
    ("blank line before only stays", "a: 1\n\nb: 2\nc: 3\n", "b:", "a: 1\n\nc: 3\n"),
    ("blank line after only stays", "a: 1\nb: 2\n\nc: 3\n", "b:", "a: 1\n\nc: 3\n"),
    ("last takes its blank lines above", "s:\n  - a\n\n  - b\nt: 1\n", "b", "s:\n  - a\nt: 1\n"),
    ("last keeps the parent's blank line", "s:\n  - a\n  - b\n\nt: 1\n", "b", "s:\n  - a\n\nt: 1\n"),
    ("anchor on the emptied block", "k: &x\n  a: 1\nj: *x\n", "a:", "k: &x {}\nj: *x\n"),
    ("tag on the emptied block", "k: !!map\n  a: 1\n", "a:", "k: !!map {}\n"),
    ("only entry at the top", "a: 1\n", "a:", "{}\n"),
    ("second document", "a: 1\n---\nb: 2\nc: 3\n", "b:", "a: 1\n---\nc: 3\n"),
    ("explicit key", "? k\n: v\nj: 1\n", "k", "j: 1\n"),
    ("no newline at the end", "a: 1\nb: 2", "b:", "a: 1\n"),
    ("CRLF", "a: 1\r\n\r\nb: 2\r\n\r\nc: 3\r\n", "b:", "a: 1\r\n\r\nc: 3\r\n"),
    ("non-ASCII", "名前: 太郎\ncafé: crème 🍰\nz: 1\n", "café", "名前: 太郎\nz: 1\n"),
    ("tab after the colon", "a:\t1\nb: 2\n", "a:", "b: 2\n"),
    # flow
    ("flow first", "k: [a, b, c]\n", "a", "k: [b, c]\n"),
    ("flow middle", "k: [a, b, c]\n", "b", "k: [a, c]\n"),
    ("flow last", "k: [a, b, c]\n", "c", "k: [a, b]\n"),
    ("flow only", "k: [a]\n", "a", "k: []\n"),
    ("flow trailing comma kept", "k: [a, b,]\n", "b", "k: [a,]\n"),
    ("flow mapping", "k: {a: 1, b: 2}\n", "b", "k: {a: 1}\n"),
    ("flow set element", "k: !!set {a, b}\n", "a", "k: !!set {b}\n"),
    ("flow without spaces", "k: [a,b,c]\n", "b", "k: [a,c]\n"),
    ("flow own lines", "k: [\n  a,\n  b,\n]\n", "a", "k: [\n  b,\n]\n"),
    ("flow own lines, last with trailing comma", "k: [\n  a,\n  b,\n]\n", "b", "k: [\n  a,\n]\n"),
    ("flow own lines, last without", "k: [\n  a,\n  b\n]\n", "b", "k: [\n  a\n]\n"),
    ("flow comment on its line goes", "k: [\n  a,  # first\n  b\n]\n", "a", "k: [\n  b\n]\n"),
    ("flow last after a comment", "k: [a, # about a\n  b]\n", "b]", "k: [a # about a\n]\n"),
    ("flow nested", "k: {a: [1, 2], b: {c: 3}}\n", "2", "k: {a: [1], b: {c: 3}}\n"),
    ("flow pair in a sequence", "k: [a: 1, b]\n", "a", "k: [b]\n"),
    ("flow non-ASCII", "k: [é, 😀, 中]\n", "😀", "k: [é, 中]\n"),
    ("flow CRLF own lines", "k: [\r\n  a,\r\n  b\r\n]\r\n", "a", "k: [\r\n  b\r\n]\r\n"),
]


@pytest.mark.parametrize(("before", "marker", "after"), [pytest.param(*c[1:], id=c[0]) for c in REMOVALS])
def test_removal(before: str, marker: str, after: str) -> None:
    source = before.encode()
    result = removed(source, member_at(source, *_marker(marker)))
    assert result.decode() == after
    assert parses_cleanly(result)


CLONES = [
    ("item after", "k:\n  - a\n  - b\n", "a", True, "k:\n  - a\n  - a\n  - b\n"),
    ("item before", "k:\n  - a\n  - b\n", "b", False, "k:\n  - a\n  - b\n  - b\n"),
    ("item with a nested mapping", "- a: 1\n  b: 2\n", "- a", True, "- a: 1\n  b: 2\n- a: 1\n  b: 2\n"),
    ("inline first entry after", "- a: 1\n  b: 2\n", "a: 1", True, "- a: 1\n  a: 1\n  b: 2\n"),
    ("inline first entry before", "- a: 1\n  b: 2\n", "a: 1", False, "- a: 1\n  a: 1\n  b: 2\n"),
    (
        "entry with its comments",
        "a: 1\n# b's\nb: 2  # two\n",
        "b:",
        True,
        "a: 1\n# b's\nb: 2  # two\n# b's\nb: 2  # two\n",
    ),
    ("blank-line rhythm kept", "a: 1\n\nb: 2\n", "b:", True, "a: 1\n\nb: 2\n\nb: 2\n"),
    ("block scalar", "a: |\n  x\nb: 1\n", "a:", True, "a: |\n  x\na: |\n  x\nb: 1\n"),
    ("anchor renamed in the copy", "a: &x 1\nb: *x\n", "a:", True, "a: &x 1\na: &x2 1\nb: *x\n"),
    ("CRLF", "a:\r\n  - 1\r\n", "1", True, "a:\r\n  - 1\r\n  - 1\r\n"),
    ("flow after", "k: [a, b]\n", "a", True, "k: [a, a, b]\n"),
    ("flow last after", "k: [a, b]\n", "b", True, "k: [a, b, b]\n"),
    ("flow before", "k: [a, b]\n", "a", False, "k: [a, a, b]\n"),
    ("flow only", "k: [a]\n", "a", True, "k: [a, a]\n"),
    ("flow tight", "k: [a,b]\n", "b", True, "k: [a,b,b]\n"),
    ("flow trailing comma", "k: [a, b,]\n", "b", True, "k: [a, b, b,]\n"),
    ("flow own lines", "k: [\n  a,\n  b\n]\n", "b", True, "k: [\n  a,\n  b,\n  b\n]\n"),
    ("flow own line after a comment", "k: [\n  a, # one\n  b\n]\n", "a", True, "k: [\n  a, # one\n  a,\n  b\n]\n"),
    ("flow mapping entry", "k: {a: 1, b: 2}\n", "a", True, "k: {a: 1, a: 1, b: 2}\n"),
]


@pytest.mark.parametrize(("before", "marker", "after", "expected"), [pytest.param(*c[1:], id=c[0]) for c in CLONES])
def test_clone(before: str, marker: str, after: bool, expected: str) -> None:
    source = before.encode()
    result = cloned(source, member_at(source, *_marker(marker)), after)
    assert result.decode() == expected
    assert parses_cleanly(result)


SWAPS = [
    ("items", "- a\n- b\n", "a", "b", "- b\n- a\n"),
    ("entries with comments", "# A\na: 1\n# B\nb: 2\n", "a:", "b:", "# B\nb: 2\n# A\na: 1\n"),
    (
        "different depths re-indented",
        "a:\n  x:\n    y: 1\n    z: 2\nb:\n  w: 3\n",
        "x:",
        "w:",
        "a:\n  w: 3\nb:\n  x:\n    y: 1\n    z: 2\n",
    ),
    (
        "an inline entry and a deeper one",
        "- p: 1\n  q:\n    r: 2\n",
        "p:",
        "r:",
        "- r: 2\n  q:\n    p: 1\n",
    ),
    ("flow elements", "k: [a, b, c]\n", "a", "c", "k: [c, b, a]\n"),
    ("flow element and block item", "s: [a, b]\nt:\n  - c\n", "a", "- c", "s: [c, b]\nt:\n  - a\n"),
    ("flow pair and block entry", "s: {a: 1}\nt:\n  b: 2\n", "a", "b:", "s: {b: 2}\nt:\n  a: 1\n"),
    ("across documents", "a: 1\n---\nb: 2\n", "a:", "b:", "b: 2\n---\na: 1\n"),
    ("CRLF nested", "a:\r\n  - x\r\nb:\r\n  - y\r\n  - z\r\n", "- x", "- z", "a:\r\n  - z\r\nb:\r\n  - y\r\n  - x\r\n"),
]


@pytest.mark.parametrize(("before", "first", "second", "after"), [pytest.param(*c[1:], id=c[0]) for c in SWAPS])
def test_swap(before: str, first: str, second: str, after: str) -> None:
    source = before.encode()
    a, b = member_at(source, *_marker(first)), member_at(source, *_marker(second))
    result = swapped(source, a, b)
    assert result.decode() == after
    assert parses_cleanly(result)


REFUSALS = [
    (
        "removing an anchor its alias names",
        "a: &x 1\nb: *x\n",
        "remove",
        "a:",
        None,
        "anchor &x is used by *x on line 2",
    ),
    ("an entry into a sequence", "s:\n  - a\nm: 1\n", "swap", "- a", "m:", "a YAML entry cannot go in a sequence"),
    ("a block value into a flow", "s: [a]\nt:\n  - x: 1\n    y: 2\n", "swap", "a", "- x", "block value"),
    ("flow indicators in a plain scalar", "s: [a]\nt:\n  - x,y\n", "swap", "a", "- x", "would read otherwise"),
    ("an anchor moved after its alias", "a: &x 1\nb: *x\nc: 3\n", "swap", "a:", "c:", "&x would come after *x"),
    ("a document's top", "just text\n", "remove", "just", None, "not inside an item"),
]


@pytest.mark.parametrize(
    ("before", "action", "first", "second", "reason"), [pytest.param(*c[1:], id=c[0]) for c in REFUSALS]
)
def test_refusal(before: str, action: str, first: str, second: str | None, reason: str) -> None:
    source = before.encode()
    with pytest.raises(ActionRefused) as refused:
        a = member_at(source, *_marker(first))
        if action == "remove":
            removed(source, a)
        else:
            assert second is not None
            swapped(source, a, member_at(source, *_marker(second)))
    assert reason in refused.value.reason


def test_members_are_siblings_by_container() -> None:
    source = b"a:\n  - x\n  - y\nb: [p, q]\n"
    x, y, p = (member_at(source, m) for m in ("x", "y", "p"))
    assert x.container == y.container != p.container
    assert [source[slice(*s.span)] for s in x.siblings()] == [b"- x", b"- y"]
    assert (x.kind, p.kind, member_at(source, "a").kind) == ("item", "item", "entry")
