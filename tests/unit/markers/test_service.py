"""Backtracking on creation: is the block already committed?"""

from __future__ import annotations

from tether_lsp.handlers.markers.calculator import Location, block_of
from tether_lsp.handlers.markers.service import backtrack

COMMITTED = "a = 1\ndef f():\n    return 2\n"


def test_block_present_in_the_committed_text() -> None:
    buffer = "# new header\n" + COMMITTED
    assert backtrack(buffer, Location(2, 1, 4, 13), COMMITTED) == Location(1, 1, 3, 13)


def test_block_edited_since_the_commit_is_new_code() -> None:
    buffer = COMMITTED.replace("return 2", "return 3")
    assert backtrack(buffer, Location(2, 1, 3, 13), COMMITTED) is None


def test_added_block_and_missing_base() -> None:
    buffer = COMMITTED + "def g():\n    pass\n"
    assert backtrack(buffer, Location(4, 1, 5, 9), COMMITTED) is None
    assert backtrack(COMMITTED, Location(1, 1, 1, 6), None) is None


def test_block_text() -> None:
    assert block_of(COMMITTED, Location(2, 5, 3, 11)) == "f():\n    return"
    assert block_of("café 東京\n", Location(1, 6, 1, 8)) == "東京"


def test_content_fallback_finds_the_code_when_no_reference_is_usable() -> None:
    from datetime import UTC, datetime

    from tether_lsp.handlers.markers.service import locate_all
    from tether_lsp.handlers.markers.store import MarkerRecord

    def marker(code: str) -> MarkerRecord:
        return MarkerRecord(
            "m", "file:///x.py", "n", "comment", code, "c0", datetime.now(UTC), "A", "", Location(1, 1, 1, 1)
        )

    now = "# top\n\n" + COMMITTED
    (found,) = locate_all([marker("def f():\n    return 2")], now, {"m": "missingOriginalCommit"})
    assert (found.location, found.missing_reason) == (Location(4, 1, 5, 13), None)
    (absent,) = locate_all([marker("def g():\n    return 7")], now, {"m": "missingOriginalCommit"})
    assert (absent.location, absent.missing_reason) == (None, "missingOriginalCommit")
