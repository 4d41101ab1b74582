"""tree-sitter for Tether: the language registry, the parse cache and immutable snapshots.

Why: every feature reads documents through a :class:`Snapshot` — text, line index, tree and node-id space
of one version — taken at dispatch and never mutated (STYLE.md 2). The cache is keyed on ``(uri, version)``:
``didChange`` applies each :class:`~server.documents.ByteEdit` to a *copy* of the previous tree with
``Tree.edit`` (older snapshots keep their trees intact) and reparses incrementally, so a request on the
current version never parses. A few recent snapshots are kept per uri; older ones are dropped.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlparse

import tree_sitter_python
import tree_sitter_yaml
from tree_sitter import Language, Parser, Point, Tree

from .documents import Document, TextVersion
from .nodes import NodeIdSpace, allocate
from .positions import LineIndex

#: Snapshots kept per uri (the current one and a few recent ones for in-flight requests).
SNAPSHOTS_PER_URI = 4


@dataclass(frozen=True)
class LanguageSpec:
    """A grammar Tether understands, and the languageIds and file extensions that select it."""

    name: str
    load: Callable[[], object]
    language_ids: frozenset[str]
    extensions: frozenset[str]
    _language: list[Language] = field(default_factory=list, compare=False, repr=False)

    @property
    def language(self) -> Language:
        if not self._language:
            self._language.append(Language(self.load()))
        return self._language[0]


LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", tree_sitter_python.language, frozenset({"python"}), frozenset({".py", ".pyi"})),
    LanguageSpec(
        "yaml",
        tree_sitter_yaml.language,
        frozenset({"yaml", "ansible", "github-actions-workflow", "dockercompose", "helm"}),
        frozenset({".yaml", ".yml"}),
    ),
)


def language_for(language_id: str | None, uri: str) -> LanguageSpec | None:
    """The grammar for a document: by languageId first, then by the uri's extension."""
    if language_id:
        for spec in LANGUAGES:
            if language_id in spec.language_ids:
                return spec
    suffix = PurePosixPath(urlparse(uri).path).suffix.lower()
    for spec in LANGUAGES:
        if suffix in spec.extensions:
            return spec
    return None


def language_by_name(name: str) -> LanguageSpec:
    for spec in LANGUAGES:
        if spec.name == name:
            return spec
    raise KeyError(name)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """One version of one document, immutable: what read-only handlers work on."""

    uri: str
    doc: TextVersion
    language: str | None
    tree: Tree | None
    ids: NodeIdSpace | None
    parse_ms: float = 0.0

    @property
    def version(self) -> int:
        return self.doc.version

    @property
    def text(self) -> bytes:
        return self.doc.text

    @property
    def index(self) -> LineIndex:
        return self.doc.index


class SyntaxCache:
    """Parse cache keyed on ``(uri, version)`` with incremental reparsing; main-thread only (writers)."""

    def __init__(self, keep: int = SNAPSHOTS_PER_URI) -> None:
        self._keep = keep
        self._parsers: dict[str, Parser] = {}
        self._by_uri: dict[str, OrderedDict[int, Snapshot]] = {}
        self.parse_count = 0

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

    def _parse(self, spec: LanguageSpec, text: bytes, old: Tree | None) -> tuple[Tree, NodeIdSpace, float]:
        started = time.perf_counter()
        tree = self._parser(spec).parse(text, old) if old is not None else self._parser(spec).parse(text)
        self.parse_count += 1
        return tree, allocate(tree), (time.perf_counter() - started) * 1000

    def open(self, doc: Document) -> Snapshot:
        """Parse a newly opened document from scratch."""
        self._by_uri.pop(doc.uri, None)
        spec = language_for(doc.language_id, doc.uri)
        current = doc.current
        if spec is None:
            return self._store(Snapshot(doc.uri, current, None, None, None))
        tree, ids, ms = self._parse(spec, current.text, None)
        return self._store(Snapshot(doc.uri, current, spec.name, tree, ids, ms))

    def update(self, doc: Document) -> Snapshot:
        """Snapshot the document's current version, reparsing incrementally from the latest kept tree."""
        current = doc.current
        previous = self.latest(doc.uri)
        spec = language_for(doc.language_id, doc.uri)
        if spec is None:
            return self._store(Snapshot(doc.uri, current, None, None, None))
        if previous is None or previous.tree is None or previous.language != spec.name:
            tree, ids, ms = self._parse(spec, current.text, None)
            return self._store(Snapshot(doc.uri, current, spec.name, tree, ids, ms))
        edits = doc.edits_since(previous.version)
        if edits is None:  # the previous snapshot's version fell out of history: parse afresh
            tree, ids, ms = self._parse(spec, current.text, None)
            return self._store(Snapshot(doc.uri, current, spec.name, tree, ids, ms))
        old = previous.tree.copy()
        for edit in edits:
            old.edit(
                start_byte=edit.start,
                old_end_byte=edit.old_end,
                new_end_byte=edit.new_end,
                start_point=Point(*edit.start_point),
                old_end_point=Point(*edit.old_end_point),
                new_end_point=Point(*edit.new_end_point),
            )
        tree, ids, ms = self._parse(spec, current.text, old)
        return self._store(Snapshot(doc.uri, current, spec.name, tree, ids, ms))

    def latest(self, uri: str) -> Snapshot | None:
        kept = self._by_uri.get(uri)
        if not kept:
            return None
        return next(reversed(kept.values()))

    def get(self, uri: str, version: int | None = None) -> Snapshot | None:
        """The snapshot of ``uri`` at ``version`` (the latest when None), if kept."""
        if version is None:
            return self.latest(uri)
        kept = self._by_uri.get(uri)
        return kept.get(version) if kept else None

    def close(self, uri: str) -> None:
        self._by_uri.pop(uri, None)

    def rename(self, old_uri: str, new_uri: str) -> None:
        kept = self._by_uri.pop(old_uri, None)
        if kept is not None:
            self._by_uri[new_uri] = OrderedDict(
                (v, Snapshot(new_uri, s.doc, s.language, s.tree, s.ids, s.parse_ms)) for v, s in kept.items()
            )

    def uris(self) -> list[str]:
        return list(self._by_uri)


def parse_text(language: str, text: bytes) -> Tree:
    """Parse a text outside any document (CLI, tests, benchmarks)."""
    return Parser(language_by_name(language).language).parse(text)
