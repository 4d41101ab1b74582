"""The resolver, function by function, then scenarios on the map."""

from __future__ import annotations

from tether_lsp.handlers.playground.model import MapPrompt, PlaygroundMap, Prompt
from tether_lsp.handlers.playground.resolver import (
    match_file,
    match_file_by_distance,
    match_prompts,
    match_prompts_by_content,
    match_prompts_by_distance,
    resolve_file_prompts,
    similarity,
)

A = "You are a helpful assistant that answers questions about the menu of the café."
B = "Summarize the following support ticket in three short bullet points for the team."
C = "Translate the customer's message into French, keeping product names unchanged."


def p(content: str, anchor: str = "X", at: int = 0) -> Prompt:
    return Prompt(anchor, content, (at, at + len(content)))


def mp(pid: str, content: str, anchor: str = "X", order: int = 0) -> MapPrompt:
    return MapPrompt(pid, anchor, " ".join(content.split()), order, 0.0)


def ids(pmap: PlaygroundMap, uri: str, prompts: list[Prompt], exists: bool = True) -> list[str]:
    return resolve_file_prompts(pmap, uri, prompts, exists=lambda _u: exists)[1]


def test_similarity_is_one_scale() -> None:
    assert similarity(A, A) == 1.0
    assert 0.9 < similarity(A, A.replace("menu", "menus")) < 1.0
    assert similarity(A, C) < 0.4


def test_by_content_pairs_identical_duplicates_in_order() -> None:
    olds = [mp("1", A, order=0), mp("2", A, order=1)]
    pairs, left, todo = match_prompts_by_content(olds, [p(A), p(A)], [0, 1], same_anchor=False)
    assert {k: v.id for k, v in pairs.items()} == {0: "1", 1: "2"}
    assert (left, todo) == ([], [])


def test_by_distance_best_first_and_thresholds() -> None:
    olds = [mp("a", A, order=0), mp("b", B, order=1)]
    new = [p(B.replace("three", "3")), p(A + " Be nice.")]
    pairs, left, todo, scores = match_prompts_by_distance(olds, new, [0, 1])
    assert (left, todo) == ([], [])
    assert {k: v.id for k, v in pairs.items()} == {0: "b", 1: "a"}
    assert all(s > 0.8 for s in scores)
    short = [mp("s", "Say hi")]
    assert match_prompts_by_distance(short, [p("Say bye now")], [0])[0] == {}  # short texts need 0.6


def test_near_identical_prompts_do_not_swap() -> None:
    one, two = "Reply in English to the customer.", "Reply in German to the customer."
    olds = [mp("en", one, order=0), mp("de", two, order=1)]
    result = match_prompts(olds, [p(two.replace("German", "German,")), p(one.replace("English", "English,"))])
    assert {k: v.id for k, v in result.pairs.items()} == {0: "de", 1: "en"}


def test_tombstones_are_the_last_pass() -> None:
    result = match_prompts([], [p(A)], [mp("dead", A)])
    assert result.pairs[0].id == "dead"


def test_match_file_is_by_path() -> None:
    pmap = PlaygroundMap()
    first = ids(pmap, "file:///a.py", [p(A)])
    entry = match_file(pmap, "file:///a.py")
    assert entry is not None
    assert [x.id for x in entry.prompts] == first
    assert match_file(pmap, "file:///b.py") is None


def test_match_file_by_distance_only_for_files_gone_from_disk() -> None:
    pmap = PlaygroundMap()
    ids(pmap, "file:///old.py", [p(A), p(B)])
    assert match_file_by_distance(pmap, [p(A), p(B + " Thanks.")], exists=lambda u: False) is not None
    assert match_file_by_distance(pmap, [p(A), p(B)], exists=lambda u: True) is None  # a copy
    assert match_file_by_distance(pmap, [p(C)], exists=lambda u: False) is None  # not similar enough


def test_scenarios_on_one_file() -> None:
    pmap = PlaygroundMap()
    uri = "file:///p.py"
    a, b, c = ids(pmap, uri, [p(A, "A"), p(B, "B"), p(C, "C")])
    assert len({a, b, c}) == 3
    assert ids(pmap, uri, [p(A.replace("menu", "menü"), "A"), p(B, "B"), p(C, "C")]) == [a, b, c]  # typo fix
    assert ids(pmap, uri, [p(C, "C"), p(A, "A"), p(B, "B")]) == [c, a, b]  # reordered
    new = ids(pmap, uri, [p("A brand new prompt inserted above the others.", "N"), p(C, "C"), p(A, "A"), p(B, "B")])
    assert new[1:] == [c, a, b]
    assert new[0] not in (a, b, c)
    rewritten = ids(pmap, uri, [p("Completely different words now, nothing in common at all!", "A"), p(B, "B")])
    assert rewritten[0] not in (a, b, c)  # a complete rewrite is a new prompt
    assert rewritten[1] == b
    assert ids(pmap, uri, [p(A, "A"), p(B, "B"), p(C, "C")]) == [a, b, c]  # undo: the tombstones bring them back


def test_gradual_drift_keeps_the_id() -> None:
    pmap = PlaygroundMap()
    uri = "file:///drift.py"
    words = A.split()
    (first,) = ids(pmap, uri, [p(A)])
    for k in range(len(words)):  # every word changed, one edit at a time
        words[k] = words[k].upper() + "x"
        assert ids(pmap, uri, [p(" ".join(words))]) == [first]


def test_tombstones_expire_after_twenty_updates() -> None:
    pmap = PlaygroundMap()
    uri = "file:///t.py"
    a, _ = ids(pmap, uri, [p(A), p(B)])
    for _ in range(21):
        ids(pmap, uri, [p(B)])
    assert ids(pmap, uri, [p(A), p(B)])[0] != a


def test_an_unknown_path_inherits_only_on_a_rename() -> None:
    pmap = PlaygroundMap()
    a, b = ids(pmap, "file:///orig.py", [p(A), p(B)])
    assert ids(pmap, "file:///copy.py", [p(A), p(B)], exists=True) != [a, b]  # copy: the original is there
    assert ids(pmap, "file:///moved.py", [p(A), p(B.replace("short", "brief"))], exists=False) == [a, b]
    entry = pmap.by_uri("file:///moved.py")
    assert entry is not None
    assert pmap.by_uri("file:///orig.py") is None
    renamed = resolve_file_prompts(
        pmap, "file:///again.py", [p(A), p(B)], exists=lambda u: True, renamed_from="file:///moved.py"
    )
    assert renamed[1] == [a, b]  # didRenameFiles: no similarity needed
