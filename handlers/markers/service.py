"""The marker service: create, list (located against the current text), update, delete.

Pure apart from the store it is given: texts come in as strings, locations are 1-based character
columns (MARKERS.md); LSP ranges exist only in ``lsp.py``.
"""

from __future__ import annotations

import getpass
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from server.errors import InvalidParams, RequestFailed

from .calculator import Calculated, Location, calculate, split_lines
from .store import MarkerRecord, MarkerStore

KINDS = ("comment", "question", "issue", "bookmark")


@dataclass(frozen=True)
class Located:
    record: MarkerRecord
    location: Location | None
    content_changed: bool
    missing_reason: str | None


def block_text(text: str, loc: Location) -> str:
    lines = split_lines(text)
    if loc.line_start == loc.line_end:
        return lines[loc.line_start - 1][loc.col_start - 1 : loc.col_end - 1]
    parts = [lines[loc.line_start - 1][loc.col_start - 1 :], *lines[loc.line_start : loc.line_end - 1]]
    parts.append(lines[loc.line_end - 1][: loc.col_end - 1])
    return "\n".join(parts)


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


def committed_commit(text: str, loc: Location, committed: str | None, commit: str | None) -> str | None:
    """Backtracking: ``commit`` when the block exists unchanged in the committed text, else None (new code)."""
    if committed is None or commit is None:
        return None
    result = calculate(text, committed, {"m": loc})["m"]
    if result.location is None or block_text(committed, result.location) != block_text(text, loc):
        return None
    return commit


def create(
    store: MarkerStore,
    uri: str,
    text: str,
    loc: Location,
    note: str,
    kind: str,
    author: str,
    commit: str | None = None,
) -> Located:
    record = MarkerRecord(
        id=str(uuid.uuid4()),
        uri=uri,
        note=note,
        kind=check_kind(kind),
        code=block_text(text, loc),
        commit_hash_when_created=commit,
        created_at=datetime.now(UTC),
        author=author,
        base_text=text,
        base=loc,
    )
    store.insert(record)
    return Located(record, loc, False, None)


def locate(record: MarkerRecord, current: str | None) -> Located:
    if current is None:
        return Located(record, None, False, "unknown")
    result: Calculated = calculate(record.base_text, current, {record.id: record.base})[record.id]
    if result.location is None:
        return Located(record, None, False, result.reason or "unknown")
    return Located(record, result.location, block_text(current, result.location) != record.code, None)


def list_for(store: MarkerStore, uri: str, current: str | None) -> list[Located]:
    """Every marker of ``uri``: located ones in document order, then missing ones."""
    located = [locate(record, current) for record in store.for_uri(uri)]

    def order(item: Located) -> tuple[int, int, int]:
        if item.location is None:
            return (1, 0, 0)
        return (0, item.location.line_start, item.location.col_start)

    return sorted(located, key=order)


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
    placed: tuple[str, str, Location] | None = None,
) -> MarkerRecord:
    """Change the note or kind, or place the marker by hand at ``(uri, current text, location)``."""
    record = require(store, marker_id)
    if note is not None:
        record = replace(record, note=note)
    if kind is not None:
        record = replace(record, kind=check_kind(kind))
    if placed is not None:
        uri, text, loc = placed
        record = replace(record, uri=uri, base_text=text, base=loc)
    store.replace(record)
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
