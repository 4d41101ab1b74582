"""The languages Tether parses: each grammar, and the languageIds and file extensions that select it.

Why apart from the parse cache: choosing a grammar is asked of texts that are no open document too (the
command line, the agents' front, the worker processes), and adding a language is one row here. A grammar's
``Language`` object is made the first time it is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlparse

import tree_sitter_python
import tree_sitter_yaml
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
