"""Carrying a span through edits, policy by policy at every edge: an edit before, after, inside, exactly at either
boundary, overlapping either boundary, covering the whole span, and the same around an empty span; then the
same rules counted in characters on accented, CJK and emoji text agreeing with the rules counted in bytes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tether_lsp.handlers.markers.buffer import CharEdit, char_edits
from tether_lsp.server.byte_edits import ByteEdit, make_edit
from tether_lsp.server.documents import TextVersion
from tether_lsp.server.positions import LineIndex
from tether_lsp.server.span_carry import GIVE_UP, HOLD_START, WIDEN, Carried, Overlap, Policy, carry_span

TEXT = b"0123456789abcdefghij"
POLICIES = {"widen": WIDEN, "hold start": HOLD_START, "give up": GIVE_UP}


def edit(start: int, end: int, new: bytes) -> ByteEdit:
    return make_edit(LineIndex(TEXT), start, end, new)


Row = tuple[str, tuple[int, int], ByteEdit, tuple[int, int] | None, tuple[int, int] | None, tuple[int, int] | None]
#: (what the edit does, the span, the edit, then the span after it under WIDEN, HOLD_START and GIVE_UP).
EDGES: list[Row] = [
    ("before", (5, 10), edit(0, 2, b"xyz"), (6, 11), (6, 11), (6, 11)),
    ("replaces text ending at the start", (5, 10), edit(2, 5, b"ABCDEF"), (8, 13), (8, 13), (8, 13)),
    ("inserts at the start", (5, 10), edit(5, 5, b"typed"), (10, 15), (10, 15), (10, 15)),
    ("inserts at the end", (5, 10), edit(10, 10, b"typed"), (5, 10), (5, 10), (5, 10)),
    ("replaces text starting at the end", (5, 10), edit(10, 12, b""), (5, 10), (5, 10), (5, 10)),
    ("inside", (5, 10), edit(6, 7, b"long"), (5, 13), (5, 13), (5, 13)),
    ("overlaps the start", (5, 10), edit(3, 7, b""), (3, 6), (5, 6), None),
    ("replaces from the start inwards", (5, 10), edit(5, 7, b"Z"), (5, 9), (5, 9), None),
    ("replaces inwards up to the end", (5, 10), edit(8, 10, b""), (5, 8), (5, 8), None),
    ("overlaps the end", (5, 10), edit(8, 12, b"Z"), (5, 9), (5, 9), None),
    ("covers the span", (5, 10), edit(4, 11, b"new"), (4, 7), (5, 7), None),
    ("removes exactly the span", (5, 10), edit(5, 10, b""), (5, 5), (5, 5), None),
    ("inserts at an empty span", (5, 5), edit(5, 5, b"ab"), (7, 7), (7, 7), (7, 7)),
    ("replaces around an empty span", (5, 5), edit(3, 8, b"xyz"), (6, 6), (5, 6), None),
    ("replaces text ending at an empty span", (5, 5), edit(3, 5, b""), (3, 3), (3, 3), None),
    ("replaces text starting at an empty span", (5, 5), edit(5, 8, b""), (5, 5), (5, 5), None),
]


@pytest.mark.parametrize(("policy", "column"), [("widen", 3), ("hold start", 4), ("give up", 5)])
@pytest.mark.parametrize("row", EDGES, ids=[row[0] for row in EDGES])
def test_each_policy_at_each_edge(row: Row, policy: str, column: int) -> None:
    span, the_edit, expected = row[1], row[2], row[column]
    carried = carry_span(span[0], span[1], [the_edit], POLICIES[policy])
    assert (None if carried is None else (carried.start, carried.end)) == expected


@pytest.mark.parametrize(
    ("span", "the_edit", "touched", "gone"),
    [
        ((5, 10), edit(0, 2, b"xyz"), False, False),
        ((5, 10), edit(5, 5, b"x"), False, False),  # inserted at a boundary: outside, untouched
        ((5, 10), edit(10, 10, b"x"), False, False),
        ((5, 10), edit(6, 7, b"x"), True, False),
        ((5, 10), edit(3, 7, b""), True, False),
        ((5, 10), edit(5, 10, b"new"), True, True),
        ((5, 10), edit(4, 11, b""), True, True),
        ((5, 5), edit(3, 8, b""), True, False),  # an empty span is never gone
        ((5, 5), edit(5, 8, b""), False, False),
        ((5, 5), edit(3, 5, b"xy"), False, False),  # ending exactly at it: before it
    ],
)
def test_touched_and_gone(span: tuple[int, int], the_edit: ByteEdit, touched: bool, gone: bool) -> None:
    carried = carry_span(span[0], span[1], [the_edit], WIDEN)
    assert carried is not None
    assert (carried.touched, carried.gone) == (touched, gone)


def test_touched_and_gone_last_through_later_edits() -> None:
    gone = edit(5, 10, b"")
    later = make_edit(LineIndex(gone.apply(TEXT)), 0, 1, b"")
    assert carry_span(5, 10, [gone, later], WIDEN) == Carried(4, 4, True, True)


def test_a_point_that_lands_after_a_replacement_moves_on_with_later_edits() -> None:
    replaced = edit(3, 8, b"xyz")
    later = make_edit(LineIndex(replaced.apply(TEXT)), 0, 2, b"")
    assert carry_span(5, 5, [replaced, later], WIDEN) == Carried(4, 4, True, False)


def test_an_end_that_holds_stays_with_the_start_it_cannot_pass() -> None:
    holds = Policy(Overlap.WIDEN, Overlap.HOLD)
    assert carry_span(5, 10, [edit(8, 12, b"")], holds) == Carried(5, 10, True, False)
    assert carry_span(5, 10, [edit(2, 12, b"")], holds) == Carried(2, 10, True, True)


# --- the rules counted in characters agree with the rules counted in bytes ------------------------------------------

PIECES = ["a", "é", "東京", "🚀", "\n", " ", "ü\n"]


def point_of(text: bytes, offset: int) -> tuple[int, int]:
    """A byte offset as a 0-based (line, character) point."""
    before = text[:offset].decode("utf-8")
    return before.count("\n"), len(before.rpartition("\n")[2])


@st.composite
def texts_spans_and_edits(draw: st.DrawFn) -> tuple[bytes, tuple[int, int], list[ByteEdit]]:
    """A text of non-ASCII pieces, a span and 1-3 edits, every position between two pieces (a character
    boundary)."""
    pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12))
    text = "".join(pieces).encode()

    def boundaries(pieces: list[str]) -> list[int]:
        out, at = [0], 0
        for piece in pieces:
            at += len(piece.encode())
            out.append(at)
        return out

    cuts = boundaries(pieces)
    start = draw(st.sampled_from(cuts))
    span = (start, draw(st.sampled_from([c for c in cuts if c >= start])))
    edits: list[ByteEdit] = []
    current = text
    for _ in range(draw(st.integers(1, 3))):
        cuts = boundaries(pieces)
        a = draw(st.sampled_from(cuts))
        b = draw(st.sampled_from([c for c in cuts if c >= a]))
        new = draw(st.lists(st.sampled_from(PIECES), max_size=3))
        made = make_edit(LineIndex(current), a, b, "".join(new).encode())
        edits.append(made)
        first, last = cuts.index(a), cuts.index(b)
        pieces = pieces[:first] + new + pieces[last:]
        current = made.apply(current)
    return text, span, edits


@given(texts_spans_and_edits(), st.sampled_from(["widen", "give up"]))
def test_characters_and_bytes_give_the_same_span(
    case: tuple[bytes, tuple[int, int], list[ByteEdit]], name: str
) -> None:
    """HOLD_START is left out: a start held through an edit over it is a position of the text before the edit,
    which has no counterpart in the other unit once the text changed."""
    text, (start, end), edits = case
    in_bytes = carry_span(start, end, edits, POLICIES[name])
    in_chars = carry_span(
        point_of(text, start), point_of(text, end), char_edits(TextVersion(1, text), edits), POLICIES[name]
    )
    if in_bytes is None:
        assert in_chars is None
        return
    after = text
    for made in edits:
        after = made.apply(after)
    assert in_chars == Carried(
        point_of(after, in_bytes.start), point_of(after, in_bytes.end), in_bytes.touched, in_bytes.gone
    )


@given(texts_spans_and_edits())
def test_giving_up_is_the_only_difference_and_an_untouched_span_keeps_its_text(
    case: tuple[bytes, tuple[int, int], list[ByteEdit]],
) -> None:
    text, (start, end), edits = case
    answers = {name: carry_span(start, end, edits, policy) for name, policy in POLICIES.items()}
    widened, held, strict = answers["widen"], answers["hold start"], answers["give up"]
    assert widened is not None
    assert held is not None
    if strict is not None:  # no edit overlapped a boundary: every policy agrees
        assert strict == widened == held
    if not widened.touched:
        after = text
        for made in edits:
            after = made.apply(after)
        assert after[widened.start : widened.end] == text[start:end]
        assert widened == held  # (an empty span an edit replaces from is untouched, yet GIVE_UP gives up)


@pytest.mark.parametrize(
    ("span", "the_edit", "expected"),
    [
        (((0, 8), (0, 10)), CharEdit((0, 5), (0, 7), "🚀"), ((0, 7), (0, 9))),  # 東京 → 🚀 before: one column left
        (((0, 8), (0, 10)), CharEdit((0, 8), (0, 8), "é"), ((0, 9), (0, 11))),  # inserted at the start: outside
        (((0, 8), (0, 10)), CharEdit((0, 10), (0, 10), "東"), ((0, 8), (0, 10))),  # inserted at the end: outside
        (((0, 8), (0, 10)), CharEdit((0, 9), (0, 9), "é\n東"), ((0, 8), (1, 2))),  # inside, a new line
        (((0, 8), (0, 10)), CharEdit((0, 2), (0, 8), "\n"), ((1, 0), (1, 2))),  # ending at the start
        (((0, 8), (0, 10)), CharEdit((0, 7), (0, 9), ""), None),  # overlapping the start
    ],
)
def test_characters_on_a_line_of_accents_cjk_and_emoji(
    span: tuple[tuple[int, int], tuple[int, int]], the_edit: CharEdit, expected: tuple[tuple[int, int], ...] | None
) -> None:
    # the line: "café 東京 🚀ü!" — columns count characters (🚀 is one, though two UTF-16 units and four bytes)
    carried = carry_span(span[0], span[1], [the_edit], GIVE_UP)
    assert (None if carried is None else (carried.start, carried.end)) == expected
