"""The outline's items as plain values, from one parse: what :mod:`.outline` nests and names, whether the parse is in
this process or in a worker process (:func:`outline_rows`, for a large file: the walk over the tree and the
building of the items hold the interpreter for hundreds of milliseconds there, not in the language server).

Items name their node by its pre-order row; the caller adds the base of the version's node ids
(:mod:`tether_lsp.server.nodes`), which only the process that hands ids out knows.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tree_sitter import Tree

from tether_lsp.handlers.playground.engine import Prompt, scan
from tether_lsp.handlers.selectors.engine import run, validate
from tether_lsp.server.nodes import NodeIdSpace, descendant_index
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.process_trees import tree_for
from tether_lsp.server.syntax import GrammarLimits

from .args import Json, range_of
from .trees import Parsed

#: The selectors that find the outline's items, and those that find their names, per language.
ITEMS = {"python": ("selectClasses", "selectFunctions"), "yaml": ("selectDocuments", "selectPairs")}
NAMES = {"python": "selectName", "yaml": "selectKey"}

#: A class, function, method, YAML document or key: start and end bytes, row, kind, name, range.
Structural = tuple[int, int, int, str, str, Json]
#: Where a prompt sits: start and end bytes, the row of the node of its whole expression, range.
Place = tuple[int, int, int, Json]
#: What a worker process answers: its id, the parse's node count, the items, the prompts and their places.
Rows = tuple[int, int, list[Structural], list[Prompt], list[Place]]


def _select(parsed: Parsed, lines: LineIndex, name: str, cursors: list[int]) -> list[int]:
    return run(
        validate(name, []),
        parsed.index,
        parsed.table,
        parsed.tree,
        cursors,
        lambda line, ch: lines.offset_of(Pos(line, ch), Encoding.UTF32),
    )


def _kind(parsed: Parsed, row: int) -> str:
    table, index = parsed.table, parsed.index
    if parsed.language == "yaml":
        return "document" if table.matches("document", index, row) else "key"
    if table.matches("class", index, row):
        return "class"
    return "method" if table.matches("method", index, row) else "function"


def structural(parsed: Parsed, lines: LineIndex) -> list[Structural]:
    """The classes, functions and methods (Python) or documents and keys (YAML), in pre-order, named."""
    index, language = parsed.index, parsed.language
    rows = sorted({r for name in ITEMS[language] for r in _select(parsed, lines, name, [0])})
    wanted = set(rows)
    names: dict[int, str] = {}
    for name_row in _select(parsed, lines, NAMES[language], rows):
        owner = next((a for a in index.ancestors(name_row) if a in names or a in wanted), None)
        if owner is not None and owner not in names:
            names[owner] = index.node_text(name_row)
    out: list[Structural] = []
    documents = 0
    for row in rows:
        kind = _kind(parsed, row)
        if kind == "document":
            documents += 1
        start, end = index.span(row)
        name = names.get(row, f"document {documents}" if kind == "document" else "")
        out.append((start, end, row, kind, name, range_of(lines, start, end)))
    return out


def places(tree: Tree, lines: LineIndex, prompts: Sequence[Prompt]) -> list[Place]:
    """Where each prompt sits: the node of its whole expression (the root when none spans it), its range."""
    out: list[Place] = []
    for prompt in prompts:
        start, end = prompt.span
        node = tree.root_node.descendant_for_byte_range(start, end) or tree.root_node
        out.append((start, end, descendant_index(tree, node), range_of(lines, start, end)))
    return out


def outline_rows(
    key: str,
    language: str,
    text: bytes,
    limits: GrammarLimits,
    keywords: Sequence[str] | None,
    yaml_keys: Sequence[str] | None,
) -> Rows | None:
    """Worker process: the outline of ``text`` as plain values (None when ``limits`` keep it as text only). The
    tree is parsed from the one this process kept of ``key``'s previous version, and the prompts found from the
    units it kept (the playground's own scans of the same document, by its uri, share both)."""
    tree = tree_for(key, language, text, limits)
    if tree is None:
        return None
    parsed = Parsed(language, tree, NodeIdSpace(0, tree.root_node.descendant_count), text)
    lines = LineIndex(text)
    prompts, _error = scan(language, tree, text, keywords, yaml_keys, key)
    return os.getpid(), parsed.ids.count, structural(parsed, lines), prompts, places(tree, lines, prompts)
