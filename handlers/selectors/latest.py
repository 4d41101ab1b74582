"""The latest selector index of each document recently queried: where the next version's index is spliced
from (:meth:`TreeIndex.updated`), so typing never pays for a walk over every node."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from tree_sitter import Tree

from tether_lsp.server.syntax import Snapshot

from .index import TreeIndex

if TYPE_CHECKING:
    from tether_lsp.server.hooks import DocumentEvent

INDEX_KEY = "selectors.index"


class LatestIndexes:
    """The most recently built selector index of the last few documents used: where the next version's index
    is spliced from, so typing never pays for a walk over every node. Bounded (an index costs about 2 MB for
    10,000 lines): a document not queried lately walks once when it is queried again."""

    KEEP = 8

    def __init__(self) -> None:
        self._by_uri: OrderedDict[str, TreeIndex] = OrderedDict()
        self._answered_unindexed: set[str] = set()

    def index(self, snapshot: Snapshot) -> TreeIndex:
        """The snapshot's selector index, built on first use and dropped with the tree."""

        def build(tree: Tree) -> TreeIndex:
            previous = self._by_uri.get(snapshot.uri)
            if previous is None:
                index = TreeIndex(tree, snapshot.text)
            else:
                index = TreeIndex.updated(previous, tree, snapshot.text)
            self._by_uri[snapshot.uri] = index
            self._by_uri.move_to_end(snapshot.uri)
            while len(self._by_uri) > self.KEEP:
                self._by_uri.popitem(last=False)
            return index

        return snapshot.slot.derived(INDEX_KEY, build)

    def first_without_index(self, snapshot: Snapshot) -> bool:
        """Whether this is the document's first selection with no index to splice from (true once per opening):
        then a kind selection over the whole document is answered without one (:mod:`.unindexed`), and the next
        selection builds the index, which every one after reuses."""
        if snapshot.uri in self._by_uri or snapshot.uri in self._answered_unindexed:
            return False
        self._answered_unindexed.add(snapshot.uri)
        return True

    def on_document(self, event: DocumentEvent) -> None:
        if event.kind == "close":
            self._by_uri.pop(event.uri, None)
            self._answered_unindexed.discard(event.uri)
