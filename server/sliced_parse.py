"""One tree-sitter parse cut into slices of a few milliseconds, so that the event loop runs between them.

Why: tree-sitter holds the GIL for a whole parse (no version of py-tree-sitter releases it), and a parse of a
10,000-line file after an edit costs 2-25 ms for Python and ~14 ms for YAML (CPU time; 30-50 ms from nothing):
a parse on the loop, or in a worker thread, is a loop stall that long. Parsing from a read callback with a progress
callback lets the parse stop at a deadline; tree-sitter keeps its state in the parser and resumes on the next call
with the same arguments. A tree parsed from a callback reads its nodes' text through it (:class:`_Source`): a call
and a small copy per ``Node.text``, some 20% more for a walk that reads every node's text, where parsing the text
once more from the bytes to get a tree like the others would cost 1-4 ms more per version.
"""

from __future__ import annotations

import time

from tree_sitter import Language, Parser, Tree

#: How long one slice may parse before the loop gets its turn.
SLICE_S = 0.002
#: Bytes copied per read of a node's text once the parse is done (a longer node's text takes several reads).
TEXT_CHUNK = 256


class _Source:
    """The text as tree-sitter reads it: while parsing, a view of the rest from the offset asked (no copy); once
    the tree is built, small copies for ``Node.text`` (py-tree-sitter reads a node's text as bytes)."""

    __slots__ = ("parsing", "text", "view")

    def __init__(self, text: bytes) -> None:
        self.text, self.view, self.parsing = text, memoryview(text), True

    def __call__(self, offset: int, _point: object) -> bytes | memoryview:
        if self.parsing:
            return self.view[offset:]
        return self.text[offset : offset + TEXT_CHUNK]


class SlicedParse:
    """A parse of ``text`` (from ``old``, already edited to it, when given) that :meth:`step` advances."""

    def __init__(self, language: Language, text: bytes, old: Tree | None) -> None:
        self._parser = Parser(language)
        self._source = _Source(text)
        self._old = old
        self._deadline: float | None = None
        self._halted = False
        self.tree: Tree | None = None
        self.slices = 0  # calls to step that parsed (tests look at it)
        self.seconds = 0.0  # time spent parsing, over every slice

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
                tree = self._parser.parse(self._source, progress_callback=self._progress)
            else:
                tree = self._parser.parse(self._source, self._old, progress_callback=self._progress)
        except ValueError:
            if not self._halted:
                raise
            tree = None  # stopped at the deadline: the parser resumes from here on the next call
        if tree is not None:
            self._source.parsing = False
            self.tree, self._old = tree, None
        self.seconds += time.perf_counter() - started
        return self.tree
