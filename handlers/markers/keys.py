"""How the marker stores find files by (repository, path): the columns, and the conditions and uris the
stores build with :class:`~.places.Places` (see the store module's docstring).

Kept apart from the stores so that the rule reads in one place: a file in git is found by its key, and
rows kept by uri (outside git, or not placed yet: :mod:`.rekey`) by their uri; a key read back becomes the
uri of the file in one of this server's clones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, Table, and_, or_
from sqlalchemy.engine import Connection

from .places import Clone, FileKey, Places

#: A file a write touched: its uri here and, in git, its (repository, path).
Touched = tuple[str, FileKey | None]

#: Called inside a writing transaction with the files it touched (PostgreSQL NOTIFY for the other servers).
Announce = Callable[[Connection, list[Touched]], None]


def key_of(r: Any) -> FileKey | None:
    """A row's key (its ``repo`` and ``path`` columns); None for a row kept by uri."""
    return FileKey(r["repo"], r["path"]) if r["repo"] is not None and r["path"] is not None else None


def key_columns(key: FileKey | None) -> dict[str, str | None]:
    return {"repo": key.repo if key else None, "path": key.path if key else None}


class Keys:
    """The stores' use of :class:`Places`: keys for the uris they write, uris here for the keys they read.
    Without places (tests, benchmarks) every file is found by its uri."""

    def __init__(self, places: Places | None) -> None:
        self.places = places

    def of(self, uri: str) -> FileKey | None:
        return self.places.key(uri) if self.places is not None else None

    def of_many(self, uris: Iterable[str], clones: dict[Path, Clone | None] | None = None) -> dict[str, FileKey | None]:
        """Each uri's key (``clones``: see :meth:`.Places.keys`)."""
        return self.places.keys(uris, clones) if self.places is not None else dict.fromkeys(uris)

    def uri(self, r: Any, near: str | None = None) -> str:
        """A stored row's file as a uri of this server's clone (the one holding ``near``, else the one holding
        the stored uri, else the first); the stored uri when this server has no clone of its repository."""
        key = key_of(r)
        if key is None or self.places is None:
            return str(r["uri"])
        return self.places.uri(key, near or r["uri"]) or str(r["uri"])

    def folder(
        self, table: Table, uri_prefix: str, by_stored_uri: bool = False
    ) -> tuple[ColumnElement[bool], list[tuple[Clone, str]]]:
        """Rows of the files under a folder: the condition, and the (clone, repo-relative prefix) it covers.
        A repository this server knows no clone of under the folder is left out, unless ``by_stored_uri``:
        then its rows whose stored uri is under the folder are in too (:meth:`in_folder` gives them None)."""
        by_uri = table.c.uri.startswith(uri_prefix, autoescape=True)
        if self.places is None:
            return by_uri, []
        conditions: list[ColumnElement[bool]] = [by_uri if by_stored_uri else and_(table.c.repo.is_(None), by_uri)]
        covered = self.places.folder(uri_prefix)
        for clone, inside in covered:
            same = table.c.repo == clone.repo
            conditions.append(and_(same, table.c.path.startswith(inside, autoescape=True)) if inside else same)
        return or_(*conditions), covered

    def namer(self, near: str | None = None) -> Callable[[Any], str]:
        """:meth:`uri` for the rows of one read, each file's uri made once (a HEAD sync reads 10,000 rows of a few
        hundred files)."""
        made: dict[tuple[Any, Any, Any], str] = {}

        def name(r: Any) -> str:
            file = (r["uri"], r["repo"], r["path"])
            found = made.get(file)
            if found is None:
                found = made[file] = self.uri(r, near)
            return found

        return name

    @staticmethod
    def in_folder(r: Any, covered: list[tuple[Clone, str]]) -> str | None:
        """A row found by :meth:`folder`: its uri in the clone it was found through; a row kept by uri, its
        uri; None for a row of a repository none of ``covered`` is a clone of."""
        if r["repo"] is None:
            return str(r["uri"])
        for clone, inside in covered:
            if r["repo"] == clone.repo and r["path"] is not None and r["path"].startswith(inside):
                return clone.uri(r["path"])
        return None

    def file(self, table: Table, uris: list[str]) -> ColumnElement[bool]:
        """Rows of one file given by its uri spellings: by its key, and by uri the rows kept by uri. A file
        this machine cannot place (outside git, git failing) is found by uri alone, as before keys."""
        by_uri = table.c.uri.in_(uris)
        keys = {k for k in self.of_many(uris).values() if k is not None}
        if not keys:
            return by_uri
        by_key = [and_(table.c.repo == k.repo, table.c.path == k.path) for k in keys]
        return or_(*by_key, and_(table.c.repo.is_(None), by_uri))
