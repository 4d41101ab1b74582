"""The playground resolver's thresholds and tie rules at their boundaries: how a file and a prompt keep their ids across
edits, reorders and renames (docs/playground.md, "Identity")."""

from __future__ import annotations

import pytest

from tests.unit.playground.test_resolver import mp, p
from tether_lsp.handlers.playground.resolver import (
    ANCHOR_BONUS,
    SHORT,
    Thresholds,
    match_prompts,
    match_prompts_by_distance,
    similarity,
)


@pytest.mark.parametrize(
    ("a", "b", "short"),
    [
        ("x" * (SHORT - 1), "y" * (SHORT - 1), True),  # both short: the stricter threshold
        ("x" * (SHORT - 1), "y" * SHORT, False),  # one at the limit: not short
        ("x" * SHORT, "y" * (SHORT - 1), False),
        ("x" * 100, "y" * 5, False),  # either long: the normal threshold
    ],
)
def test_the_short_threshold_needs_both_texts_short(a: str, b: str, short: bool) -> None:
    limits = Thresholds(pair=0.1, short_pair=0.9)
    assert limits.for_pair(a, b) == (0.9 if short else 0.1)


def test_a_pair_exactly_at_the_threshold_matches() -> None:
    old, new = "a" * 50 + "b" * 50, "a" * 50 + "c" * 50  # similarity 0.5 exactly
    assert similarity(old, new) == 0.5
    pairs, _, todo, scores = match_prompts_by_distance([mp("m", old)], [p(new)], [0], Thresholds(pair=0.5))
    assert list(pairs) == [0]
    assert scores == [0.5]
    pairs, _, todo, _ = match_prompts_by_distance([mp("m", old)], [p(new)], [0], Thresholds(pair=0.51))
    assert pairs == {}
    assert todo == [0]


def test_the_anchor_bonus_decides_between_two_near_candidates() -> None:
    base = "Summarise the following ticket for the on-call engineer in three lines please"
    closer = base + " now"
    farther = base + " right now"
    assert similarity(base, closer) - similarity(base, farther) < ANCHOR_BONUS
    pairs, *_ = match_prompts_by_distance(
        [mp("m", base, anchor="SUMMARY")], [p(closer, anchor="OTHER"), p(farther, anchor="SUMMARY")], [0, 1]
    )
    assert pairs[1].id == "m"  # the same anchor wins over a slightly closer text


def test_ties_go_to_the_nearer_position() -> None:
    text = "Translate the following text into French and keep the tone of the original"
    twins = [p(text + " A", anchor="A", at=0), p(text + " B", anchor="B", at=100), p(text + " C", anchor="C", at=200)]
    pairs, *_ = match_prompts_by_distance([mp("m", text + " Z", anchor="M", order=2)], twins, [0, 1, 2])
    assert list(pairs) == [2]


def test_each_map_prompt_and_each_parsed_prompt_pair_once() -> None:
    text = "Write a haiku about the sea at dawn with seagulls and the smell of salt"
    pairs, left, todo, _ = match_prompts_by_distance(
        [mp("m1", text + " 1", order=0), mp("m2", text + " 2", order=1)], [p(text + " 3")], [0]
    )
    assert [m.id for m in pairs.values()] == ["m1"]
    assert [m.id for m in left] == ["m2"]
    assert todo == []


def test_the_file_score_is_the_mean_over_the_larger_side() -> None:
    text = "Explain the error message below to a beginner and suggest one fix for it"
    result = match_prompts([mp("m1", text, order=0), mp("m2", "something else entirely", order=1)], [p(text)])
    assert result.pairs[0].id == "m1"
    assert result.score == pytest.approx(0.5)  # one exact pair over two map prompts
    assert match_prompts([], []).score == 1.0


def test_tombstones_are_tried_only_for_what_is_left() -> None:
    text = "List three risks of the plan below, most serious first, one line each"
    dead = mp("dead", text)
    result = match_prompts([mp("alive", text)], [p(text)], tombstones=[dead])
    assert result.pairs[0].id == "alive"
    result = match_prompts([], [p(text)], tombstones=[dead])
    assert result.pairs[0].id == "dead"
    assert result.score == 1.0
