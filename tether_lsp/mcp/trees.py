"""Parses of the files' versions, with node ids as on the LSP side (``server/nodes.py``): each parsed version gets
a fresh id space from the process-wide counter, and keeps it — a tree dropped from the cache is parsed again
from the same bytes and gets the same ids back, so an id an agent holds stays valid while its version is kept."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

from tree_sitter import Parser, Tree

from tether_lsp.handlers.selectors.index import TreeIndex
from tether_lsp.handlers.selectors.kinds import KindTable, table_for
from tether_lsp.server.comment_edits import edit_tree
from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.nodes import NodeIdSpace, allocate, reserve
from tether_lsp.server.syntax import GrammarLimits, language_by_name, language_for, parse_text

from .files import FileText

#: Parsed versions whose trees stay in memory.
KEEP_TREES = 8
#: Versions whose id spaces are remembered (a few integers each).
KEEP_IDS = 4096


class Parsed:
    """One version of a file parsed: its tree, node ids, kind table, and its selector index (built on first use,
    spliced from the previous version's when this version was written by an edit from it)."""

    def __init__(self, language: str, tree: Tree, ids: NodeIdSpace, text: bytes, seed: TreeIndex | None = None):
        self.language = language
        self.tree = tree
        self.ids = ids
        self.text = text
        self.table: KindTable = table_for(language, tree.language)
        self._seed = seed
        self._index: TreeIndex | None = None

    @property
    def index(self) -> TreeIndex:
        if self._index is None:
            seed, self._seed = self._seed, None
            self._index = TreeIndex.updated(seed, self.tree, self.text) if seed else TreeIndex(self.tree, self.text)
        return self._index

    @property
    def indexed(self) -> TreeIndex | None:
        """The selector index if it was built (what a later version's index can be spliced from)."""
        return self._index

    def node_id(self, row: int) -> int:
        return self.ids.base + row

    def row(self, node_id: int) -> int | None:
        return node_id - self.ids.base if self.ids.contains(node_id) else None


class Trees:
    """A small cache of parses by (path, version), and the id space each version was given."""

    def __init__(self, limits: GrammarLimits) -> None:
        self.limits = limits
        #: Where a version's tree may come from without parsing (attached mode: the language server's parse of
        #: an open buffer, :meth:`~.attached_source.WorkspaceSource.server_tree`); None: always parse here.
        self.shared: Callable[[FileText, str], Tree | None] | None = None
        #: Parses made here (tests: what the language server parsed is not parsed again).
        self.parses = 0
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
        language = self.parsable(file, field)
        tree = self.shared(file, language) if self.shared is not None else None
        if tree is None:
            tree = parse_text(language, file.text, self.limits)
            self.parses += 1
        return self._keep(key, Parsed(language, tree, self._ids_of(key, tree), file.text))

    def parsable(self, file: FileText, field: str = "path") -> str:
        """The file's language; ``field`` is refused as :meth:`parsed` refuses it (not Python or YAML, or too large
        or deep to parse)."""
        language = self._language(file, field)
        text_only = self.limits.check(language, file.text)
        if text_only is not None:
            exc = text_only.error()
            raise InvalidParams(field, f"{file.shown}: {exc.message}", kind=exc.data.get("kind", ""))
        return language

    def ids_of(self, file: FileText, count: int) -> NodeIdSpace:
        """The node ids of ``file``'s version parsed elsewhere into ``count`` nodes (a worker process): the ones this
        version has, or new ones it keeps (a later parse here of the same bytes gets them back)."""
        key = (file.path, file.version)
        ids = self._ids.get(key)
        if ids is None or ids.count != count:
            ids = reserve(count)
        self._remember_ids(key, ids)
        return ids

    def written(self, before: FileText, after: FileText, edits: Sequence[ByteEdit]) -> None:
        """A version this front wrote from ``before`` by ``edits`` (each in the text the previous ones leave): its
        parse is made from ``before``'s by tree-sitter's incremental parse (milliseconds where a whole parse of a
        long file takes tens), its selector index spliced from the old one when that was built."""
        key = (after.path, after.version)
        if key in self._trees or self.language(before) is None:
            return
        try:
            old = self.parsed(before)  # what the syntax check of the write needs anyway
        except InvalidParams:
            return
        if self.limits.check(old.language, after.text) is not None:
            return
        tree = old.tree.copy()
        for edit in edits:
            edit_tree(tree, edit)
        new = Parser(language_by_name(old.language).language).parse(after.text, tree)
        self._keep(key, Parsed(old.language, new, self._ids_of(key, new), after.text, old.indexed))

    def _language(self, file: FileText, field: str) -> str:
        language = self.language(file)
        if language is None:
            raise InvalidParams(field, f"{file.shown} is not a Python or YAML file (.py, .pyi, .yaml, .yml)")
        return language

    def _ids_of(self, key: tuple[Path, str], tree: Tree) -> NodeIdSpace:
        ids = self._ids.get(key)
        if ids is None or ids.count != tree.root_node.descendant_count:
            ids = allocate(tree)
        self._remember_ids(key, ids)
        return ids

    def _remember_ids(self, key: tuple[Path, str], ids: NodeIdSpace) -> None:
        self._ids[key] = ids
        self._ids.move_to_end(key)
        while len(self._ids) > KEEP_IDS:
            self._ids.popitem(last=False)

    def _keep(self, key: tuple[Path, str], parsed: Parsed) -> Parsed:
        self._trees[key] = parsed
        while len(self._trees) > KEEP_TREES:
            self._trees.popitem(last=False)
        return parsed
