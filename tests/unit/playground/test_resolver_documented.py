"""The resolver's documented numbers and rules, each at its boundary, written as the docs state them (40
characters, +0.15 for the same anchor, 20 updates or 10 minutes for a deleted prompt) rather than through the
module's constants, so a changed constant fails here."""

from __future__ import annotations

from tests.unit.playground.test_resolver import mp, p
from tether_lsp.handlers.playground.model import MapFile, PlaygroundMap
from tether_lsp.handlers.playground.resolver import (
    DEFAULT,
    match_file_by_distance,
    match_prompts,
    match_prompts_by_content,
    match_prompts_by_distance,
    rename_candidates,
    resolve_file_prompts,
)


def test_short_means_under_40_characters_on_both_sides() -> None:
    assert DEFAULT.for_pair("x" * 39, "y" * 39) == 0.6
    assert DEFAULT.for_pair("x" * 40, "y" * 39) == 0.4
    assert DEFAULT.for_pair("x" * 39, "y" * 40) == 0.4


def test_the_same_anchor_is_worth_0_15() -> None:
    parsed = [p("a" * 100, anchor="A")]
    near = mp("near", "a" * 90 + "b" * 10, anchor="B")  # similarity 0.90, another anchor
    same = mp("same", "a" * 80 + "b" * 20, anchor="A")  # 0.80 + 0.15 = 0.95: wins
    pairs, *_ = match_prompts_by_distance([near, same], parsed, [0])
    assert pairs[0].id == "same"
    farther = mp("farther", "a" * 70 + "b" * 30, anchor="A")  # 0.70 + 0.15 = 0.85: loses to 0.90
    pairs, *_ = match_prompts_by_distance([near, farther], parsed, [0])
    assert pairs[0].id == "near"


def test_a_skipped_candidate_does_not_end_the_pairing() -> None:
    parsed = [p("a" * 100, at=0), p("a" * 60 + "d" * 40, at=1)]
    m1 = mp("m1", "a" * 95 + "b" * 5, order=0)  # 0.95 with parsed 0, 0.60 with parsed 1
    m2 = mp("m2", "a" * 90 + "d" * 10, order=1)  # 0.90 with parsed 0 (taken by then), 0.70 with parsed 1
    pairs, left, todo, scores = match_prompts_by_distance([m1, m2], parsed, [0, 1])
    assert {i: m.id for i, m in pairs.items()} == {0: "m1", 1: "m2"}
    assert left == [] and todo == [] and scores == [0.95, 0.7]


def test_the_passes_keep_anchors_first_and_count_every_exact_match() -> None:
    map_prompts = [mp("under-a", "Same text", anchor="A", order=0), mp("under-b", "Same text", anchor="B", order=1)]
    swapped = [p("Same text", anchor="B", at=0), p("Same text", anchor="A", at=1)]
    match = match_prompts(map_prompts, swapped)
    assert {i: m.id for i, m in match.pairs.items()} == {0: "under-b", 1: "under-a"}
    renamed = [p("Same text", anchor="A", at=0), p("Same text", anchor="C", at=1)]  # one by anchor, one by content
    assert match_prompts(map_prompts, renamed).score == 1.0


def test_a_taken_prompt_does_not_stop_the_pairing_of_the_others() -> None:
    parsed = [p("a" * 100, at=0), p("c" * 50 + "d" * 50, at=1)]
    first = mp("first", "a" * 95 + "b" * 5, order=0)  # best for parsed 0
    second = mp("second", "a" * 60 + "d" * 40, order=1)  # second best for parsed 0, and the only one for parsed 1
    second_for_1 = mp("second", "c" * 50 + "d" * 45 + "e" * 5, order=1)
    pairs, left, todo, _ = match_prompts_by_distance([first, second_for_1], parsed, [0, 1])
    assert {i: m.id for i, m in pairs.items()} == {0: "first", 1: "second"}
    assert left == [] and todo == []
    pairs, *_ = match_prompts_by_distance([first, second], parsed[:1], [0])
    assert pairs[0].id == "first"


def test_identical_contents_prefer_the_same_anchor_first() -> None:
    map_prompts = [mp("under-a", "Same text", anchor="A", order=0), mp("under-b", "Same text", anchor="B", order=1)]
    parsed = [p("Same text", anchor="B", at=0), p("Same text", anchor="A", at=1)]
    pairs, left, todo = match_prompts_by_content(map_prompts, parsed, [0, 1], same_anchor=True)
    assert {i: m.id for i, m in pairs.items()} == {0: "under-b", 1: "under-a"}
    assert left == [] and todo == []


def _file(name: str, *contents: str) -> MapFile:
    return MapFile(name, f"file:///{name}.py", 0.0, 1, [mp(f"{name}-{k}", c, order=k) for k, c in enumerate(contents)])


def test_the_bound_filter_of_renamed_files() -> None:
    unrelated = [_file(f"u{k}", f"{k} zebra quantum hydrant {k}" * 3) for k in range(8)]
    exact = _file("exact", "Summarize the ticket for the team.", "Translate the message into French.")
    half = _file("half", "Summarize the ticket for the team.", "zzzz yyyy xxxx wwww vvvv uuuu tttt")  # bound 0.5
    thin = _file("thin", "Summarize the ticket for the team.", "q1 q2 q3 q4 q5 q6", "r1 r2 r3 r4 r5", "s1 s2 s3 s4")
    parsed = [p("Summarize the ticket for the team."), p("Translate the message into French.")]
    near = _file("near", "Summarize the tickets for our team!", "zzzz yyyy xxxx wwww vvvv uuuu tttt")  # under 0.5
    likely = rename_candidates([*unrelated, thin, near, half, exact], parsed, DEFAULT)
    assert [e.id for e in likely] == ["exact", "half"]  # best bound first; 0.5 exactly is enough; thin is 0.25
    pmap = PlaygroundMap({e.id: e for e in [*unrelated, thin, half, exact]})
    found = match_file_by_distance(pmap, parsed, exists=lambda _u: False)
    assert found is not None and found.id == "exact"
    only_half = match_file_by_distance(PlaygroundMap({"half": half}), parsed, exists=lambda _u: False)
    assert only_half is not None and only_half.id == "half"  # a mean similarity of exactly 0.5 is a rename


def test_up_to_8_files_all_get_the_full_matching() -> None:
    parsed = [p("Summarize the ticket for the team.")]
    eight = [_file(f"u{k}", f"{k} zebra quantum hydrant {k}" * 3) for k in range(8)]
    assert rename_candidates(eight, parsed, DEFAULT) == eight  # few enough: no bound filter
    assert rename_candidates([*eight, _file("u8", "8 zebra quantum hydrant 8" * 3)], parsed, DEFAULT) == []


def test_a_deleted_prompt_comes_back_within_20_updates() -> None:
    for later, back in ((19, True), (20, False)):
        pmap = PlaygroundMap()
        keep, gone = (
            p("A prompt that stays here.", anchor="K"),
            p("A prompt that is deleted, then restored.", anchor="G"),
        )
        _entry, (_, gone_id), _ = resolve_file_prompts(
            pmap, "file:///t.py", [keep, gone], exists=lambda _u: True, now=0.0
        )
        resolve_file_prompts(pmap, "file:///t.py", [keep], exists=lambda _u: True, now=1.0)  # deleted (update 2)
        for k in range(later):
            resolve_file_prompts(pmap, "file:///t.py", [keep], exists=lambda _u: True, now=2.0 + k)
        _, ids, _ = resolve_file_prompts(pmap, "file:///t.py", [keep, gone], exists=lambda _u: True, now=100.0)
        assert (ids[1] == gone_id) is back, later


def test_a_deleted_prompt_comes_back_within_10_minutes() -> None:
    for after, back in ((600.0, True), (600.5, False)):
        pmap = PlaygroundMap()
        keep, gone = (
            p("A prompt that stays here.", anchor="K"),
            p("A prompt that is deleted, then restored.", anchor="G"),
        )
        _, (_, gone_id), _ = resolve_file_prompts(pmap, "file:///t.py", [keep, gone], exists=lambda _u: True, now=0.0)
        resolve_file_prompts(pmap, "file:///t.py", [keep], exists=lambda _u: True, now=10.0)  # deleted at t=10
        _, ids, _ = resolve_file_prompts(pmap, "file:///t.py", [keep, gone], exists=lambda _u: True, now=10.0 + after)
        assert (ids[1] == gone_id) is back, after


def test_what_counts_as_a_change_of_the_map() -> None:
    pmap = PlaygroundMap()
    one, two = p("The first prompt of the file.", anchor="A"), p("The second prompt of the file.", anchor="B", at=1)
    entry, _, changed = resolve_file_prompts(pmap, "file:///c.py", [one], exists=lambda _u: True, now=1.0)
    assert changed is True and entry.updated_at == 1.0  # a new prompt
    entry, _, changed = resolve_file_prompts(pmap, "file:///c.py", [one], exists=lambda _u: True, now=2.0)
    assert changed is False and entry.updated_at == 1.0  # nothing moved: not rewritten
    entry, _, changed = resolve_file_prompts(pmap, "file:///c.py", [one, two], exists=lambda _u: True, now=3.0)
    assert changed is True and entry.updated_at == 3.0
    edited = p("The first prompt of the file, edited.", anchor="A")
    entry, _, changed = resolve_file_prompts(pmap, "file:///c.py", [edited, two], exists=lambda _u: True, now=4.0)
    assert changed is True and entry.updated_at == 4.0  # an edited prompt
    entry, _, changed = resolve_file_prompts(pmap, "file:///c.py", [two], exists=lambda _u: True, now=5.0)
    assert changed is True and entry.updated_at == 5.0 and len(entry.tombstones) == 1  # a removed prompt
    entry, _, changed = resolve_file_prompts(
        pmap, "file:///d.py", [two], exists=lambda _u: True, renamed_from="file:///c.py", now=6.0
    )
    assert changed is True and entry.uri == "file:///d.py"  # a rename moves the entry
    fresh, _, _ = resolve_file_prompts(pmap, "file:///e.py", [one], exists=lambda _u: True, renamed_from=None, now=7.0)
    assert fresh.id != entry.id  # no rename given: a new entry, even if another one could be matched


def test_a_file_score_is_a_mean_over_the_larger_side() -> None:
    assert match_prompts([], []).score == 1.0
    match = match_prompts([mp("a", "Alpha prompt text")], [p("Alpha prompt text"), p("Beta prompt text here")])
    assert match.score == 0.5
