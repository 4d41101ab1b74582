"""Locations a request computed, stored after it is answered.

A ``list`` or ``codeLens`` right after a checkout may compute locations at the new HEAD that the sync has not
stored yet. Storing them takes the database's write lock, which the sync holds for each of its batch writes
(SQLite: one writer at a time): a request that stored before answering waited for it. :class:`LatePuts` keeps
what the computation would store; the request answers from what it computed, then :meth:`LatePuts.store` runs
in a worker (:meth:`.state.MarkersState.locate_now` hands it over). It stores only the rows still missing
(:meth:`.LocationStore.put_new`): the sync's rows are the same values and stay, whichever comes first.

Writes made while holding a teammate's claim on PostgreSQL (:meth:`.LocationStore.claim`) are made at once:
the teammate waiting for that claim reads them when it ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from tether_lsp.server.host import Host

from .location_store import LocationStore, StoredLocation
from .places import FileKey


class LatePuts(LocationStore):
    """``store``'s reads and claims, its puts kept for :meth:`store` (one thread computes with it)."""

    def __init__(self, store: LocationStore) -> None:
        super().__init__(store.db, None, store.compute_wait_s)
        self.keys = store.keys
        self.kept: list[tuple[list[StoredLocation], dict[str, FileKey | None] | None]] = []
        self._claims = 0

    def put(self, items: list[StoredLocation], keys: Mapping[str, FileKey | None] | None = None) -> None:
        if self._claims:
            super().put(items, keys)
        elif items:
            self.kept.append((list(items), None if keys is None else {s.uri: keys[s.uri] for s in items}))

    @contextmanager
    def claim(self, commit: str, files: list[str]) -> Iterator[set[str]]:
        self._claims += 1
        try:
            with super().claim(commit, files) as mine:
                yield mine
        finally:
            self._claims -= 1

    def store(self) -> int:
        """Worker: the kept locations stored where still missing; how many were."""
        kept, self.kept = self.kept, []
        return sum(self.put_new(items, keys) for items, keys in kept)


def store_later(server: Host, late: LatePuts) -> None:
    """Worker: ``late``'s kept locations stored by another worker, while this one's request is answered."""
    if late.kept:
        server.call_on_loop(_spawn_store, server, late)


def _spawn_store(server: Host, late: LatePuts) -> None:
    server.spawn(server.run_blocking(late.store), "markers: storing the locations a request computed")
