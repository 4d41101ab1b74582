"""The marker service: create, list (located against the current text), update, delete.

Pure apart from the store it is given: texts come in as strings, locations are 1-based character
columns; LSP ranges are made at the edges (``lsp.py``, ``convert.py``, ``state.py``).
"""

from __future__ import annotations

import getpass
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.syntax import GrammarLimits

from .calculator import Location, block_of, block_of_lines, calculate, find_code, split_lines
from .kinds import KINDS
from .location_store import StoredLocation
from .store import MarkerRecord, MarkerStore
from .structure import follow, language_of
from .uncommitted_store import Uncommitted, UncommittedStore


@dataclass(frozen=True)
class Located:
    """A marker where its code is now: what every front shows of it (the LSP ``Marker``, an agent's note).

    ``location``: 1-based character columns in the current text (None: missing, ``missing_reason`` says why);
    ``place``: where its reference keeps it (its base, its uncommitted snapshot's location, or its location at
    the clone's HEAD), which ``state`` compares with.
    """

    record: MarkerRecord
    location: Location | None
    content_changed: bool
    missing_reason: str | None
    place: Location | None = None

    @property
    def state(self) -> str:
        """``fresh`` (at its stored place, its block unchanged), ``moved`` (unchanged, elsewhere), ``changed``
        (its block was edited) or ``missing``."""
        if self.location is None:
            return "missing"
        if self.content_changed:
            return "changed"
        return "fresh" if self.place == self.location else "moved"

    @property
    def created_at(self) -> str:
        """When it was made, ISO 8601 in UTC with a ``Z``."""
        return self.record.created_at.isoformat().replace("+00:00", "Z")


def default_author(git_user: str | None = None) -> str:
    """git's user.name, else GIT_AUTHOR_NAME, else the OS user."""
    name = git_user or os.environ.get("GIT_AUTHOR_NAME")
    if name:
        return name
    try:
        return getpass.getuser()
    except Exception:  # no user database entry (containers)
        return "unknown"


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise InvalidParams("kind", f"expected one of {', '.join(KINDS)}, got {kind!r}")
    return kind


def backtrack(text: str, loc: Location, committed: str | None) -> Location | None:
    """Creation backtracking: the block's location in the committed text when it exists there unchanged."""
    if committed is None:
        return None
    result = calculate(text, committed, {"m": loc})["m"]
    if result.location is None or block_of(committed, result.location) != block_of(text, loc):
        return None
    return result.location


@dataclass(frozen=True)
class Place:
    """Where a marker is being put: the file, its current text and the block; ``repo`` when in git.

    ``head``/``committed``: the repository's HEAD and the file's text there (None: no commit, new file).
    """

    uri: str
    text: str
    location: Location
    in_git: bool = False
    head: str | None = None
    committed: str | None = None


def _anchor(
    marker_id: str, place: Place, local: UncommittedStore | None
) -> tuple[str | None, str, Location, StoredLocation | None]:
    """How a marker at ``place`` is referenced: (commit, base text, base location, stored origin)."""
    if place.in_git:
        at = backtrack(place.text, place.location, place.committed)
        if at is not None and place.head is not None:
            return place.head, "", at, StoredLocation(marker_id, place.head, place.uri, at, None, place.head)
        if local is not None:
            local.put(Uncommitted(marker_id, place.uri, place.text, place.location))
        return None, "", place.location, None
    return None, place.text, place.location, None


def create(
    store: MarkerStore,
    place: Place,
    note: str,
    kind: str,
    author: str,
    local: UncommittedStore | None = None,
) -> Located:
    """A new marker; in git, backtracked to the committed text (where the block was found unchanged)."""
    marker_id = str(uuid.uuid4())
    commit, base_text, base, origin = _anchor(marker_id, place, local)
    record = MarkerRecord(
        id=marker_id,
        uri=place.uri,
        note=note,
        kind=check_kind(kind),
        code=block_of(place.text, place.location),
        commit_hash_when_created=commit,
        created_at=datetime.now(UTC),
        author=author,
        base_text=base_text,
        base=base,
    )
    store.insert(record, origin)
    return Located(record, place.location, False, None, base)


@dataclass(frozen=True)
class Reference:
    """A text the marker's block is known to be in, and where: the buffer location derives from it."""

    text: str
    location: Location


def locate_all(
    records: list[MarkerRecord],
    current: str | None,
    references: dict[str, Reference | str],
    limits: GrammarLimits | None = None,
    places: Mapping[str, Location] | None = None,
) -> list[Located]:
    """Locate markers in ``current``; ``references`` gives each a Reference or the reason it has none, and
    ``places`` where each is stored (else its reference's location).

    Markers sharing a reference text are calculated with one diff. A marker with no usable reference falls
    back to searching the file for its ``code``.
    """
    stored = places if places is not None else _reference_places(references)
    if current is None:  # the file is gone: its blocks are, unless a reference says why they cannot be placed
        return [Located(r, None, False, _reason(references.get(r.id)), stored.get(r.id)) for r in records]
    # by the text itself, not its object: markers made in one version of a file share one diff and one parse
    groups: dict[tuple[str, str | None], tuple[str, dict[str, Location], str | None]] = {}
    for record in records:
        ref = references.get(record.id)
        if isinstance(ref, Reference):
            language = language_of(record.uri)
            group = groups.setdefault((ref.text, language), (ref.text, {}, language))
            group[1][record.id] = ref.location
    results = {}
    for text, locs, language in groups.values():
        results.update(follow(text, current, locs, language, limits))
    out = []
    lines = split_lines(current)  # once: a block's text is read for every marker
    for record in records:
        found, place = results.get(record.id), stored.get(record.id)
        if found is None:
            reason = references.get(record.id)
            fallback = find_code(record.code, current) if record.code.strip() else None
            if fallback is not None and fallback.location is not None and not fallback.content_changed:
                out.append(Located(record, fallback.location, False, None, place))
            else:
                out.append(Located(record, None, False, reason if isinstance(reason, str) else "unknown", place))
        elif found.location is None:
            out.append(Located(record, None, False, found.reason or "unknown", place))
        else:
            changed = block_of_lines(lines, found.location) != record.code
            out.append(Located(record, found.location, changed, None, place))
    return sorted(out, key=_order)


def _reference_places(references: dict[str, Reference | str]) -> dict[str, Location]:
    return {marker_id: ref.location for marker_id, ref in references.items() if isinstance(ref, Reference)}


def _reason(reference: Reference | str | None) -> str:
    return reference if isinstance(reference, str) else "codeBlockDeleted"


def _order(item: Located) -> tuple[int, int, int]:
    if item.location is None:
        return (1, 0, 0)
    return (0, item.location.line_start, item.location.col_start)


def locate(record: MarkerRecord, current: str | None) -> Located:
    """A marker outside git: its base text is its reference."""
    return locate_all([record], current, {record.id: Reference(record.base_text, record.base)})[0]


def require(store: MarkerStore, marker_id: str) -> MarkerRecord:
    record = store.get(marker_id)
    if record is None:
        raise RequestFailed(f"no marker with id {marker_id!r}", "unknownMarker", id=marker_id)
    return record


def update(
    store: MarkerStore,
    marker_id: str,
    *,
    note: str | None = None,
    kind: str | None = None,
    placed: Place | None = None,
    local: UncommittedStore | None = None,
) -> MarkerRecord:
    """Change the note or kind, or place the marker by hand (a new reference: committed, uncommitted, or base)."""
    record = require(store, marker_id)
    if note is not None:
        record = replace(record, note=note)
    if kind is not None:
        record = replace(record, kind=check_kind(kind))
    origin = None
    if placed is not None:
        if local is not None:
            local.remove(marker_id)
        commit, base_text, base, origin = _anchor(marker_id, placed, local)
        record = replace(record, uri=placed.uri, base_text=base_text, base=base)
        if commit is None:
            store.set_commit(marker_id, None)
        record = replace(record, commit_hash_when_created=commit or None)
    store.replace(record, origin)
    return record


def delete(store: MarkerStore, marker_id: str) -> None:
    if not store.delete(marker_id):
        raise RequestFailed(f"no marker with id {marker_id!r}", "unknownMarker", id=marker_id)


def follow_renames(
    store: MarkerStore,
    uri: str,
    candidates: list[MarkerRecord],
    renamed_to: Callable[[MarkerRecord], str | None],
) -> int:
    """Move to ``uri`` the markers whose file was renamed to it; returns how many moved.

    ``candidates`` are markers of the same repository whose file is gone; ``renamed_to`` gives the uri git
    says each one's file became (None when git knows nothing).
    """
    moved = 0
    for record in candidates:
        if renamed_to(record) == uri:
            store.replace(replace(record, uri=uri))
            moved += 1
    return moved
