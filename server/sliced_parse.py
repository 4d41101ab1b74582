"""One tree-sitter parse cut into slices of a few milliseconds, so that the event loop runs between them.

Why: tree-sitter holds the GIL for a whole parse (no version of py-tree-sitter releases it), and a parse of a
10,000-line file after an edit costs 2-25 ms for Python and ~14 ms for YAML (CPU time; 30-50 ms from nothing):
a parse on the loop, or in a worker thread, is a loop stall that long. Parsing from a read callback with a progress
callback lets the parse stop at a deadline; tree-sitter keeps its state in the parser and resumes on the next call
with the same arguments. The tree such a parse gives reads its text through the callback, so the last step parses
the text once more from the bytes with that tree as the old one (no edit in between: every node is reused, 1-4 ms),
and the tree handed out reads its text from the bytes as every other tree does.
"""

from __future__ import annotations

import time

from tree_sitter import Language, Parser, Tree

#: How long one slice may parse before the loop gets its turn.
SLICE_S = 0.002
#: Bytes handed to tree-sitter per read after a jump (the first read, at 0, hands the whole text without a copy).
CHUNK = 16 * 1024


class SlicedParse:
    """A parse of ``text`` (from ``old``, already edited to it, when given) that :meth:`step` advances."""

    def __init__(self, language: Language, text: bytes, old: Tree | None) -> None:
        self._parser = Parser(language)
        self._text = text
        self._old = old
        self._deadline: float | None = None
        self._halted = False
        self.tree: Tree | None = None
        self.slices = 0  # calls to step that parsed (tests look at it)
        self.seconds = 0.0  # time spent parsing, over every slice

    def _read(self, offset: int, _point: object) -> bytes:
        return self._text if offset == 0 else self._text[offset : offset + CHUNK]

    def _progress(self, _offset: int, _has_error: bool) -> bool:
        if self._deadline is not None and time.perf_counter() > self._deadline:
            self._halted = True
        return self._halted

    def step(self, budget_s: float | None = SLICE_S) -> Tree | None:
        """Parse for about ``budget_s`` (None: to the end); the tree once the parse is done."""
        if self.tree is not None:
            return self.tree
        started = time.perf_counter()
        self._deadline = None if budget_s is None else started + budget_s
        self._halted = False
        self.slices += 1
        try:
            if self._old is None:
                sliced = self._parser.parse(self._read, progress_callback=self._progress)
            else:
                sliced = self._parser.parse(self._read, self._old, progress_callback=self._progress)
        except ValueError:
            if not self._halted:
                raise
            sliced = None  # stopped at the deadline: the parser resumes from here on the next call
        if sliced is not None:
            self.tree = self._parser.parse(self._text, sliced)  # the same tree, reading its text from the bytes
            self._old = None
        self.seconds += time.perf_counter() - started
        return self.tree
