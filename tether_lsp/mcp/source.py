"""Where the agents' front reads files and where its edits go: a :class:`Source`.

Standalone (``tether-lsp mcp --root``), the source is the disk (:class:`~.files.Files`: texts read from disk,
atomic writes). Attached to a running language server (``tether.mcp.http.enabled``), it is the editor's
workspace (:mod:`.attached_source`): open documents read as the editor holds them, unsaved changes included,
and edits sent to the editor as ``workspace/applyEdit``, so they land in its buffers and undo history. The tool
adapters see only this protocol; a version is the hash of the text either way.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.errors import InvalidParams

from .files import FileText, Roots


class Source(Protocol):
    """Files inside the roots: read with a version, written all at once."""

    max_bytes: int
    #: Whether a write is only in the editor's buffer (unsaved) rather than on disk: what ``edit`` answers.
    unsaved_writes: bool

    @property
    def roots(self) -> Roots:
        """The folders paths must lie in."""
        ...

    def load(self, given: str, field: str = "path") -> FileText:
        """The file's current text (``given``: a path relative to a root, or absolute inside one)."""
        ...

    def write(self, file: FileText, data: bytes, edits: Sequence[ByteEdit] = ()) -> FileText | None:
        """Replace ``file``'s bytes by ``data`` (``edits``: the same change as edits of ``file.text``, in the order
        :func:`~tether_lsp.server.byte_edits.diff_edits` gives them). Returns what was written, or None when the
        file moved on since ``file`` was read (the caller places the edits again)."""
        ...


class LiveRoots(Roots):
    """Roots that follow the editor's workspace folders (none at all is allowed: every path is refused)."""

    def __init__(self) -> None:
        self.folders: list[Path] = []

    def update(self, folders: Sequence[Path]) -> None:
        """The workspace folders as they are now (each resolved; those that are no folder are left out)."""
        resolved = [Path(os.path.realpath(f)) for f in folders]
        self.folders = [f for f in dict.fromkeys(resolved) if f.is_dir()]

    def describe(self) -> str:
        return super().describe() if self.folders else "none: the editor has no workspace folder open"

    def resolve(self, given: str, field: str = "path") -> tuple[Path, str]:
        if not self.folders:
            raise InvalidParams(
                field,
                f"{given!r}: the editor has no workspace folder open, so nothing is inside the roots: refused",
                kind="outsideRoots",
            )
        return super().resolve(given, field)
