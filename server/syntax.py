"""tree-sitter for Tether: the parse cache and immutable snapshots (the grammars are :mod:`server.languages`,
what may be parsed at all :mod:`server.grammar_limits`).

Why: every feature reads documents through a :class:`Snapshot` — text, line index, tree and node-id space
of one version — taken at dispatch and never mutated. The cache is keyed on ``(uri, version)``.

Parsing is lazy: ``didChange`` only records a snapshot; its tree (and node-id space, and the verdict on
whether the text may be parsed at all) is built the first time something asks for it, by one incremental
parse from the latest tree parsed for that document across all the edits in between. A burst of sixty
keystrokes costs one parse, paid by the first request that needs a tree. A handler that can wait for it
(``await snapshot.slot.parse_soon()``) gets it parsed in slices of a few milliseconds with the loop running in
between (:mod:`server.sliced_parse`); every feature asking for that version's tree meanwhile shares that parse.
Each parsed version gets its own fresh ids; an intermediate version that was never parsed simply never had ids.
The latest parsed tree is kept per document (edited on a *copy*, so older snapshots keep theirs), and a few
recent snapshots per uri. YAML edits that stay inside comments skip even that parse (``comment_edits`` says why
and when).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from tree_sitter import Parser, Tree

from . import comment_edits
from .documents import Document, TextVersion

# GrammarLimits, language_for and language_by_name are named here too: many modules import them from it.
from .grammar_limits import GrammarLimits as GrammarLimits
from .grammar_limits import TextOnly
from .languages import LanguageSpec
from .languages import language_by_name as language_by_name
from .languages import language_for as language_for
from .nodes import NodeIdSpace, allocate
from .positions import LineIndex
from .settings import LimitSettings
from .sliced_parse import SlicedParse

# Parsed and TreeSlot are named here too, where they were defined before tree_slot.py.
from .tree_slot import Parsed as Parsed
from .tree_slot import TreeSlot as TreeSlot

T = TypeVar("T")
log = logging.getLogger(__name__)

#: Snapshots kept per uri (the current one and a few recent ones for in-flight requests).
SNAPSHOTS_PER_URI = 4
#: Source bytes of documents whose trees stay in memory by default (``tether.limits.treeCacheBytes``).
TREE_BUDGET_BYTES: int = LimitSettings().treeCacheBytes


_NO_TREE = TreeSlot(None)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """One version of one document, immutable: what read-only handlers work on."""

    uri: str
    doc: TextVersion
    language: str | None
    slot: TreeSlot

    @property
    def tree(self) -> Tree | None:
        return self.slot.get()

    @property
    def ids(self) -> NodeIdSpace | None:
        return self.slot.parsed().ids

    @property
    def parse_ms(self) -> float:
        return self.slot.parsed().parse_ms

    @property
    def text_only(self) -> TextOnly | None:
        """Set when the document's language is parsed but this text is not (too large, too deep)."""
        return self.slot.parsed().text_only

    def tree_or_raise(self) -> Tree | None:
        """The tree; None for a language Tether does not parse; -32803 for a text too large or too deep."""
        if self.text_only is not None:
            raise self.text_only.error()
        return self.slot.get()

    @property
    def version(self) -> int:
        """The server's order of versions (the cache key)."""
        return self.doc.version

    @property
    def client_version(self) -> int:
        """The client's number for this version: what the client is told."""
        return self.doc.client_version

    @property
    def text(self) -> bytes:
        return self.doc.text

    @property
    def index(self) -> LineIndex:
        return self.doc.index


class _Build:
    """How one version's tree is built: all at once when a caller needs it now, or in slices (:meth:`step`) that
    leave the loop its turn in between; a caller needing it now finishes a parse that slices began."""

    def __init__(self, cache: SyntaxCache, doc: Document, current: TextVersion, spec: LanguageSpec, slot: TreeSlot):
        self.cache, self.doc, self.current, self.spec, self.slot = cache, doc, current, spec, slot
        self._job: SlicedParse | None = None
        self._base: tuple[Tree, bool] | None = None
        self._ready: Parsed | None = None  # built without a parse (text only, or edits inside comments only)

    def _start(self) -> bool:
        """Check the text and find the tree to start from; True when no parse is needed."""
        if self._ready is None and self._job is None:
            cache, uri = self.cache, self.doc.uri
            text_only = cache._text_only(uri, self.spec, self.current.text)
            if text_only is not None:
                self._ready = Parsed(None, None, 0.0, text_only)
                return True
            self._base = cache._edited_base(self.doc, self.current.version, self.spec.name)
            if self._base is not None and self._base[1]:  # edits inside comments only: the edited tree is the new one
                self._ready = cache._parsed(self, self._base[0], 0.0)
        return self._ready is not None

    def step(self) -> bool:
        """Parse one slice; True once the tree is there (:meth:`__call__` then only records it)."""
        if self._start():
            return True
        if self._job is None:
            self._job = SlicedParse(self.spec.language, self.current.text, self._base[0] if self._base else None)
        return self._job.step() is not None

    def __call__(self) -> Parsed:
        if self._start():
            assert self._ready is not None
            return self._ready
        cache, uri = self.cache, self.doc.uri
        if self._job is None:
            tree, ms = cache._parse(uri, self.spec, self.current.text, self._base[0] if self._base else None)
            return cache._parsed(self, tree, ms)
        finished = self._job.step(None)
        assert finished is not None
        cache._counted(uri)
        return cache._parsed(self, finished, self._job.seconds * 1000)


class SyntaxCache:
    """Parse cache keyed on ``(uri, version)`` with incremental reparsing; main-thread only.

    Memory: a tree-sitter tree costs about 35 bytes per source byte (10 MB for a 10,000-line file), so
    the current trees of the least recently used documents beyond ``tree_budget`` source bytes are
    dropped and re-parsed (same ids) when next needed; documents being edited or queried stay resident,
    so a request on the current version does not reparse.
    """

    def __init__(
        self,
        keep: int = SNAPSHOTS_PER_URI,
        tree_budget: int | Callable[[], int] = TREE_BUDGET_BYTES,
        limits: Callable[[], GrammarLimits] = GrammarLimits,
    ) -> None:
        self._keep = keep
        self._tree_budget = tree_budget
        self._limits = limits
        self._warned: set[str] = set()
        self._parsers: dict[str, Parser] = {}
        self._by_uri: dict[str, OrderedDict[int, Snapshot]] = {}
        self._recent: OrderedDict[str, int] = OrderedDict()  # uri -> source bytes of its resident trees
        #: The latest tree parsed per document, and its version: where the next parse starts from.
        self._latest_parsed: dict[str, tuple[int, Tree]] = {}
        self.parse_count = 0  # the whole process
        self.parse_counts: dict[str, int] = {}  # per document

    def _parser(self, spec: LanguageSpec) -> Parser:
        parser = self._parsers.get(spec.name)
        if parser is None:
            parser = self._parsers[spec.name] = Parser(spec.language)
        return parser

    def _store(self, snapshot: Snapshot) -> Snapshot:
        kept = self._by_uri.setdefault(snapshot.uri, OrderedDict())
        kept[snapshot.version] = snapshot
        while len(kept) > self._keep:
            kept.popitem(last=False)
        return snapshot

    def _touch(self, uri: str, size: int) -> None:
        self._recent[uri] = size
        self._recent.move_to_end(uri)
        total = sum(self._recent.values())
        budget = self._tree_budget() if callable(self._tree_budget) else self._tree_budget
        while total > budget and len(self._recent) > 1:
            victim, victim_size = next(iter(self._recent.items()))
            if victim == uri:
                break
            del self._recent[victim]
            total -= victim_size
            self._evict(victim)

    def _evict(self, uri: str) -> None:
        kept = self._by_uri.get(uri)
        self._latest_parsed.pop(uri, None)
        if not kept:
            return
        current = next(reversed(kept.values()))
        kept.clear()  # older snapshots share subtrees with the current one: drop them with it
        kept[current.version] = current
        current.slot.evict()

    def _parse(self, uri: str, spec: LanguageSpec, text: bytes, old: Tree | None) -> tuple[Tree, float]:
        started = time.perf_counter()
        tree = self._parser(spec).parse(text, old) if old is not None else self._parser(spec).parse(text)
        self._counted(uri)
        return tree, (time.perf_counter() - started) * 1000

    def _counted(self, uri: str) -> None:
        self.parse_count += 1
        self.parse_counts[uri] = self.parse_counts.get(uri, 0) + 1

    def _lazy(self, doc: Document, current: TextVersion, spec: LanguageSpec) -> Snapshot:
        """A snapshot whose tree is parsed when first needed (see the module docstring)."""
        slot = TreeSlot(None)
        slot._build = _Build(self, doc, current, spec, slot)
        return self._store(Snapshot(doc.uri, current, spec.name, slot))

    def _parsed(self, build: _Build, tree: Tree, ms: float) -> Parsed:
        """What a parse of ``build``'s version gave: its ids, the tree the next version parses from, a refill."""
        uri, spec, current = build.doc.uri, build.spec, build.current
        ids = allocate(tree)
        if self._latest_parsed.get(uri, (-1, tree))[0] <= current.version:
            self._latest_parsed[uri] = (current.version, tree)

        def refill() -> Tree:
            fresh, _ = self._parse(uri, spec, current.text, None)
            if fresh.root_node.descendant_count != ids.count:  # pragma: no cover - parsing is deterministic
                raise RuntimeError(f"re-parse of {uri} gave a different tree")
            self._touch(uri, len(current.text))
            return fresh

        build.slot.set_refill(refill)
        if uri in self._by_uri and current.version == self._newest_version(uri):
            self._touch(uri, len(current.text))
        return Parsed(tree, ids, ms)

    def _text_only(self, uri: str, spec: LanguageSpec, text: bytes) -> TextOnly | None:
        text_only = self._limits().check(spec.name, text)
        if text_only is not None and uri not in self._warned:  # once per document, not per keystroke
            self._warned.add(uri)
            log.warning("%s: %s", uri, text_only.reason)
        return text_only

    def _edited_base(self, doc: Document, version: int, language: str) -> tuple[Tree, bool] | None:
        """The latest parsed tree of the document, copied and edited up to ``version`` (None: parse afresh),
        and whether that tree needs no parse (every edit stayed inside a comment: see ``comment_edits``)."""
        latest = self._latest_parsed.get(doc.uri)
        if latest is None or latest[0] >= version:
            return None
        base_version, base = latest
        edits = [e for v in doc.versions() if base_version < v.version <= version for e in v.edits]
        kept = {v.version for v in doc.versions()}
        if base_version not in kept or version not in kept:
            return None
        old = base.copy()
        if language in comment_edits.LANGUAGES:
            return old, comment_edits.edit_comments(old, edits)
        for edit in edits:
            comment_edits.edit_tree(old, edit)
        return old, False

    def _newest_version(self, uri: str) -> int:
        kept = self._by_uri.get(uri)
        return next(reversed(kept)) if kept else -1

    def open(self, doc: Document) -> Snapshot:
        """Snapshot a newly opened document (parsed when first needed)."""
        self.close(doc.uri)
        return self.update(doc)

    def update(self, doc: Document) -> Snapshot:
        """Snapshot the document's current version; no parse happens here."""
        spec = language_for(doc.language_id, doc.uri)
        if spec is None:
            return self._store(Snapshot(doc.uri, doc.current, None, _NO_TREE))
        if (latest := self._latest_parsed.get(doc.uri)) is not None and latest[0] > doc.current.version:
            self._latest_parsed.pop(doc.uri)
        return self._lazy(doc, doc.current, spec)

    def latest(self, uri: str) -> Snapshot | None:
        kept = self._by_uri.get(uri)
        if not kept:
            return None
        return next(reversed(kept.values()))

    def get(self, uri: str, version: int | None = None) -> Snapshot | None:
        """The snapshot of ``uri`` at ``version`` (the latest when None), if kept."""
        kept = self._by_uri.get(uri)
        if not kept:
            return None
        snapshot = next(reversed(kept.values())) if version is None else kept.get(version)
        if snapshot is not None and uri in self._recent:
            self._recent.move_to_end(uri)  # recently queried documents keep their trees
        return snapshot

    def close(self, uri: str) -> None:
        self._by_uri.pop(uri, None)
        self._recent.pop(uri, None)
        self._latest_parsed.pop(uri, None)
        self._warned.discard(uri)

    def resident_uris(self) -> list[str]:
        """Documents whose current tree is in memory, least recently used first."""
        return list(self._recent)


def parse_text(language: str, text: bytes, limits: GrammarLimits | None = None) -> Tree:
    """Parse a text outside any document (CLI, engines' own texts, tests); RequestFailed when it must not be."""
    text_only = (limits or GrammarLimits()).check(language, text)
    if text_only is not None:
        raise text_only.error()
    return Parser(language_by_name(language).language).parse(text)
