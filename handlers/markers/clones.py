"""The clones this server works in, as the markers' state uses them: the map to the shared (repository,
path) form (:mod:`.places`), each clone's adoption of the rows still kept by uri (:mod:`.rekey`), and other
servers' changed files turned into this server's uris.

Threads: ``adopt`` and ``know_workspace`` ask git and the database (workers); ``here`` reads only what is
known (the loop).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from tether_lsp.server.files import uri_to_path
from tether_lsp.server.host import Host
from tether_lsp.server.lazy import lazy_module

from .git import Git
from .places import FileKey, Places

if TYPE_CHECKING:
    from . import rekey
    from .keys import Announce  # brings SQLAlchemy, which start-up does not load
else:  # loaded on first use: it brings SQLAlchemy, which start-up does not need
    rekey = lazy_module(f"{__package__}.rekey")


class Clones:
    def __init__(self, server: Host, git: Git, announce: Announce) -> None:
        self.server = server
        self.git = git
        self.places = Places(git)
        self.announce = announce  # on PostgreSQL: the other servers hear of adopted markers
        self._adopted: set[tuple[str, str, str]] = set()  # (database, clone root, repository); guarded: _lock
        self._lock = threading.Lock()

    def adopt(self, root: Path) -> None:
        """Worker: once per database, clone and repository, the rows kept by uri in the clone at ``root`` get
        their (repository, path), and the other servers hear of them."""
        clone = self.places.clone_at(root)
        if clone is None:
            return
        db = self.server.database()
        mark = (db.redacted_url, str(clone.root), clone.repo)
        with self._lock:
            if mark in self._adopted:
                return
            self._adopted.add(mark)
        try:
            with db.transaction(write_lock=True) as conn:
                touched = rekey.adopt(conn, self.places, clone)
                if touched and db.dialect == "postgresql":
                    self.announce(conn, touched)
        except Exception:
            with self._lock:
                self._adopted.discard(mark)  # tried again on the next request
            raise

    def know_workspace(self) -> None:
        """Worker: the workspace's clone is one this server works in (a marker read by id is named in it)."""
        root = self.server.workspace_root
        repo = self.git.locate_file(root / "x") if root is not None else None
        if repo is not None:
            self.places.clone_at(repo.root)

    def here(self, uris: list[str], keys: list[FileKey | None]) -> list[str]:
        """Loop: files another server changed (its uris and, aligned, their keys) as this server's uris: in
        each of its clones of the file's repository, none for a repository it has no clone of; a file kept
        by uri as it is."""
        out: set[str] = set()
        for uri, key in zip(uris, keys, strict=True):
            out.update(self.places.uris(key) if key is not None else [uri])
        return sorted(out)


def in_clone(uri: str, root: Path) -> bool:
    """Whether a uri is a file in the clone at ``root`` (an uncommitted location of another clone, in a shared
    SQLite file, is not this clone's)."""
    path = uri_to_path(uri)
    return path is not None and (path.is_relative_to(root) or path.resolve().is_relative_to(root.resolve()))
