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
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote

from tether_lsp.server.files import file_exists
from tether_lsp.server.storage import StorageError
from tether_lsp.server.syntax import GrammarLimits

from .calculator import Calculated, Location, block_of, find_elsewhere, split_lines
from .git import Git, GitView
from .location_store import LocationStore, StoredLocation
from .service import follow_renames
from .store import MarkerRecord, MarkerStore
from .structure import follow, language_of
from .tables import ALGORITHM_VERSION
from .uncommitted_store import Uncommitted, UncommittedStore

log = logging.getLogger(__name__)

#: Called with (done, total) while many locations are computed: the LSP edge turns it into ``$/progress``.
Progress = Callable[[int, int], None]


@dataclass
class HeadResult:
    """What :func:`at_head` found: every committed marker's stored location at HEAD, and who moved file."""

    stored: dict[str, StoredLocation]
    moved: list[MarkerRecord]
    computed: int


def at_head(
    records: Sequence[MarkerRecord],
    markers: MarkerStore,
    locations: LocationStore,
    view: GitView,
    progress: Progress | None = None,
    limits: GrammarLimits | None = None,
) -> HeadResult:
    """The stored location at ``view.head`` of every committed marker in ``records``, computing what is missing."""
    committed = {r.id: r for r in records if r.commit_hash_when_created}
    stored = locations.at(view.head, list(committed), near=view.root_uri)
    todo = [r for r in committed.values() if r.id not in stored]
    if len(todo) < SHARE_FROM or not locations.shared:
        return _compute(todo, stored, markers, locations, view, progress, limits)
    return _split(todo, stored, markers, locations, view, progress, limits)


#: From this many locations to compute at once, teammates on PostgreSQL split the work (see ``_split``);
#: fewer are computed at once, whoever else does.
SHARE_FROM = 50
#: Files claimed (and computed, and stored) at a time.
FILES_PER_CLAIM = 10


def _split(
    todo: list[MarkerRecord],
    stored: dict[str, StoredLocation],
    markers: MarkerStore,
    locations: LocationStore,
    view: GitView,
    progress: Progress | None,
    limits: GrammarLimits | None,
) -> HeadResult:
    """Teammates who reach a commit together split its work: each server computes, a few files at a time, the
    files no other server is computing (``LocationStore.claim``), starting at a file of its own choosing, then
    waits for the files others are computing and reads what they stored."""
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
        result = _compute([r for r in records if r.id not in stored], stored, markers, locations, view, None, limits)
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


def _compute(
    todo: list[MarkerRecord],
    stored: dict[str, StoredLocation],
    markers: MarkerStore,
    locations: LocationStore,
    view: GitView,
    progress: Progress | None,
    limits: GrammarLimits | None,
) -> HeadResult:
    """Compute and store the locations at ``view.head`` of the markers in ``todo``; ``stored`` has the others."""
    if not todo:
        return HeadResult(stored, [], 0)
    commits = {r.id: r.commit_hash_when_created or "" for r in todo}
    origins = locations.origin([r.id for r in todo], commits, near=view.root_uri)
    groups: dict[tuple[str, str, str], list[MarkerRecord]] = defaultdict(list)
    fresh: list[StoredLocation] = []
    for record in todo:
        origin = origins.get(record.id)
        if origin is None or origin.location is None:
            reason = "missingOriginalLocation" if origin is not None else "missingOriginalCommit"
            fresh.append(StoredLocation(record.id, view.head, record.uri, None, reason, None))
            continue
        groups[(origin.commit, origin.uri, record.uri)].append(record)
    moved: list[MarkerRecord] = []
    done = 0
    for (commit, origin_uri, uri), group in groups.items():
        fresh += _group_at_head(view, commit, origin_uri, uri, group, origins, moved, limits)
        done += len(group)
        if progress is not None:
            progress(done, len(todo))
    # a creation commit missing here may be in a teammate's clone (a branch not fetched yet): not stored, so
    # that neither they nor this clone, once it has fetched, are told it is missing
    shared = [s for s in fresh if s.missing_reason != "missingOriginalCommit"]
    try:
        for record in moved:
            markers.replace(record)
        locations.put(shared)
    except StorageError as exc:  # computed all the same: served now, stored by a later request
        log.warning("markers: could not store %d computed location(s): %s", len(shared), exc)
    stored.update((s.marker_id, s) for s in fresh)
    return HeadResult(stored, moved, len(fresh))


def _group_at_head(
    view: GitView,
    commit: str,
    origin_uri: str,
    uri: str,
    group: list[MarkerRecord],
    origins: dict[str, StoredLocation],
    moved: list[MarkerRecord],
    limits: GrammarLimits | None = None,
) -> list[StoredLocation]:
    """Markers that share a reference file and commit, carried to HEAD in one diff."""
    origin_path, path = view.relative(origin_uri), view.relative(uri)
    old = view.text(commit, origin_path) if origin_path else None
    if old is None:
        return [StoredLocation(r.id, view.head, r.uri, None, "missingOriginalCommit", commit) for r in group]
    new_path = _path_at_head(view, commit, origin_path or "", path)
    new = view.text(view.head, new_path) if new_path else None
    if new is None or new_path is None:
        results = {r.id: Calculated(None, True, True, True, reason="codeBlockDeleted") for r in group}
        stored_uri = goes_to = uri
    else:
        locations = {r.id: _origin_location(origins[r.id]) for r in group}
        results = follow(old, new, locations, language_of(new_path), limits)
        stored_uri = view.uri(new_path)  # the committed file the location is in
        # a committed rename moves the marker, a rename undone by a later commit too; a committed name that
        # is gone from the working tree (a staged rename since) does not
        goes_to = stored_uri if new_path != path and view.exists(new_path) else uri
    out = []
    old_lines: list[str] = []
    for record in group:
        result = results[record.id]
        target, at = goes_to, stored_uri
        if result.location is None and result.reason == "codeBlockDeleted":
            old_lines = old_lines or split_lines(old)
            found = _moved_to_other_file(view, commit, old_lines, _origin_location(origins[record.id]), new_path)
            if found is not None:
                target, result = found
                at = target
        if target != record.uri:
            moved.append(replace(record, uri=target))
        out.append(StoredLocation(record.id, view.head, at, result.location, result.reason, commit))
    return out


def file_at_head(record: MarkerRecord, stored: StoredLocation | None, exists: Callable[[str], bool]) -> str:
    """The file a marker is in for a clone at a commit: where its location stored at that commit is, while
    that file is in the working tree; else the marker's own file (a rename not committed yet, a block gone).

    The stored location decides, not the marker's file alone: a checkout back to before a rename, or a
    teammate at another commit, finds the marker where the code is at their HEAD.
    """
    if stored is None or stored.location is None or stored.uri == record.uri:
        return record.uri
    return stored.uri if exists(stored.uri) else record.uri


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
    for entry in entries:
        record = records.get(entry.marker_id)
        path = view.relative(entry.uri)
        committed = view.text(view.head, path) if path else None
        if record is None or committed is None:
            continue
        result = follow(entry.file_contents, committed, {"m": entry.location}, language_of(entry.uri), limits)["m"]
        if result.location is None:
            continue
        if block_of(committed, result.location) != block_of(entry.file_contents, entry.location):
            continue  # only part of it is committed: it stays uncommitted
        at = StoredLocation(record.id, view.head, entry.uri, result.location, None, view.head, ALGORITHM_VERSION)
        locations.put([at])
        markers.set_commit(record.id, view.head)
        local.remove(record.id)
        flushed.append(record.id)
    return flushed


def follow_working_tree_renames(markers: MarkerStore, git: Git, root: Path, uri: str, path: Path) -> bool:
    """Markers of files renamed (``git mv``, committed or staged) into ``uri`` (at ``path`` in the clone at
    ``root``) move with them; True when some did."""
    root_uri = root.as_uri().rstrip("/") + "/"
    gone_files = [u for u in markers.uris_under(root_uri) if u != uri and not file_exists(u)]
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

    moved = follow_renames(markers, uri, gone, renamed_to)
    if moved:
        log.info("markers followed a rename to %s", uri)
    return bool(moved)
