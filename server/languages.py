"""The languages Tether parses: each grammar, and the languageIds and file extensions that select it.

Why apart from the parse cache: choosing a grammar is asked of texts that are no open document too (the
command line, the agents' front, the worker processes), and adding a language is one row here. A grammar's
module is imported and its ``Language`` object made the first time it is needed: not at start-up (a grammar
package's import brings ``importlib.resources`` and ``tempfile`` with it), and never for a language no document
is in.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlparse

from tree_sitter import Language


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


def grammar(module: str) -> Callable[[], object]:
    """The loader of a grammar package's language (``module.language()``), imported when first called."""
    return lambda: importlib.import_module(module).language()


LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", grammar("tree_sitter_python"), frozenset({"python"}), frozenset({".py", ".pyi"})),
    LanguageSpec(
        "yaml",
        grammar("tree_sitter_yaml"),
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
