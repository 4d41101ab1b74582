"""Listing the markers of a file with a 110 KB line (an open, never-saved file; its markers made in one version of
it): the work a list does is that of one diff of the file, and its parses leave the event loop its turns.

Nothing here times anything: spies count the diffs, and a second thread counts the turns it gets while the file is
parsed.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from tether_lsp.handlers.markers import columns, reparse, service, structure
from tether_lsp.handlers.markers.calculator import Location, calculate, split_lines
from tether_lsp.handlers.markers.store import MarkerRecord

PROMPT = "PROMPT = " + " + ".join(['"tell the user hello"'] * 5_000)  # 110 KB on one line
MADE_IN = f"import os\n{PROMPT}\nprint(PROMPT)\n"
NOW = MADE_IN.replace('"tell', '"say', 2)  # two words of the long line changed since


def _marker(marker_id: str, made_in: str, where: Location) -> tuple[MarkerRecord, service.Reference]:
    code = "\n".join(made_in.split("\n")[where.line_start - 1 : where.line_end])
    record = MarkerRecord(marker_id, "file:///p.py", "n", "comment", code, None, datetime.now(UTC), "A", "", where)
    return record, service.Reference(made_in, where)


def test_markers_made_in_one_version_of_a_file_are_located_with_one_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each marker's reference is the file as it was made in, read from the database as a string of its own: equal
    texts, distinct objects. They were grouped by object, so each marker diffed and parsed the 110 KB file again."""
    follows: list[int] = []
    real = structure.follow  # what service calls

    def follow(old: str, new: str, locations: Any, *args: Any, **kwargs: Any) -> Any:
        follows.append(len(locations))
        return real(old, new, locations, *args, **kwargs)

    monkeypatch.setattr(service, "follow", follow)
    copy = "".join(list(MADE_IN))  # the same text, another object (as two rows read from the database are)
    assert copy == MADE_IN and copy is not MADE_IN
    whole, whole_ref = _marker("whole", MADE_IN, Location(2, 1, 3, 1))
    word, word_ref = _marker("word", copy, Location(2, 30, 2, 50))
    located = service.locate_all([whole, word], NOW, {"whole": whole_ref, "word": word_ref})
    assert follows == [2]  # one diff for both (was [1, 1])
    assert [(m.record.id, m.location) for m in located] == [
        ("whole", Location(2, 1, 3, 1)),
        ("word", Location(2, 29, 2, 48)),  # "tell" -> "say" before it and inside it
    ]


class Turns:
    """A second thread that counts the turns it gets at the GIL while the main thread is inside ``parsing``."""

    def __init__(self) -> None:
        self.inside = False
        self.turns = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop:
            if self.inside:
                self.turns += 1
            sys.modules["time"].sleep(0)  # hands the GIL back at once: one count per turn

    def __enter__(self) -> Turns:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop = True
        self._thread.join()


@pytest.fixture
def short_switch_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.0001)  # a thread waiting for the GIL asks for it after 0.1 ms
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@pytest.mark.usefixtures("short_switch_interval")
def test_another_thread_gets_turns_while_a_file_with_a_110_kb_line_is_parsed() -> None:
    """A list parses the file (to snap markers to the definitions they cover) in a worker thread; a parse of bytes
    held the GIL from start to end (20-50 ms here), so the event loop got no turn meanwhile: the other thread counted
    0 turns (or 1, when it took one just before the parse began)."""
    data = MADE_IN.encode()
    with Turns() as other:
        other.inside = True
        tree = reparse.parse("python", data, None)
        other.inside = False
    assert tree is not None and tree.root_node.end_byte == len(data) and not tree.root_node.has_error
    assert other.turns >= 10, other.turns


@pytest.mark.parametrize(
    "text", ["", "a", "a\nb\n", "a\r\nb\rc\n\r\n", "\n\n", "x\r", MADE_IN, MADE_IN.replace("\n", "\r\n")]
)
def test_lines_are_split_as_lsp_does_with_or_without_cr(text: str) -> None:
    """Texts without CR are split by ``str.split`` (the regular expression cost 3-4 ms per split of this file)."""
    assert split_lines(text) == re.split(r"\r\n|\r|\n", text)


def test_the_columns_of_markers_on_one_long_line_come_from_one_alignment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole line's start and the word's start and end are columns of the same two 110 KB lines: their common
    start and end were found, and the middle aligned, once per column (3 times) before."""
    aligned: list[int] = []
    real = columns.common_ends

    def common_ends(a: str, b: str) -> tuple[int, int]:
        aligned.append(len(a))
        return real(a, b)

    monkeypatch.setattr(columns, "common_ends", common_ends)
    columns._kept_opcodes.cache_clear()
    results = calculate(MADE_IN, NOW, {"whole": Location(2, 1, 3, 1), "word": Location(2, 30, 2, 50)})
    assert [results[k].location for k in ("whole", "word")] == [Location(2, 1, 3, 1), Location(2, 29, 2, 48)]
    assert aligned == [len(PROMPT)]
