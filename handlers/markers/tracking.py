"""Committed locations: each marker's location at the repository's HEAD, derived once and stored.

docs/markers.md, "Where a marker's code is now": a marker's reference is its location at its creation
commit; at a new HEAD the file is read at both commits, diffed in-process, and the result stored per
(marker, commit) — so a checkout back and forth, a second server or a restart reuses it. A block gone from
its file is looked for in the files that commit range added or changed (moved to another file), and a file
renamed in that range is followed. Uncommitted locations whose code is now committed are flushed here too.
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tether_lsp.server.syntax import GrammarLimits

from . import computing
from .calculator import block_of
from .computing import HeadResult, Memo, Progress
from .git_view import GitView
from .location_store import LocationStore, StoredLocation
from .relocate import Start, start_in_thread
from .store import MarkerRecord, MarkerStore
from .structure import follow, language_of
from .tables import ALGORITHM_VERSION
from .uncommitted_store import Uncommitted, UncommittedStore

__all__ = [
    "HeadResult",
    "Memo",
    "Progress",
    "at_head",
    "file_at_head",
    "flush_uncommitted",
]

log = logging.getLogger(__name__)


def at_head(
    records: Sequence[MarkerRecord],
    markers: MarkerStore,
    locations: LocationStore,
    view: GitView,
    progress: Progress | None = None,
    limits: GrammarLimits | None = None,
    *,
    start: Start = start_in_thread,
    memo: Memo | None = None,
) -> HeadResult:
    """The stored location at ``view.head`` of every committed marker in ``records``, computing what is missing
    (each file's markers relocated by ``start``; ``memo``: what the sync before mapped, :class:`.computing.Memo`)."""
    committed = {r.id: r for r in records if r.commit_hash_when_created}
    stored = locations.at(view.head, list(committed), near=view.root_uri)
    todo = [r for r in committed.values() if r.id not in stored]
    how = Computing(markers, locations, view, limits, start, memo)
    if len(todo) < SHARE_FROM or not locations.shared:
        return how.compute(todo, stored, progress)
    return _split(todo, stored, how, progress)


@dataclass(frozen=True)
class Computing:
    """How locations are computed at ``view.head`` (see :func:`.computing.compute`)."""

    markers: MarkerStore
    locations: LocationStore
    view: GitView
    limits: GrammarLimits | None
    start: Start
    memo: Memo | None

    def compute(
        self, todo: list[MarkerRecord], stored: dict[str, StoredLocation], progress: Progress | None
    ) -> HeadResult:
        return computing.compute(
            todo, stored, self.markers, self.locations, self.view, progress, self.limits, self.start, self.memo
        )


#: From this many locations to compute at once, teammates on PostgreSQL split the work (see ``_split``);
#: fewer are computed at once, whoever else does.
SHARE_FROM = 50
#: Files claimed (and computed, and stored) at a time.
FILES_PER_CLAIM = 10


def _split(
    todo: list[MarkerRecord], stored: dict[str, StoredLocation], how: Computing, progress: Progress | None
) -> HeadResult:
    """Teammates who reach a commit together split its work: each server computes, a few files at a time, the
    files no other server is computing (``LocationStore.claim``), starting at a file of its own choosing, then
    waits for the files others are computing and reads what they stored."""
    locations, view = how.locations, how.view
    by_file: dict[str, list[MarkerRecord]] = defaultdict(list)
    for record in todo:
        by_file[record.key.path if record.key is not None else record.uri].append(record)
    names = sorted(by_file)
    start = random.randrange(len(names))
    names = names[start:] + names[:start]
    moved: list[MarkerRecord] = []
    computed = done = 0

    def compute(records: list[MarkerRecord]) -> None:
        nonlocal computed, done
        stored.update(locations.at(view.head, [r.id for r in records], near=view.root_uri))
        result = how.compute([r for r in records if r.id not in stored], stored, None)
        moved.extend(result.moved)
        computed += result.computed
        done += len(records)
        if progress is not None:
            progress(done, len(todo))

    while names:
        left: list[str] = []
        for k in range(0, len(names), FILES_PER_CLAIM):
            batch = names[k : k + FILES_PER_CLAIM]
            with locations.claim(view.head, batch) as mine:
                left += [n for n in batch if n not in mine]
                records = [r for n in batch if n in mine for r in by_file[n]]
                if records:
                    compute(records)
        if not left:
            break
        if not locations.wait_for(view.head, left[0]):  # the other server takes too long: compute them here
            compute([r for n in left for r in by_file[n]])
            break
        stored.update(locations.at(view.head, [r.id for n in left for r in by_file[n]], near=view.root_uri))
        names = [n for n in left if any(r.id not in stored for r in by_file[n])]
        done += sum(len(by_file[n]) for n in left if n not in names)
    return HeadResult(stored, moved, computed)


def file_at_head(record: MarkerRecord, stored: StoredLocation | None, exists: Callable[[str], bool]) -> str:
    """The file a marker is in for a clone at a commit: where its location stored at that commit is, while
    that file is in the working tree; else the marker's own file (a rename not committed yet, a block gone).

    The stored location decides, not the marker's file alone: a checkout back to before a rename, or a
    teammate at another commit, finds the marker where the code is at their HEAD.
    """
    if stored is None or stored.location is None or stored.uri == record.uri:
        return record.uri
    return stored.uri if exists(stored.uri) else record.uri


def flush_uncommitted(
    entries: Sequence[Uncommitted],
    records: dict[str, MarkerRecord],
    markers: MarkerStore,
    locations: LocationStore,
    local: UncommittedStore,
    view: GitView,
    limits: GrammarLimits | None = None,
) -> list[str]:
    """Uncommitted locations whose block is now committed become stored locations at HEAD.

    The marker's ``commitHashWhenCreated`` becomes HEAD and the local entry is removed. Returns their ids.
    """
    flushed = []
    files: dict[tuple[str, str], list[tuple[Uncommitted, MarkerRecord, str]]] = defaultdict(list)
    for entry in entries:
        record = records.get(entry.marker_id)
        path = view.relative(entry.uri)
        committed = view.text(view.head, path) if path else None
        if record is not None and committed is not None:
            files[(entry.uri, entry.file_contents)].append((entry, record, committed))
    for (uri, contents), group in files.items():  # one mapping per file text, whatever its number of markers
        committed = group[0][2]
        results = follow(contents, committed, {e.marker_id: e.location for e, _, _ in group}, language_of(uri), limits)
        for entry, record, _ in group:
            result = results[entry.marker_id]
            if result.location is None:
                continue
            if block_of(committed, result.location) != block_of(contents, entry.location):
                continue  # only part of it is committed: it stays uncommitted
            at = StoredLocation(record.id, view.head, uri, result.location, None, view.head, ALGORITHM_VERSION)
            locations.put([at])
            markers.set_commit(record.id, view.head)
            local.remove(record.id)
            flushed.append(record.id)
    return flushed
