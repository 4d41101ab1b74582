"""Run selector chains in-process on a source text and read back the selected texts."""

from __future__ import annotations

from typing import Any

from tether_lsp.handlers.selectors.engine import run, validate
from tether_lsp.handlers.selectors.index import TreeIndex
from tether_lsp.handlers.selectors.kinds import table_for
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.syntax import language_by_name, parse_text

Step = str | tuple[Any, ...]


class Doc:
    def __init__(self, language: str, source: str) -> None:
        self.language = language
        self.text = source.encode()
        self.tree = parse_text(language, self.text)
        self.index = TreeIndex(self.tree, self.text)
        self.table = table_for(language, language_by_name(language).language)
        self.lines = LineIndex(self.text)

    def chain(self, *steps: Step, start: list[int] | None = None) -> list[int]:
        cursors = start if start is not None else [0]
        for step in steps:
            name, args = (step, ()) if isinstance(step, str) else (step[0], step[1:])
            validated = validate(name, list(args))
            cursors = run(
                validated,
                self.index,
                self.table,
                self.tree,
                cursors,
                lambda line, ch: self.lines.offset_of(Pos(line, ch), Encoding.UTF16),
            )
        return cursors

    def texts(self, *steps: Step) -> list[str]:
        return [self.index.node_text(i) for i in self.chain(*steps)]

    def types(self, *steps: Step) -> list[str]:
        return [self.index.type_name(i) for i in self.chain(*steps)]
