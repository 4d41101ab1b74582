"""Carrying a base span through user edits (placing a model's edit on the current text), rule by rule and at every
boundary: text inserted exactly at either end stays outside; an edit ending where the span starts only moves it."""

from __future__ import annotations

from tether_lsp.server.byte_edits import ByteEdit, make_edit
from tether_lsp.server.positions import LineIndex
from tether_lsp.server.span_carry import Carried, carry

TEXT = b"0123456789abcdefghij"


def edit(start: int, end: int, new: bytes) -> ByteEdit:
    return make_edit(LineIndex(TEXT), start, end, new)


def test_an_edit_before_the_span_moves_it() -> None:
    assert carry(5, 10, [edit(0, 2, b"xyz")]) == Carried(6, 11, False, False)


def test_a_replacement_ending_exactly_at_the_start_moves_it_untouched() -> None:
    assert carry(5, 10, [edit(2, 5, b"ABCDEF")]) == Carried(8, 13, False, False)


def test_an_insertion_exactly_at_the_start_stays_outside() -> None:
    assert carry(5, 10, [edit(5, 5, b"typed")]) == Carried(10, 15, False, False)


def test_an_insertion_exactly_at_the_end_stays_outside() -> None:
    assert carry(5, 10, [edit(10, 10, b"typed")]) == Carried(5, 10, False, False)


def test_a_replacement_starting_exactly_at_the_end_stays_outside() -> None:
    assert carry(5, 10, [edit(10, 12, b"")]) == Carried(5, 10, False, False)


def test_an_edit_inside_widens_and_touches() -> None:
    assert carry(5, 10, [edit(6, 7, b"long")]) == Carried(5, 13, True, False)


def test_an_edit_over_the_first_half_touches_but_keeps_the_rest() -> None:
    result = carry(5, 10, [edit(3, 7, b"")])  # removes 3..7: the span keeps 7..10, now at 3..6
    assert result == Carried(3, 6, True, False)


def test_an_edit_over_the_second_half_touches_but_keeps_the_rest() -> None:
    assert carry(5, 10, [edit(8, 12, b"Z")]) == Carried(5, 9, True, False)


def test_an_edit_over_all_of_it_is_gone() -> None:
    assert carry(5, 10, [edit(4, 11, b"new")]) == Carried(4, 7, True, True)
    assert carry(5, 10, [edit(5, 10, b"")]) == Carried(5, 5, True, True)


def test_an_empty_span_inside_a_replaced_region_is_touched() -> None:
    assert carry(5, 5, [edit(3, 8, b"xy")]) == Carried(5, 5, True, False)


def test_edits_apply_in_order() -> None:
    edits = [edit(0, 0, b"AA"), edit(12, 12, b"B")]  # the second is in the text after the first
    assert carry(5, 10, edits) == Carried(7, 12, False, False)
