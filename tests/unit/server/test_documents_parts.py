"""documents.py and byte_edits.py at their edges: the history budget's defaults, replaying from a middle
version, nested pins, and edits whose common prefix or suffix ends inside a character."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from tether_lsp.server.byte_edits import common_prefix, common_suffix, diff_edits, minimal_edit
from tether_lsp.server.documents import VERSION_OVERHEAD, ContentChange, Document, HistoryBudget
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.settings import LimitSettings


def change(text: str, start: tuple[int, int], end: tuple[int, int] | None = None) -> ContentChange:
    return ContentChange(text, (Pos(*start), Pos(*(end or start))))


def test_the_history_budget_defaults_are_the_settings_defaults() -> None:
    limits = LimitSettings()
    assert HistoryBudget() == HistoryBudget(limits.historyBytes, limits.historySeconds)
    assert HistoryBudget() == HistoryBudget(2 * 1024 * 1024, 600.0)


def test_edits_since_a_middle_version_leave_out_its_own_edits() -> None:
    doc = Document("file:///a.py", "python", 1, "one\ntwo\n")
    doc.apply(2, [change("1", (0, 0), (0, 3))], Encoding.UTF16)
    doc.apply(3, [change("zwei", (1, 0), (1, 3))], Encoding.UTF16)
    base = doc.get(2)
    assert base is not None
    text = base.text
    edits = list(doc.edits_since(2) or [])
    assert len(edits) == 1
    for edit in edits:
        text = edit.apply(text)
    assert text == doc.current.text == b"1\nzwei\n"


def test_a_version_pinned_twice_stays_until_unpinned_twice() -> None:
    now = [0.0]
    doc = Document("file:///a.py", "python", 1, "base\n", HistoryBudget(seconds=10), lambda: now[0])
    assert doc.pin(1) and doc.pin(1)
    doc.unpin(1)
    for v in range(2, 40):
        now[0] += 1
        doc.apply(v, [change(f"{v}\n", (0, 0))], Encoding.UTF16)
    assert doc.get(1) is not None  # one pin is left
    doc.unpin(1)
    now[0] += 1
    doc.apply(100, [change("z", (0, 0))], Encoding.UTF16)
    assert doc.get(1) is None


def test_a_common_suffix_inside_a_character_is_not_split() -> None:
    old, new = "xé".encode(), "xũ".encode()  # C3 A9 and C5 A9 share their last byte
    edit = minimal_edit(old, new, LineIndex(old))
    assert (edit.start, edit.old_end, edit.new_text) == (1, 3, "ũ".encode())
    old, new = "aé b\n".encode(), "aũ b\n".encode()
    edit = minimal_edit(old, new, LineIndex(old))
    assert (edit.start, edit.old_end, edit.new_text) == (1, 3, "ũ".encode())
    assert edit.apply(old) == new


def test_full_text_edits_keep_suffixes_on_character_boundaries() -> None:
    old = "line one\nprix: 5é\nend\n".encode()
    new = "line one\nprix: 6ũ\nend\n".encode()
    (edit,) = diff_edits(old, new, LineIndex(old))
    assert (edit.start, edit.old_end, edit.new_text) == (15, 18, "6ũ".encode())
    assert edit.apply(old) == new


def test_a_dropped_version_frees_its_bytes_once() -> None:
    doc = Document("file:///a.py", "python", 1, "abc\n")
    version = doc.current
    assert version.dematerialise(lambda: b"abc\n") == 4
    assert version.dematerialise(lambda: b"abc\n") == 0


def test_a_version_pinned_while_current_stays_whole() -> None:
    doc = Document("file:///a.py", "python", 1, "base\n")
    assert doc.pin(1)
    doc.apply(2, [change("x", (0, 0))], Encoding.UTF16)
    old = doc.get(1)
    assert old is not None and old.materialised


def kept_cost(doc: Document) -> int:
    """What the history should cost, summed over the kept versions: the text of each version that holds one,
    edits (64 bytes each beside their texts) and a fixed overhead per version."""
    return sum(
        (len(v.text) if v.materialised else 0)
        + sum(len(e.new_text) + len(e.old_text) + 64 for e in v.edits)
        + VERSION_OVERHEAD
        for v in doc.versions()
    )


def test_the_running_cost_is_the_cost_of_the_kept_versions() -> None:
    """Through typing, pins, and evictions by bytes and by time."""
    now = [0.0]
    doc = Document("file:///a.py", "python", 1, "start\n" * 50, HistoryBudget(bytes=6000, seconds=30), lambda: now[0])
    rnd = random.Random(7)
    for v in range(2, 400):
        now[0] += rnd.choice((0.1, 0.5, 2.0))
        if v == 50:
            doc.pin(45)
        if v == 200:
            doc.unpin(45)
        line = rnd.randrange(doc.current.text.count(b"\n"))
        doc.apply(v, [change(rnd.choice(("x", "yy\n", "")), (line, 0), (line, rnd.randrange(2)))], Encoding.UTF16)
        assert doc.history_bytes() == kept_cost(doc), v
        if doc.oldest_version > 1:  # once evictions began the oldest is kept whole (rebuilding it is no chain)
            assert doc.versions()[0].materialised
        for version in doc.versions():
            assert version.text is not None
    assert doc.oldest_version > 45


def typed(budget_bytes: int, seconds: float = 1000.0, last: float = 10.5) -> Document:
    """Versions 2 to 6 typed at 0, 9, 9, 9 and ``last`` s: with a 10 s window, only version 1 can be outdated,
    and only when version 6 arrives."""
    times = iter((0.0, 9.0, 9.0, 9.0, last))
    now = [0.0]
    doc = Document("file:///a.py", "python", 1, "abc\n", HistoryBudget(budget_bytes, seconds), lambda: now[0])
    for v in range(2, 7):
        now[0] = next(times)
        doc.apply(v, [change("x", (0, 0))], Encoding.UTF16)
    return doc


def test_a_history_exactly_at_the_byte_budget_is_kept() -> None:
    full = typed(10**9).history_bytes()
    assert typed(full).oldest_version == 1
    assert typed(full - 1).oldest_version > 1
    assert "historyBytes" in (typed(full - 1).last_eviction or "")


def test_an_eviction_at_exactly_the_byte_budget_names_the_time_window() -> None:
    full = typed(10**9).history_bytes()
    doc = typed(full, seconds=10)
    assert doc.oldest_version == 2  # version 1 was superseded over 10 s ago
    assert "historySeconds" in (doc.last_eviction or "")


def test_a_version_superseded_exactly_a_window_ago_is_outdated() -> None:
    assert typed(10**9, seconds=10, last=10.0).oldest_version == 2
    assert typed(10**9, seconds=10, last=9.99).oldest_version == 1


def test_common_prefix_and_suffix_lengths() -> None:
    assert common_prefix(b"abc", b"axc") == 1
    assert common_prefix(b"abcd", b"abcx") == 3
    assert common_suffix(b"cba", b"cxa", 3) == 1
    assert common_suffix(b"xbcd", b"ybcd", 4) == 3
    assert common_suffix(b"abcd", b"abcd", 2) == 2


def naive_common_ends(a: bytes, b: bytes) -> tuple[int, int]:
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return prefix, suffix


@given(st.binary(max_size=6), st.binary(max_size=12), st.binary(max_size=12), st.binary(max_size=6))
def test_common_ends_are_the_longest_ones(head: bytes, middle_a: bytes, middle_b: bytes, tail: bytes) -> None:
    a, b = head + middle_a + tail, head + middle_b + tail
    prefix = common_prefix(a, b)
    assert (prefix, common_suffix(a, b, min(len(a), len(b)) - prefix)) == naive_common_ends(a, b)


def test_a_minimal_edit_never_overlaps_its_prefix_and_suffix() -> None:
    edit = minimal_edit(b"aaa", b"aa", LineIndex(b"aaa"))
    assert (edit.start, edit.old_end, edit.new_text) == (2, 3, b"")
    assert edit.apply(b"aaa") == b"aa"


def changed_lines(count: int) -> tuple[bytes, bytes]:
    """Two texts differing on ``count`` lines, each change separated by three unchanged lines."""
    old = b"".join(b"keep %d\nkeep %d\nkeep %d\nold %d\n" % (k, k, k, k) for k in range(count))
    return old, old.replace(b"old ", b"new ")


def test_a_full_text_change_of_up_to_64_regions_is_recorded_region_by_region() -> None:
    old, new = changed_lines(64)
    edits = diff_edits(old, new, LineIndex(old))
    assert len(edits) == 64
    old, new = changed_lines(65)
    (edit,) = diff_edits(old, new, LineIndex(old))
    assert edit.apply(old) == new


def test_an_edit_when_one_text_is_a_prefix_of_the_other() -> None:
    edit = minimal_edit(b"ab", b"abc", LineIndex(b"ab"))
    assert (edit.start, edit.old_end, edit.new_text) == (2, 2, b"c")


def test_a_last_line_without_newline_keeps_its_suffix_on_a_character_boundary() -> None:
    old, new = "line one\nprix: 5é".encode(), "line one\nprix: 6ũ".encode()
    (edit,) = diff_edits(old, new, LineIndex(old))
    assert (edit.start, edit.old_end, edit.new_text) == (15, 18, "6ũ".encode())
