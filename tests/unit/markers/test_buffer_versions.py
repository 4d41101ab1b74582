"""The edits typed since a cached version, in characters (``buffer.edits_between``), as a codeLens while typing
asks for them: read back from the newest version without rebuilding any kept one, and equal to converting each
edit by hand in the text it applied to, with accents, CJK and emoji."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether_lsp.handlers.markers import cache
from tether_lsp.handlers.markers.buffer import CharEdit, edits_between
from tether_lsp.handlers.markers.cache import Cached, carried
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.service import Located
from tether_lsp.handlers.markers.store import MarkerRecord
from tether_lsp.server.documents import ByteEdit, ContentChange, Document
from tether_lsp.server.positions import Encoding, LineIndex, Pos


def by_hand(text: bytes, edit: ByteEdit) -> CharEdit:
    """An edit in characters: its rows' starts found by splitting at every "\\n", columns by decoding."""

    def point(row: int, byte_column: int) -> tuple[int, int]:
        start = sum(len(part) + 1 for part in text.split(b"\n")[:row])
        return row, len(text[start : start + byte_column].decode("utf-8", errors="replace"))

    return CharEdit(point(*edit.start_point), point(*edit.old_end_point), edit.new_text.decode())


def typed_by_hand(doc: Document, since: int, texts: dict[int, bytes]) -> list[CharEdit]:
    """What ``edits_between`` should give, from each version's text as it was when it was current."""
    out = []
    versions = doc.versions()
    first = next(k for k, v in enumerate(versions) if v.version == since)
    for k in range(first + 1, len(versions)):
        text = texts[versions[k - 1].version]
        for edit in versions[k].edits:
            out.append(by_hand(text, edit))
            text = edit.apply(text)
    return out


LINES = [f"row_{k} = 'é東🎉' * {k}" if k % 3 else f"row_{k} = {k}" for k in range(3_000)]


def test_a_codelens_after_many_keystrokes_rebuilds_no_kept_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """Typing in the middle of a long file: every keystroke's version is kept as its edits, and converting the
    edits since the cached version reads them back from the newest text. (The old conversion read each kept
    version's text, each rebuilt from the newest by undoing the edits after it: 40 rebuilds here.)"""
    doc = Document("file:///t.py", "python", 1, "\n".join(LINES) + "\n")
    texts = {1: doc.current.text}
    line, column = 1_500, len(LINES[1_500])
    for k, typed in enumerate("x = 'é東🎉'\n# ü" * 3):
        doc.apply(doc.version + 1, [ContentChange(typed, (Pos(line, column), Pos(line, column)))], Encoding.UTF16)
        texts[doc.version] = doc.current.text
        line, column = (line + 1, 0) if typed == "\n" else (line, column + len(typed.encode("utf-16-le")) // 2)
        if k == 5:  # a deletion across a line break among the keystrokes
            doc.apply(doc.version + 1, [ContentChange("", (Pos(line - 1, 3), Pos(line, 0)))], Encoding.UTF16)
            texts[doc.version] = doc.current.text
            line, column = line - 1, 3
    rebuilt: list[int] = []
    rebuild = Document._text_of

    def counted(self: Document, position: int) -> bytes:
        rebuilt.append(position)
        return rebuild(self, position)

    monkeypatch.setattr(Document, "_text_of", counted)
    edits = edits_between(doc.versions(), 1)
    assert rebuilt == []
    assert edits == typed_by_hand(doc, 1, texts)
    assert len(edits) == len(doc.versions()) - 1


PIECES = st.sampled_from(["a", "é", "東京", "🎉", "\n", " ", "ñandú", "👩\u200d👧", "\n\n", ""])


@st.composite
def typing(draw: st.DrawFn) -> tuple[str, list[list[tuple[int, int, str]]]]:
    """A text and didChange notifications, each of one or more changes (a byte offset range, replaced)."""
    text = draw(st.lists(PIECES, min_size=1, max_size=20).map("".join))
    notes = []
    for _ in range(draw(st.integers(1, 6))):
        notes.append(
            [(draw(st.integers(0, 400)), draw(st.integers(0, 6)), draw(PIECES)) for _ in range(draw(st.integers(1, 3)))]
        )
    return text, notes


@settings(max_examples=150, deadline=None)
@given(typing(), st.integers(0, 5))
def test_edits_between_equal_each_edit_converted_in_the_text_it_applied_to(
    case: tuple[str, list[list[tuple[int, int, str]]]], since_at: int
) -> None:
    """Several changes per notification, lines added and removed: the same edits as converting each by hand."""
    text, notes = case
    doc = Document("file:///t.py", "python", 1, text)
    texts = {1: doc.current.text}
    for note in notes:
        changes = []
        current = doc.current.string
        for at, length, new in note:  # applied in order by the document: each in the text the previous left
            index = LineIndex(current.encode())
            start = min(at, len(current))
            end = min(start + length, len(current))
            span = (
                index.position_of(len(current[:start].encode()), Encoding.UTF16),
                index.position_of(len(current[:end].encode()), Encoding.UTF16),
            )
            changes.append(ContentChange(new, span))
            current = current[:start] + new + current[end:]
        doc.apply(doc.version + 1, changes, Encoding.UTF16)
        texts[doc.version] = doc.current.text
    versions = doc.versions()
    since = versions[min(since_at, len(versions) - 1)].version
    assert edits_between(versions, since) == typed_by_hand(doc, since, texts)


def _record() -> MarkerRecord:
    return MarkerRecord(
        "m", "file:///t.py", "n", "comment", "x", None, datetime.now(UTC), "Ada", "", Location(1, 1, 1, 2)
    )


def test_a_cache_with_no_location_to_carry_converts_no_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose markers are all missing (or none): typing in it converts nothing, and a version no longer
    kept still asks for a recomputation."""
    doc = Document("file:///t.py", "python", 1, "a = 1\n")
    doc.apply(2, [ContentChange("é", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)
    asked: list[int] = []

    def spy(versions: object, since: int) -> None:
        asked.append(since)

    monkeypatch.setattr(cache, "edits_between", spy)
    missing = [Located(_record(), None, False, "codeBlockDeleted", Location(1, 1, 1, 2))]
    assert carried(Cached(1, "c0", missing), doc) is missing
    assert carried(Cached(1, "c0", []), doc) == []
    assert carried(Cached(0, "c0", missing), doc) is None  # version 0 was never kept
    assert asked == []
