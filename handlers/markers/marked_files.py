"""Which files under a clone have markers, and which of those are gone from its working tree: what following renames
into a file (``git mv``, committed or staged) needs, kept between lookups.

A file gains markers by a rename only from a file that had markers and is gone from the working tree. Finding those
used to read every marker's file name and look for each file on disk at every uncached lookup (10,000 markers in 200
files: ~10 ms of one core, most of it holding the GIL, for each ``codeLens`` after a checkout, even of a file with no
marker). Yet which files have markers changes only when markers are written (:func:`.writes.markers_written`: after each
commit that writes markers, and when a change of another process is noticed), and which of them are gone only then
or when HEAD or git's index changes (the index ends with a checksum of all of it). So the files are read once per
generation of writes, looked for once per (generation, HEAD, index), and a lookup while no marked file is gone follows
nothing, touching neither the database nor the disk.

Not seen until one of those changes: a marked file deleted or made again outside git while HEAD and the index stay
(only an untracked copy can be a renamed file's old name), and a marker another process wrote before this one
noticed it (the SQLite watch and PostgreSQL's notifications end in ``MarkersState.forget``).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from tether_lsp.server.files import uri_to_path
from tether_lsp.server.lazy import lazy_module

from .git import Git
from .writes import writes_counted

if TYPE_CHECKING:
    from . import service
    from .store import MarkerRecord, MarkerStore
else:  # loaded on first use: it brings SQLAlchemy
    service = lazy_module(f"{__package__}.service")

log = logging.getLogger(__name__)

#: Bytes read from the end of git's index: its checksum of everything before (SHA-1's 20 or SHA-256's 32 bytes).
INDEX_TRAILER = 32


def index_file(root: Path) -> Path:
    """The git index of the clone (or worktree) at ``root``."""
    dot_git = root / ".git"
    if dot_git.is_file():
        content = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if content.startswith("gitdir:"):
            return (root / content[len("gitdir:") :].strip()) / "index"
    return dot_git / "index"


def index_stamp(index: Path) -> bytes | None:
    """The end of a git index: its checksum of the whole index, so any change to it changes this; None when there is
    no index or it has no checksum (``index.skipHash``): then nothing is kept."""
    try:
        with open(index, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            if size < INDEX_TRAILER:
                return None
            f.seek(size - INDEX_TRAILER)
            tail = f.read()
    except OSError:
        return None
    return None if tail[-20:] == bytes(20) else tail


@dataclass(frozen=True)
class _Known:
    generation: int
    files: list[tuple[str, str]]  # each file with markers under the clone: its uri, its path on disk
    stamp: tuple[str, bytes] | None  # (HEAD, index checksum) when ``gone`` was found
    gone: list[str]


class MarkedFiles:
    """Per clone: its files with markers and the ones gone from its working tree (any thread)."""

    def __init__(self) -> None:
        self._known: dict[Path, _Known] = {}  # guarded: _lock
        self._indexes: dict[Path, Path] = {}  # guarded: _lock
        self._lock = threading.Lock()

    def gone(self, root: Path, head: str | None, read: Callable[[], list[str]]) -> list[str]:
        """The uris of the files with markers under ``root`` that are not in its working tree (``read``: the files
        with markers, from the database)."""
        generation = writes_counted()  # before reading anything: a write after this makes what is read stale
        with self._lock:
            known = self._known.get(root)
            index = self._indexes.get(root)
        if index is None:
            index = index_file(root)
            with self._lock:
                self._indexes[root] = index
        at = index_stamp(index)
        stamp = (head, at) if head is not None and at is not None else None
        if known is not None and known.generation == generation:
            if stamp is not None and known.stamp == stamp:
                return known.gone
            files = known.files
        else:
            files = [(uri, str(path)) for uri in read() if (path := uri_to_path(uri)) is not None]
        gone = [uri for uri, path in files if not os.path.exists(path)]
        with self._lock:
            if writes_counted() == generation:
                self._known[root] = _Known(generation, files, stamp, gone)
        return gone

    def follow_into(self, markers: MarkerStore, git: Git, root: Path, uri: str, path: Path) -> bool:
        """Markers of files renamed (``git mv``, committed or staged) into ``uri`` (at ``path`` in the clone at
        ``root``) move with them; True when some did."""
        root_uri = root.as_uri().rstrip("/") + "/"
        gone_files = [u for u in self.gone(root, git.head(root), lambda: markers.uris_under(root_uri)) if u != uri]
        if not gone_files:
            return False
        gone = [r for u in gone_files for r in markers.for_uri(u)]
        cache: dict[str, dict[str, str]] = {}

        def renamed_to(record: MarkerRecord) -> str | None:
            since = record.commit_hash_when_created or "HEAD"
            if since not in cache:
                cache[since] = git.renames(root, since)
            new = cache[since].get(unquote(record.uri[len(root_uri) :]))
            # compare paths, not uri spellings (clients percent-encode differently)
            return uri if new and (root / new).resolve() == path.resolve() else None

        moved = service.follow_renames(markers, uri, gone, renamed_to)
        if moved:
            log.info("markers followed a rename to %s", uri)
        return bool(moved)
