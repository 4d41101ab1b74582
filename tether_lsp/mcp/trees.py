"""Parses of the files' versions, with node ids as on the LSP side (``server/nodes.py``): each parsed version gets
a fresh id space from the process-wide counter, and keeps it — a tree dropped from the cache is parsed again
from the same bytes and gets the same ids back, so an id an agent holds stays valid while its version is kept."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Tree

from tether_lsp.handlers.selectors.index import TreeIndex
from tether_lsp.handlers.selectors.kinds import KindTable, table_for
from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.nodes import NodeIdSpace, allocate
from tether_lsp.server.syntax import GrammarLimits, language_for, parse_text

from .files import FileText

#: Parsed versions whose trees stay in memory.
KEEP_TREES = 8
#: Versions whose id spaces are remembered (a few integers each).
KEEP_IDS = 4096


@dataclass(frozen=True)
class Parsed:
    """One version of a file parsed: its tree, node ids, selector index and kind table."""

    language: str
    tree: Tree
    ids: NodeIdSpace
    index: TreeIndex
    table: KindTable

    def node_id(self, row: int) -> int:
        return self.ids.base + row

    def row(self, node_id: int) -> int | None:
        return node_id - self.ids.base if self.ids.contains(node_id) else None


class Trees:
    """A small cache of parses by (path, version), and the id space each version was given."""

    def __init__(self, limits: GrammarLimits) -> None:
        self.limits = limits
        self._trees: OrderedDict[tuple[Path, str], Parsed] = OrderedDict()
        self._ids: OrderedDict[tuple[Path, str], NodeIdSpace] = OrderedDict()

    @staticmethod
    def language(file: FileText) -> str | None:
        spec = language_for(None, file.path.as_uri())
        return spec.name if spec is not None else None

    def parsed(self, file: FileText, field: str = "path") -> Parsed:
        """The file's parse; ``field`` is refused when the file is not Python or YAML, or too large or deep."""
        key = (file.path, file.version)
        found = self._trees.get(key)
        if found is not None:
            self._trees.move_to_end(key)
            return found
        language = self.language(file)
        if language is None:
            raise InvalidParams(field, f"{file.shown} is not a Python or YAML file (.py, .pyi, .yaml, .yml)")
        try:
            tree = parse_text(language, file.text, self.limits)
        except RequestFailed as exc:
            raise InvalidParams(field, f"{file.shown}: {exc.message}", kind=exc.data.get("kind", "")) from None
        ids = self._ids.get(key)
        if ids is None or ids.count != tree.root_node.descendant_count:
            ids = allocate(tree)
        self._ids[key] = ids
        self._ids.move_to_end(key)
        while len(self._ids) > KEEP_IDS:
            self._ids.popitem(last=False)
        parsed = Parsed(language, tree, ids, TreeIndex(tree, file.text), table_for(language, tree.language))
        self._trees[key] = parsed
        while len(self._trees) > KEEP_TREES:
            self._trees.popitem(last=False)
        return parsed
