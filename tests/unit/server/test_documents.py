"""documents.py: applying changes, CRLF, the bounded history, versions never going backwards."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether_lsp.server import documents
from tether_lsp.server.byte_edits import minimal_edit
from tether_lsp.server.documents import ContentChange, Document, DocumentStore
from tether_lsp.server.positions import Encoding, LineIndex, Pos


def change(text: str, start: tuple[int, int], end: tuple[int, int] | None = None) -> ContentChange:
    return ContentChange(text, (Pos(*start), Pos(*(end or start))))


def test_incremental_changes_in_utf16_with_non_ascii() -> None:
    doc = Document("file:///a.py", "python", 1, "x = '🚀'\ny = 'café'\n")
    doc.apply(2, [change("東京", (0, 7), (0, 7))], Encoding.UTF16)  # after the emoji (2 units)
    assert doc.current.string == "x = '🚀東京'\ny = 'café'\n"
    doc.apply(3, [change("", (1, 5), (1, 9)), change("Z", (0, 0))], Encoding.UTF16)
    assert doc.current.string == "Zx = '🚀東京'\ny = ''\n"
    assert doc.version == 3
    assert len(doc.current.edits) == 2


def test_same_change_in_utf8_units() -> None:
    doc = Document("file:///a.py", "python", 1, "é = 1\n")
    doc.apply(2, [change("x", (0, 2))], Encoding.UTF8)
    assert doc.current.string == "éx = 1\n"


def test_full_text_change_records_the_minimal_edit() -> None:
    doc = Document("file:///a.py", "python", 1, "alpha\nbeta\ngamma\n")
    doc.apply(2, [ContentChange("alpha\nBETA!\ngamma\n")], Encoding.UTF16)
    (edit,) = doc.current.edits
    assert (edit.start, edit.old_end, edit.new_text) == (6, 10, b"BETA!")
    assert edit.start_point == (1, 0)
    assert edit.new_end_point == (1, 5)


def test_minimal_edit_stays_on_character_boundaries() -> None:
    old, new = "é".encode(), "è".encode()  # share the first UTF-8 byte
    edit = minimal_edit(old, new, LineIndex(old))
    assert (edit.start, edit.old_end, edit.new_text) == (0, 2, new)


def test_crlf_is_kept() -> None:
    doc = Document("file:///a.py", "python", 1, "a\r\nb\r\n")
    doc.apply(2, [change("x\r\ny", (1, 0), (1, 1))], Encoding.UTF16)
    assert doc.current.text == b"a\r\nx\r\ny\r\n"


def test_a_change_whose_version_is_not_newer_is_applied_in_the_servers_own_order() -> None:
    """The client's text is the truth whatever its number; the server's order of versions stays increasing."""
    doc = Document("file:///a.py", "python", 5, "a")
    same = doc.apply(5, [change("b", (0, 0))], Encoding.UTF16)
    assert doc.current.string == "ba" and (same.version, same.client_version) == (6, 5)
    older = doc.apply(3, [change("c", (0, 0))], Encoding.UTF16)
    assert doc.current.string == "cba" and (older.version, older.client_version) == (7, 3)
    after = doc.apply(4, [change("d", (0, 3))], Encoding.UTF16)
    assert doc.current.string == "cbad" and (after.version, after.client_version) == (8, 4)
    jump = doc.apply(20, [change("e", (0, 0))], Encoding.UTF16)
    assert (jump.version, jump.client_version) == (20, 20)  # newer than the server's order: kept as sent
    order = [v.version for v in doc.versions()]
    assert order == sorted(set(order)) == [5, 6, 7, 8, 20]
    assert (doc.version, doc.client_version) == (20, 20)


def test_a_client_version_names_the_newest_kept_version_the_client_gave_it() -> None:
    doc = Document("file:///a.py", "python", 5, "a")
    doc.apply(6, [change("b", (0, 0))], Encoding.UTF16)
    doc.apply(5, [change("c", (0, 0))], Encoding.UTF16)  # the client numbers 5 again
    first, newest = doc.find(5), doc.find(6)
    assert first is not None and first.string == "cba" and first is doc.current
    assert newest is not None and newest.string == "ba"
    assert doc.find(9) is None
    # what names an internal version (history, trees, carried edits) follows the server's order
    edits = doc.edits_since(newest.version)
    assert edits is not None
    text = newest.text
    for edit in edits:
        text = edit.apply(text)
    assert text == doc.current.text == b"cba"


def test_versions_out_of_order_are_rebuilt_and_evicted_in_the_servers_order() -> None:
    text = "line\r\n" * 50
    doc = Document("file:///a.py", "python", 10, text, documents.HistoryBudget(bytes=1600))
    texts = {10: text.encode()}
    for k, client_version in enumerate([10, 9, 9, 3, 4, 11, 2, 2]):
        made = doc.apply(client_version, [change(f"{k}é", (k, 0))], Encoding.UTF16)
        lines = text.split("\r\n")
        lines[k] = f"{k}é" + lines[k]
        text = "\r\n".join(lines)
        texts[made.version] = text.encode()
    assert doc.current.string == text
    kept = doc.versions()
    assert doc.oldest_version > 10 and len(kept) > 2  # the budget dropped the oldest, kept the newest
    assert [v.version for v in kept] == list(range(doc.oldest_version, 19))
    assert [v.client_version for v in kept] == [10, 10, 9, 9, 3, 4, 11, 2, 2][-len(kept) :]
    for version in kept:  # old versions are rebuilt from the edits between them
        assert version.text == texts[version.version]


def test_out_of_range_change_is_clamped() -> None:
    doc = Document("file:///a.py", "python", 1, "ab\n")
    doc.apply(2, [change("!", (0, 99))], Encoding.UTF16)
    doc.apply(3, [change("?", (42, 0))], Encoding.UTF16)
    assert doc.current.string == "ab!\n?"


class Clock:
    """A test clock: documents stamp each version with it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_every_version_current_within_the_window_is_kept() -> None:
    clock = Clock()
    doc = Document("file:///a.py", "python", 0, "", documents.HistoryBudget(seconds=600), clock)
    for v in range(1, 3001):  # thousands of keystrokes, a tenth of a second apart: all within 10 minutes
        clock.now += 0.1
        doc.apply(v, [change("x", (0, 0))], Encoding.UTF16)
    assert [v.version for v in doc.versions()] == list(range(0, 3001))
    assert doc.get(1) is not None and doc.get(1).string == "x"  # type: ignore[union-attr]
    assert doc.history_bytes() < 2 * 1024 * 1024


def test_versions_superseded_before_the_window_are_dropped() -> None:
    clock = Clock()
    doc = Document("file:///a.py", "python", 1, "base\n", documents.HistoryBudget(seconds=60), clock)
    doc.apply(2, [change("a", (0, 0))], Encoding.UTF16)  # t = 1000: version 1 was current until now
    clock.now += 50
    doc.apply(3, [change("b", (0, 0))], Encoding.UTF16)  # t = 1050
    clock.now += 20
    doc.apply(4, [change("c", (0, 0))], Encoding.UTF16)  # t = 1070: the window starts at 1010
    # version 1 stopped being current at 1000 (before the window): dropped. Version 2 was current until
    # 1050, inside the window: a model that started at 1010 saw it, so it stays.
    assert [v.version for v in doc.versions()] == [2, 3, 4]
    assert doc.get(2).string == "abase\n"  # type: ignore[union-attr]
    assert "historySeconds" in (doc.last_eviction or "")


def test_history_keeps_edits_not_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    big = "y" * 700_000
    doc = Document("file:///a.py", "python", 1, big)
    texts = {1: big.encode()}
    for v in range(2, 6):
        doc.apply(v, [change("x", (0, 0))], Encoding.UTF16)
        texts[v] = doc.current.text
    assert [v.version for v in doc.versions()] == [1, 2, 3, 4, 5]  # small edits: every version fits
    assert doc.history_bytes() < 800_000  # one text plus four one-byte edits, not five copies
    assert all(v.text == texts[v.version] for v in doc.versions())  # old versions are rebuilt exactly


def test_history_is_bounded_in_bytes() -> None:
    doc = Document("file:///a.py", "python", 1, "y" * 300_000)
    for v in range(2, 8):  # each version rewrites everything: each edit costs ~600 KB
        doc.apply(v, [change(str(v) * 300_000, (0, 0), (0, 300_000))], Encoding.UTF16)
    kept = [v.version for v in doc.versions()]
    assert kept[-1] == 7
    assert len(kept) < 7
    assert doc.history_bytes() <= documents.HistoryBudget().bytes
    assert doc.versions()[0].text == (str(kept[0]) * 300_000).encode()
    assert "historyBytes" in (doc.last_eviction or "")
    huge = Document("file:///b.py", "python", 1, "z" * (3 * 1024 * 1024))
    huge.apply(2, [change("x", (0, 0))], Encoding.UTF16)
    assert [v.version for v in huge.versions()] == [2]  # the current version is always kept


def test_a_pinned_version_is_not_evicted() -> None:
    clock = Clock()
    doc = Document("file:///a.py", "python", 1, "base\n", documents.HistoryBudget(seconds=10), clock)
    assert doc.pin(1)
    for v in range(2, 80):
        clock.now += 1  # well past the window by the end
        doc.apply(v, [change(f"{v}\n", (0, 0))], Encoding.UTF16)
    assert doc.oldest_version == 1
    assert doc.get(1) is not None
    assert doc.get(1).text == b"base\n"  # type: ignore[union-attr]
    doc.unpin(1)
    clock.now += 1
    doc.apply(200, [change("z", (0, 0))], Encoding.UTF16)
    assert doc.oldest_version > 60  # only what was current within the last ten seconds
    assert doc.pin(1) is False  # gone now


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6), st.text(max_size=6)), min_size=1, max_size=30))
def test_every_kept_version_rebuilds_exactly(steps: list[tuple[int, int, str]]) -> None:
    doc = Document("file:///r.py", "python", 1, "héllo\nwörld 🚀\nthird\r\nend")
    seen = {1: doc.current.text}
    for k, (at, length, text) in enumerate(steps, start=2):
        current = doc.current.string
        start = min(at, len(current))
        end = min(start + length, len(current))
        doc.apply(k, [ContentChange(text, _span(current, start, end))], Encoding.UTF32)
        seen[k] = doc.current.text
    for version in doc.versions():
        assert version.text == seen[version.version]


def _span(text: str, start: int, end: int) -> tuple[Pos, Pos]:
    def pos(offset: int) -> Pos:
        before = text[:offset]
        line = before.count("\n")
        return Pos(line, len(before) - (before.rfind("\n") + 1))

    return pos(start), pos(end)


def test_edits_since_replays_to_the_current_text() -> None:
    doc = Document("file:///a.py", "python", 1, "one\ntwo\n")
    doc.apply(2, [change("1", (0, 0), (0, 3))], Encoding.UTF16)
    doc.apply(3, [change("zwei", (1, 0), (1, 3)), change("\n", (2, 0))], Encoding.UTF16)
    base = doc.get(1)
    assert base is not None
    text = base.text
    edits = doc.edits_since(1)
    assert edits is not None
    for edit in edits:
        text = edit.apply(text)
    assert text == doc.current.text
    assert doc.edits_since(99) is None


def test_store_open_get_close() -> None:
    store = DocumentStore()
    store.open("file:///a.py", "python", 1, "a")
    a = store.get("file:///a.py")
    assert a is not None and a.uri == "file:///a.py"
    assert store.get("file:///b.py") is None
    assert store.close("file:///a.py") is a
    assert store.get("file:///a.py") is None
    assert len(store) == 0


def test_a_full_text_change_is_recorded_as_precise_edits() -> None:
    old = "alpha\nbeta\ngamma\ndelta\nepsilon\n"
    new = "alpha\nBETA\ngamma\ndelta\nepsilon!\n"
    doc = Document("file:///f.py", "python", 1, old)
    doc.apply(2, [ContentChange(new)], Encoding.UTF16)
    edits = doc.current.edits
    assert [(e.old_text, e.new_text) for e in edits] == [(b"", b"!"), (b"beta", b"BETA")]  # last first
    text = old.encode()
    for edit in edits:
        text = edit.apply(text)
    assert text == new.encode()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["a\n", "b\n", "é\n", "東京\n", "🚀 x\n", "\n", "c", "\r\n"]), max_size=25), st.data())
def test_full_text_edits_replay_to_the_new_text(lines: list[str], data: st.DataObject) -> None:
    old = "".join(lines)
    new_lines = list(lines)
    for _ in range(data.draw(st.integers(0, 5))):
        at = data.draw(st.integers(0, len(new_lines)))
        remove: bool = data.draw(st.booleans())
        if new_lines and remove:
            del new_lines[min(at, len(new_lines) - 1)]
        else:
            new_lines.insert(at, data.draw(st.sampled_from(["x\n", "é y\n", "🚀\n", "z"])))
    new = "".join(new_lines)
    doc = Document("file:///g.py", "python", 1, old)
    doc.apply(2, [ContentChange(new)], Encoding.UTF16)
    text = old.encode()
    for edit in doc.current.edits:
        assert LineIndex(text).point_of(edit.start) == edit.start_point
        text = edit.apply(text)
    assert text == new.encode()


@pytest.mark.parametrize("encoding", [Encoding.UTF16, Encoding.UTF8, Encoding.UTF32])
def test_several_changes_in_one_did_change_apply_in_order(encoding: Encoding) -> None:
    """Multi-cursor edits: each change's positions refer to the text left by the changes before it."""
    doc = Document("file:///m.py", "python", 1, "é = 1\n🚀 = 2\nthree = 3\n")

    def _units(prefix: str) -> int:  # the length of ``prefix`` in ``encoding`` units
        data = prefix.encode("utf-8")
        if encoding is Encoding.UTF8:
            return len(data)
        if encoding is Encoding.UTF16:
            return len(prefix.encode("utf-16-le")) // 2
        return len(prefix)

    changes = [
        ContentChange("X", (Pos(0, _units("é")), Pos(0, _units("é")))),  # é|X = 1
        ContentChange("THREE", (Pos(2, 0), Pos(2, 5))),  # three -> THREE
        ContentChange("", (Pos(1, 0), Pos(1, _units("🚀 ")))),  # the new line 1 starts at "= 2"
        ContentChange("\n", (Pos(0, _units("éX = 1")), Pos(0, _units("éX = 1")))),  # a line break: lines shift
        ContentChange("!", (Pos(3, _units("THREE")), Pos(3, _units("THREE")))),  # on the shifted line
    ]
    assert doc.apply(2, changes, encoding) is not None
    assert doc.current.string == "éX = 1\n\n= 2\nTHREE! = 3\n"
    assert [v.version for v in doc.versions()] == [1, 2]
    replayed = doc.versions()[0].text
    for edit in doc.current.edits:
        replayed = edit.apply(replayed)
    assert replayed == doc.current.text


def test_typing_past_the_budget_does_not_rebuild_the_history_on_every_keystroke(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each eviction materialises the new oldest version forward from the dropped one (one version's edits);
    rebuilding it backward from the newest text undid every kept edit on every keystroke (quadratic)."""
    undone = []
    original = documents.ByteEdit.undo

    def counting_undo(self: documents.ByteEdit, text: bytes) -> bytes:
        undone.append(1)
        return original(self, text)

    monkeypatch.setattr(documents.ByteEdit, "undo", counting_undo)
    doc = Document("file:///a.py", "python", 1, "x = 1\n" * 1000, documents.HistoryBudget(bytes=60_000))
    for v in range(2, 3002):
        doc.apply(v, [change("y", (500, 0))], Encoding.UTF16)
    kept = len(doc.versions())
    assert 10 < kept < 3000  # the byte budget evicts
    assert len(undone) < 2 * kept  # one rebuild at the first eviction at most, not one per keystroke
    assert doc.get(doc.oldest_version) is not None
    assert doc.versions()[0].text.count(b"y") == doc.oldest_version - 1
