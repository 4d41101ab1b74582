"""locate.py, rule by rule: what each rule finds (exact spans), when it is ambiguous, and where it stops.

Every case gives the base text and the quoted ``oldText``; the expected answer is the rule that won and the
exact characters it covers, or the rule that was ambiguous and every candidate span.
"""

from __future__ import annotations

import pytest

from tether_lsp.handlers.edits.locate import Lines, Located, locate


def found(located: Located) -> tuple[str, int, int]:
    assert located.found is not None, located
    return located.found.kind, located.found.start, located.found.end


# --- exact ---------------------------------------------------------------------------------------------


def test_an_exact_unique_hit_covers_the_quoted_characters() -> None:
    base = "a = 1\nb = 2\n"
    assert found(locate(base, "b = 2")) == ("exact", 6, 11)


def test_two_exact_hits_are_ambiguous_with_both_spans() -> None:
    located = locate("x = 1\ny = 2\nx = 1\n", "x = 1")
    assert located.found is None
    assert located.kind == "exact"
    assert located.candidates == [(0, 5), (12, 17)]


def test_an_empty_or_blank_old_text_finds_nothing() -> None:
    assert locate("a\nb\n", "") == Located(None)
    assert locate("a\n  \n", "   \n \n") == Located(None)


# --- whole lines, trailing whitespace ------------------------------------------------------------------


def test_trailing_whitespace_drift_on_the_last_line_of_a_file_without_a_final_newline() -> None:
    base = "def f():\n    return 1   \n    pass"
    # quoted with its newline, but the base's last line has none: the span stops at the end of the text
    assert found(locate(base, "    pass  \n")) == ("trailingWhitespace", 25, 33)
    assert found(locate(base, "    return 1\n")) == ("trailingWhitespace", 9, 25)


def test_trailing_whitespace_windows_reach_the_last_line() -> None:
    base = "a\nb\nlast one  "
    assert found(locate(base, "b \nlast one")) == ("trailingWhitespace", 2, 14)


def test_only_the_window_whose_every_line_matches_is_a_hit() -> None:
    # the first line matches twice, the second only once: one hit, not two
    base = "if a: \n    x\nif a: \n    y\n"
    assert found(locate(base, "if a:\n    y")) == ("trailingWhitespace", 13, 25)


def test_trailing_whitespace_ambiguity_lists_every_window() -> None:
    located = locate("x \ny\nx  \ny\n", "x\ny\n")
    assert located.kind == "trailingWhitespace"
    assert located.candidates == [(0, 5), (5, 11)]


# --- whole lines, indentation --------------------------------------------------------------------------


def test_indentation_drift_with_the_uniform_delta() -> None:
    base = "class C:\n    if a:   \n        b\n"
    located = locate(base, "if a:\n    b")  # quoted 4 columns left, the base has trailing spaces too
    assert found(located) == ("indentation", 9, 31)
    assert located.found is not None and located.found.indent_delta == 4


def test_indentation_delta_is_none_when_lines_moved_by_different_amounts() -> None:
    located = locate("  if a:\n        b\n", "if a:\n  b\n")
    assert found(located) == ("indentation", 0, 18)
    assert located.found is not None and located.found.indent_delta is None


def test_a_middle_line_without_newline_stops_before_it() -> None:
    base = "  b\nc"
    assert found(locate(base, "b  ")) == ("indentation", 0, 3)
    assert found(locate(base, "b  \n")) == ("indentation", 0, 4)


def test_indentation_ambiguity_lists_every_window() -> None:
    located = locate("  x = 1 \n    x = 1\t\n", "x = 1  ")
    assert located.kind == "indentation"
    assert located.candidates == [(0, 8), (9, 19)]


def test_other_rules_report_exactness() -> None:
    assert locate("  b\n", "b ").found is not None
    assert locate("  b\n", "b ").found.similarity == 1.0  # type: ignore[union-attr]


# --- elision -------------------------------------------------------------------------------------------

FUNCTION = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n\ndef g():\n    return 0\n"


def test_an_elided_middle_spans_from_the_head_to_the_tail() -> None:
    old = "def f():\n    ...\n    return a\n"
    assert found(locate(FUNCTION, old)) == ("truncated", 0, 52)
    assert found(locate(FUNCTION, old[:-1])) == ("truncated", 0, 51)
    assert found(locate(FUNCTION, "def f():\n<truncated/>\n    return a")) == ("truncated", 0, 51)


def test_an_elision_standing_for_no_line_at_all() -> None:
    assert found(locate(FUNCTION, "    b = 2\n    …\n    c = 3")) == ("truncated", 19, 38)


def test_an_elision_first_or_last_is_not_an_elision() -> None:
    assert locate(FUNCTION, "...\n    return a", fuzzy=False) == Located(None)
    assert locate(FUNCTION, "def f():\n...", fuzzy=False) == Located(None)


def test_dots_that_are_real_code_in_the_base_are_not_an_elision() -> None:
    base = "def f():\n    ...\n\ndef g():\n    x\n    return 1\n"
    assert locate(base, "def g():\n    ...\n    return 1", fuzzy=False) == Located(None)


def test_two_elisions_are_not_resolved() -> None:
    assert locate(FUNCTION, "def f():\n...\n    b = 2\n...\n    return a", fuzzy=False) == Located(None)


def test_an_ambiguous_head_or_tail_lists_the_candidates() -> None:
    base = "def f():\n    x\n    return 1\ndef f():\n    y\n    return 2\n"
    heads = locate(base, "def f():\n...\n    return 3", fuzzy=False)
    assert (heads.kind, heads.candidates) == ("truncated", [(0, 8), (28, 36)])
    tails = locate(base + "    return 2\n", "    y\n...\n    return 2", fuzzy=False)
    assert (tails.kind, tails.candidates) == ("truncated", [(43, 55), (56, 68)])


def test_a_tail_before_the_head_does_not_count() -> None:
    base = "    return a\ndef f():\n    x\n"
    assert locate(base, "def f():\n...\n    return a", fuzzy=False) == Located(None)


# --- fuzzy ---------------------------------------------------------------------------------------------

BODY = "def total(items):\n    s = 0\n    for item in items:\n        s += item.price\n    return s\n"


def test_a_fuzzy_hit_is_on_by_default_with_its_similarity() -> None:
    old = "def total(items):\n    s = 0\n    for item in items:\n        s += item.prices\n    return s\n"
    located = locate(BODY, old)
    assert found(located) == ("fuzzy", 0, len(BODY))
    assert located.found is not None and located.found.similarity == 0.9926
    assert locate(BODY, old, fuzzy=False) == Located(None)


def test_fuzzy_needs_the_similarity_asked_for() -> None:
    old = "def total(xs):\n    t = 1\n    for x in xs:\n        t *= x.cost\n    return t\n"
    assert locate(BODY, old) == Located(None)  # about 0.69: under the default 0.9
    assert found(locate(BODY, old, min_similarity=0.65)) == ("fuzzy", 0, len(BODY))


def test_the_similarity_asked_for_is_enough() -> None:
    # ten characters, one changed: Indel similarity 1 - 2/20 = 0.9 exactly
    assert found(locate("x\nabcdefghij\ny\n", "abcdefghiX", min_similarity=0.9)) == ("fuzzy", 2, 12)


def test_a_fuzzy_window_may_be_the_whole_text() -> None:
    assert found(locate("abcdefghij\nklmnopqrst", "abcdefghiX\nklmnopqrst")) == ("fuzzy", 0, 21)


def test_more_quoted_lines_than_the_text_has_is_not_found() -> None:
    assert locate("abcdefghij", "abcdefghiX\nmore") == Located(None)


def test_two_windows_without_a_clear_lead_are_ambiguous() -> None:
    base = "value = compute(alpha)\nother\nvalue = compute(alpho)\n"
    located = locate(base, "value = compute(alphx)")
    assert located.kind == "fuzzy"
    assert sorted(located.candidates) == [(0, 22), (29, 51)]


def test_a_lead_of_more_than_the_margin_wins() -> None:
    base = "value = compute(alpha)\nother\nvalue = compute(omega)\n"
    assert found(locate(base, "value = compute(alphx)")) == ("fuzzy", 0, 22)


def test_the_margin_is_five_hundredths_of_similarity() -> None:
    """50 characters: the best window differs in 1 (0.98), the runner-up in 3 (0.94, a lead of 0.04: too close)
    or in 4 (0.92, a lead of 0.06: the best wins)."""
    quoted = "result = combine(alpha, beta, gamma, delta, omega)"
    best = "result = cQmbine(alpha, beta, gamma, delta, omega)"
    close = "result = combine(alpQa, beta, Qamma, delQa, omega)"
    behind = "result = combine(alpQa, beta, Qamma, delQa, oQega)"
    ambiguous = locate(f"{best}\nother\n{close}\n", quoted)
    assert ambiguous == Located(None, [(0, 50), (57, 107)], "fuzzy")
    assert found(locate(f"{best}\nother\n{behind}\n", quoted)) == ("fuzzy", 0, 50)


@pytest.mark.parametrize("newline", [True, False])
def test_fuzzy_spans_follow_the_quoted_newline(newline: bool) -> None:
    base = "abcdefghij\nsecond\n"
    old = "abcdefghiX" + ("\n" if newline else "")
    assert found(locate(base, old)) == ("fuzzy", 0, 11 if newline else 10)


# --- line spans ----------------------------------------------------------------------------------------


def test_line_spans_with_and_without_the_newline() -> None:
    lines = Lines("ab\ncd\nef")
    assert lines.span(0, 2, False) == (0, 5)
    assert lines.span(0, 2, True) == (0, 6)
    assert lines.span(2, 1, True) == (6, 8)


def test_fuzzy_windows_are_whole_windows_only() -> None:
    # a shorter window at the end (one line for two quoted) would look like a near-perfect hit
    assert locate("zzzzzzzzzzzzzzzzzzzz\nabcdefghij", "abcdefghij\nk") == Located(None)


def test_fuzzy_ambiguity_names_the_two_best_windows() -> None:
    base = "value = compute(alpha)\nvalue = compute(alpho)\nvalue = compute(alphu)\n"
    located = locate(base, "value = compute(alphx)")
    assert located.kind == "fuzzy"
    assert len(located.candidates) == 2


def test_a_line_hint_picks_the_nearest_of_several_exact_hits() -> None:
    text = "a = 1\nx = 0\nb = 2\nx = 0\nc = 3\n"
    found = locate(text, "x = 0", near_line=3).found
    assert found is not None and (found.kind, found.start) == ("exact", text.rindex("x = 0"))
    found = locate(text, "x = 0", near_line=0).found
    assert found is not None and found.start == text.index("x = 0")


def test_a_line_hint_halfway_between_two_hits_stays_ambiguous() -> None:
    text = "x = 0\nb = 2\nx = 0\n"
    located = locate(text, "x = 0", near_line=1)
    assert located.found is None and located.kind == "exact" and len(located.candidates) == 2


def test_a_line_hint_picks_among_whitespace_rule_windows_too() -> None:
    text = "if a:\n    pass\nif b:\n    pass\n"
    found = locate(text, "    pass   \n", near_line=3).found
    assert found is not None and found.kind == "trailingWhitespace" and found.start == text.rindex("    pass")


def test_overlapping_hits_are_all_candidates() -> None:
    """An old text of blank lines matches at the end of the line above them too: every start is a hit, so the
    line hint picks the blank lines the agent saw (a search that skips overlaps saw only the hit one line up)."""
    text = "def f():\n    return 1\n\n\ndef g():\n    pass\n"
    found = locate(text, "\n\n", near_line=2).found
    assert found is not None and (found.kind, found.start) == ("exact", text.index("\n\ndef g"))
    assert len(locate(text, "\n\n").candidates) == 2
