"""Computing the locations at HEAD that are not stored yet, file by file (:func:`.tracking.at_head` asks).

For each marker, its reference is its location at its creation commit. Markers that share a file and a creation
commit are one group, carried to HEAD by one line mapping of that file (:mod:`.relocate`, in worker processes for
a HEAD sync). A marker whose location at the HEAD synced before was found by mapping its own file, a file this
HEAD change did not touch, keeps it (:class:`Mapped`): nothing is read or computed for it. A block gone from its
file is then looked for in the files the commit range added or changed (moved to another file), whose added lines
are known from the same mappings.
"""

from __future__ import annotations

import logging
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tether_lsp.server.storage import StorageError
from tether_lsp.server.syntax import GrammarLimits

from .calculator import Calculated, Location, find_elsewhere, split_lines
from .git_view import GitView
from .location_store import LocationStore, StoredLocation
from .places import Clone, FileKey
from .relocate import FileWork, Pending, Start, start_in_thread
from .store import MarkerRecord, MarkerStore
from .structure import language_of

log = logging.getLogger(__name__)

#: Called with (done, total) while many locations are computed: the LSP edge turns it into ``$/progress``.
Progress = Callable[[int, int], None]

#: Files sent to be relocated at a time (a batch stored as soon as its answers are in).
FILES_PER_BATCH = 8


@dataclass
class HeadResult:
    """What :func:`.tracking.at_head` found: every committed marker's stored location at HEAD, and who moved file."""

    stored: dict[str, StoredLocation]
    moved: list[MarkerRecord]
    computed: int


@dataclass(frozen=True, slots=True)
class Mapped:
    """A marker's location at a HEAD found by mapping its own file from its reference (no search among other
    files): at another HEAD where that file is the same, the same texts would give the same answer."""

    commit: str  # the creation commit its reference is at
    origin_path: str
    origin: Location
    path: str  # its file, at that HEAD and in its record
    result: Calculated


@dataclass
class Memo:
    """What the last sync of a repository mapped: ``previous`` (the HEAD it synced, None: none yet) and its
    :class:`Mapped` markers; a sync reads them and leaves its own."""

    previous: str | None = None
    before: dict[str, Mapped] = field(default_factory=dict)
    now: dict[str, Mapped] = field(default_factory=dict)


@dataclass
class _Group:
    """Markers that share a reference file and commit, with the texts their one mapping is made of."""

    commit: str
    records: list[MarkerRecord]
    locations: dict[str, Location]  # each one's reference location
    origin_path: str | None
    old: str | None  # the file at the creation commit (None: missing there)
    new_path: str | None = None  # where the file is at HEAD (None: gone)
    new: str | None = None
    results: dict[str, Calculated] | None = None
    kept: bool = False  # the results are the previous HEAD's (the file did not change)


def compute(
    todo: list[MarkerRecord],
    stored: dict[str, StoredLocation],
    markers: MarkerStore,
    locations: LocationStore,
    view: GitView,
    progress: Progress | None = None,
    limits: GrammarLimits | None = None,
    start: Start = start_in_thread,
    memo: Memo | None = None,
) -> HeadResult:
    """Compute and store the locations at ``view.head`` of the markers in ``todo``; ``stored`` has the others.
    ``memo``: what the sync before mapped (kept for the files this HEAD change left alone), and where this one
    says what it mapped.

    A pipeline: the files go to ``start`` a batch at a time as git gives their texts, and each batch's locations
    are stored as its answers come back, while the next batches are relocated. A file with a block gone from it
    waits until the lines every changed file added are known (where such a block is searched for)."""
    if not todo:
        return HeadResult(stored, [], 0)
    commits = {r.id: r.commit_hash_when_created or "" for r in todo}
    origins = locations.origin([r.id for r in todo], commits, near=view.root_uri)
    out = _Stored(markers, locations, stored, progress, len(todo))
    by_file: dict[tuple[str, str, str], list[MarkerRecord]] = defaultdict(list)
    for record in todo:
        origin = origins.get(record.id)
        if origin is None or origin.location is None:
            reason = "missingOriginalLocation" if origin is not None else "missingOriginalCommit"
            out.add([StoredLocation(record.id, view.head, record.uri, None, reason, None)])
            continue
        by_file[(origin.commit, origin.uri, record.uri)].append(record)
    flow = _Flow(view, limits, start, memo, out)
    groups = []
    for file, records in by_file.items():
        groups.append(group := _prepare(view, *file, records, origins, memo))
        flow.add(group)
    flow.drain()
    _know_added_lines(groups, view, start)
    for group, held in flow.deferred:
        out.add(_finish(view, group, out.moved, memo, held))
    out.flush()
    if out.failed:  # computed all the same: served now, stored by a later request
        log.warning("markers: could not store %d computed location(s): %s", out.failed[0], out.failed[1])
    return HeadResult(stored, out.moved, out.computed)


class _Stored:
    """A sync's computed locations, stored a batch at a time (after a database failure, only kept here)."""

    def __init__(
        self,
        markers: MarkerStore,
        locations: LocationStore,
        stored: dict[str, StoredLocation],
        progress: Progress | None,
        total: int,
    ) -> None:
        self.markers, self.locations, self.stored = markers, locations, stored
        self.progress, self.total = progress, total
        self.moved: list[MarkerRecord] = []  # every marker a committed rename or a moved block took to another file
        self.computed = 0
        self.failed: tuple[int, StorageError] | None = None  # how many were not stored, and why
        self._fresh: list[StoredLocation] = []
        self._moved = 0  # how many of ``moved`` are stored
        self._clones: dict[Path, Clone | None] = {}  # the repositories' identities, read by the first store
        self._keys: dict[str, FileKey | None] = {}  # each file stored, placed once

    def add(self, fresh: list[StoredLocation]) -> None:
        self._fresh += fresh

    def flush(self) -> None:
        """Store what was added since the last flush: the markers moved, then their locations at HEAD."""
        fresh, moved = self._fresh, self.moved[self._moved :]
        self._fresh, self._moved = [], len(self.moved)
        if not fresh and not moved:
            return
        # a creation commit missing here may be in a teammate's clone (a branch not fetched yet): not stored, so
        # that neither they nor this clone, once it has fetched, are told it is missing
        shared = [s for s in fresh if s.missing_reason != "missingOriginalCommit"]
        if self.failed is None:
            try:
                for record in moved:
                    self.markers.replace(record)
                placed = self._keys
                placed.update(self.locations.keys.of_many({s.uri for s in shared} - placed.keys(), self._clones))
                self.locations.put(shared, placed)
            except StorageError as exc:
                self.failed = (0, exc)
        if self.failed is not None:
            self.failed = (self.failed[0] + len(shared), self.failed[1])
        self.stored.update((s.marker_id, s) for s in fresh)
        self.computed += len(fresh)
        if self.progress is not None:
            self.progress(self.computed, self.total)


class _Flow:
    """The files of a sync on their way: relocated a batch at a time by ``start``, each batch finished and stored
    as its answers come in; the markers whose block is gone from their file are left in :attr:`deferred`."""

    def __init__(self, view: GitView, limits: GrammarLimits | None, start: Start, memo: Memo | None, out: _Stored):
        self.view, self.limits, self.start, self.memo, self.out = view, limits, start, memo, out
        self.batch: list[_Group] = []
        self.pending: deque[tuple[list[_Group], Pending]] = deque()
        self.deferred: list[tuple[_Group, list[MarkerRecord]]] = []

    def add(self, group: _Group) -> None:
        """A group whose texts are read: relocated (in a batch), or finished now when nothing is to compute."""
        if group.old is not None and group.new is not None and group.new_path is not None and not group.kept:
            self.batch.append(group)
            if len(self.batch) >= FILES_PER_BATCH:
                self._send()
        else:
            self._settle(group)
        self._collect(wait=False)

    def drain(self) -> None:
        """Every batch sent, its answers waited for and stored."""
        if self.batch:
            self._send()
        self._collect(wait=True)
        self.out.flush()

    def _send(self) -> None:
        self.pending.append((self.batch, self.start([_work(g, self.limits) for g in self.batch])))
        self.batch = []

    def _collect(self, wait: bool) -> None:
        """The batches answered (all of them when ``wait``), in order, finished and stored."""
        while self.pending and (wait or self.pending[0][1].ready()):
            part, pending = self.pending.popleft()
            for group, answer in zip(part, pending.results(), strict=True):
                group.results = answer.results
                if group.new_path == group.origin_path:  # the same diff as the moved-block search's: not made twice
                    assert group.new_path is not None
                    self.view.know_target(group.commit, group.new_path, answer.added)
                self._settle(group)
            self.out.flush()

    def _settle(self, group: _Group) -> None:
        """A group's markers finished now, but for those whose block is gone from the file: they are searched for
        in the other files once every changed file's added lines are known (their answers depend on no other)."""
        if group.old is not None and not group.kept and (group.results is None or group.new_path is None):
            self.deferred.append((group, group.records))  # gone with its file
            return
        found = group.results or {}
        held = [r for r in group.records if r.id in found and found[r.id].reason == "codeBlockDeleted"]
        if len(held) < len(group.records):
            ready = [r for r in group.records if r.id not in found or found[r.id].reason != "codeBlockDeleted"]
            self.out.add(_finish(self.view, group, self.out.moved, self.memo, ready))
        if held:
            self.deferred.append((group, held))


def _kept(view: GitView, group: _Group, path: str | None, memo: Memo | None) -> dict[str, Calculated] | None:
    """The group's answers as the sync before found them by mapping the same file, when this HEAD change left that
    file as it was (None: to be computed)."""
    if memo is None or memo.previous is None or path is None or group.origin_path is None:
        return None
    changed = view.changed_since(memo.previous)
    if changed is None or path in changed:
        return None
    found = {}
    for record in group.records:
        mapped = memo.before.get(record.id)
        if mapped is None or (mapped.commit, mapped.origin_path, mapped.origin, mapped.path) != (
            group.commit,
            group.origin_path,
            group.locations[record.id],
            path,
        ):
            return None
        found[record.id] = mapped.result
    return found


def _prepare(
    view: GitView,
    commit: str,
    origin_uri: str,
    uri: str,
    records: list[MarkerRecord],
    origins: dict[str, StoredLocation],
    memo: Memo | None,
) -> _Group:
    """A group's texts: the file at its creation commit and where it is at HEAD (git reads, in this thread); or,
    for a file this HEAD change did not touch, what the sync before found."""
    origin_path, path = view.relative(origin_uri), view.relative(uri)
    group = _Group(commit, records, {r.id: _origin_location(origins[r.id]) for r in records}, origin_path, None)
    kept = _kept(view, group, path, memo)
    if kept is not None:  # the file is at ``path`` at HEAD, as it was at the previous one
        group.results, group.new_path, group.kept = kept, path, True
        return group
    group.old = old = view.text(commit, origin_path) if origin_path else None
    if old is not None:
        group.new_path = _path_at_head(view, commit, origin_path or "", path)
        group.new = view.text(view.head, group.new_path) if group.new_path else None
    return group


def _work(group: _Group, limits: GrammarLimits | None) -> FileWork:
    assert group.old is not None
    assert group.new is not None
    assert group.new_path is not None
    return FileWork(group.old, group.new, group.locations, language_of(group.new_path), limits)


def _know_added_lines(groups: list[_Group], view: GitView, start: Start) -> None:
    """The lines added to every file the range changed, for the searches of blocks gone from their file: those
    of files no group mapped, mapped now (all at once, by ``start``)."""
    since = sorted(
        {
            g.commit
            for g in groups
            if g.results is not None and any(r.reason == "codeBlockDeleted" for r in g.results.values())
        }
    )
    asked = [(commit, path, old, new) for commit in since for path, old, new in view.targets_to_make(commit)]
    answers = start([FileWork(old, new, {}, None, None) for _, _, old, new in asked]).results() if asked else []
    for (commit, path, _, _), answer in zip(asked, answers, strict=True):
        view.know_target(commit, path, answer.added)


def _finish(
    view: GitView,
    group: _Group,
    moved: list[MarkerRecord],
    memo: Memo | None,
    records: list[MarkerRecord] | None = None,
) -> list[StoredLocation]:
    """A group's stored locations at HEAD (of ``records`` among its markers, else all): its mapping's answers, a
    block gone from its file searched elsewhere."""
    if group.old is None and not group.kept:
        return [
            StoredLocation(r.id, view.head, r.uri, None, "missingOriginalCommit", group.commit) for r in group.records
        ]
    uri = group.records[0].uri
    if group.results is None or group.new_path is None:
        results = {r.id: Calculated(None, True, True, True, reason="codeBlockDeleted") for r in group.records}
        stored_uri = goes_to = uri
    else:
        results = group.results
        stored_uri = view.uri(group.new_path)  # the committed file the location is in
        # a committed rename moves the marker, a rename undone by a later commit too; a committed name that
        # is gone from the working tree (a staged rename since) does not
        path = view.relative(uri)
        goes_to = stored_uri if group.new_path != path and view.exists(group.new_path) else uri
    out = []
    old_lines: list[str] = []
    for record in group.records if records is None else records:
        result = results[record.id]
        target, at = goes_to, stored_uri
        if result.location is None and result.reason == "codeBlockDeleted":
            assert group.old is not None  # a kept group has every block in its file
            old_lines = old_lines or split_lines(group.old)
            found = _moved_to_other_file(view, group.commit, old_lines, group.locations[record.id], group.new_path)
            if found is not None:
                target, result = found
                at = target
        if target != record.uri:
            moved.append(replace(record, uri=target))
        elif memo is not None and result.location is not None:
            _remember(memo, view, group, record, result)
        out.append(StoredLocation(record.id, view.head, at, result.location, result.reason, group.commit))
    return out


def _remember(memo: Memo, view: GitView, group: _Group, record: MarkerRecord, result: Calculated) -> None:
    """A location found in the marker's own file, which it stays in: the next sync may keep it."""
    if group.origin_path and group.new_path and view.relative(record.uri) == group.new_path:
        origin = group.locations[record.id]
        memo.now[record.id] = Mapped(group.commit, group.origin_path, origin, group.new_path, result)


def _origin_location(origin: StoredLocation) -> Location:
    assert origin.location is not None
    return origin.location


def _path_at_head(view: GitView, commit: str, origin_path: str, path: str | None) -> str | None:
    """Where the file is at HEAD: its current path, else where git says it was renamed, else its old path."""
    for candidate in (path, view.renames(commit).get(origin_path), origin_path):
        if candidate and view.text(view.head, candidate) is not None:
            return candidate
    return None


def _moved_to_other_file(
    view: GitView, commit: str, old: list[str], loc: Location, own_path: str | None
) -> tuple[str, Calculated] | None:
    """The best place for a block in the files the commit range added or changed (not its own).

    Only files whose added lines hold something like the block's first non-blank line are searched.
    """
    best: tuple[str, Calculated, int] | None = None
    for path in view.files_with_added_line_like(commit, _first_text_line(old, loc)):
        target = view.target(commit, path)
        if path == own_path or target is None:
            continue
        result = find_elsewhere(old, loc, target)
        if result.location is None:
            continue
        exact = int(not result.content_changed)
        if best is None or exact > best[2]:
            best = (view.uri(path), result, exact)
    return None if best is None else (best[0], best[1])


def _first_text_line(old: list[str], loc: Location) -> str:
    for line in old[loc.line_start - 1 : loc.line_end]:
        if line.strip():
            return line
    return ""
