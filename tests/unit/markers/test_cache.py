"""An open document's cached markers carried through the edits typed since (``cache.carried``), on a real
``Document``: what ``list`` answers while typing without reading git, the database or the file."""

from __future__ import annotations

from datetime import UTC, datetime

from tether_lsp.handlers.markers.cache import Cached, carried
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.service import Located
from tether_lsp.handlers.markers.store import MarkerRecord
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, Pos

TEXT = "a = 1\ndef f():\n    return 2\n"
BLOCK = Location(2, 1, 3, 13)


def located(code: str = "def f():\n    return 2") -> Located:
    record = MarkerRecord("m", "file:///a.py", "n", "comment", code, None, datetime.now(UTC), "Ada", "", BLOCK)
    return Located(record, BLOCK, False, None, BLOCK)


def typed(doc: Document, start: Pos, end: Pos, text: str) -> None:
    doc.apply(doc.version + 1, [ContentChange(text, (start, end))], Encoding.UTF16)


def test_the_same_version_answers_as_cached() -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    items = [located()]
    assert carried(Cached(1, "c0", items), doc) is items


def test_lines_typed_above_move_the_block_and_keep_its_stored_place() -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    typed(doc, Pos(0, 0), Pos(0, 0), "import os\n\n")
    (item,) = carried(Cached(1, "c0", [located()]), doc) or []
    assert (item.location, item.content_changed, item.place, item.state) == (
        Location(4, 1, 5, 13),
        False,
        BLOCK,
        "moved",
    )


def test_an_edit_inside_the_block_marks_it_changed() -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    typed(doc, Pos(2, 4), Pos(2, 10), "yield")  # inside: the block ends one character sooner
    (item,) = carried(Cached(1, "c0", [located()]), doc) or []
    assert (item.location, item.state) == (Location(2, 1, 3, 12), "changed")


def test_an_edit_across_a_boundary_or_a_version_not_kept_recomputes() -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    typed(doc, Pos(1, 0), Pos(1, 3), "async def")  # replaces the block's first characters: its start is unknown
    assert carried(Cached(1, "c0", [located()]), doc) is None
    assert carried(Cached(0, "c0", [located()]), doc) is None  # version 0 was never kept
