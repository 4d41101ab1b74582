"""An open document's markers between two computations: the locations computed at one version, carried through
the exact edits typed since (:mod:`.buffer`), so that listing them while typing reads no git, database or file.

The front says what is open through :class:`OpenDocument` (the language server's documents); the markers state
keeps one :class:`Cached` per open document (``MarkersState.buffer``, loop only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tether_lsp.server.documents import TextVersion
from tether_lsp.server.lazy import lazy_module

from .buffer import edits_between, shift
from .calculator import block_of_lines

if TYPE_CHECKING:
    from . import service
    from .service import Located
else:  # loaded on first use (it brings SQLAlchemy)
    service = lazy_module(f"{__package__}.service")


class OpenDocument(Protocol):
    """An open document as the front keeps it: its current version and the versions kept, oldest first, each
    with the exact edits that made it."""

    @property
    def current(self) -> TextVersion: ...
    def versions(self) -> Sequence[TextVersion]: ...


@dataclass
class Cached:
    """An open document's locations at one version, computed at ``head`` of the repository at ``root``
    (None: outside git)."""

    version: int
    head: str | None
    located: list[Located]
    root: Path | None = None


def carried(cached: Cached, document: OpenDocument) -> list[Located] | None:
    """``cached``'s locations at the document's current version; None when a full recomputation is needed
    (an edit overlaps a block's boundary, the cached version is no longer kept, CR line ends)."""
    current = document.current
    if cached.version == current.version:
        return cached.located
    text = current.string
    if "\r" in text:
        return None
    versions = document.versions()
    if not any(item.location is not None for item in cached.located):  # nothing to carry: no edit converted
        return cached.located if any(v.version == cached.version for v in versions) else None
    edits = edits_between(versions, cached.version)
    if edits is None:
        return None
    lines = text.split("\n")  # no CR: the LSP lines (split_lines' regular expression is several times slower)
    out = []
    for item in cached.located:
        if item.location is None:
            out.append(item)
            continue
        moved = shift(item.location, edits)
        if moved is None or moved.line_end > len(lines):
            return None
        code = block_of_lines(lines, moved)
        out.append(service.Located(item.record, moved, code != item.record.code, None, item.place))
    return out
