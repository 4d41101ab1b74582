"""Locating a file's markers in its current text: which markers are in the file at the clone's HEAD, each one's
reference (the text it is known to be in, and where) and stored place, then :func:`service.locate_all`.

The one way markers are located, whichever front asks (an editor's ``list`` and ``codeLens``, an agent's
``notes``): :meth:`MarkersState.locate_now <.state.MarkersState.locate_now>` calls :func:`locate` in a worker.
"""

from __future__ import annotations

import dataclasses
from contextlib import closing
from typing import TYPE_CHECKING, Protocol

from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.files import FileRefused, file_exists, file_uri_spellings, read_text, same_file, uri_to_path
from tether_lsp.server.host import Host
from tether_lsp.server.lazy import lazy_module
from tether_lsp.server.settings import LimitSettings

from . import git
from .clones import in_clone
from .git import FileInRepo, Git
from .git_view import GitView

if TYPE_CHECKING:
    from . import late_store, service, tracking
    from .calculator import Location
    from .location_store import LocationStore, StoredLocation
    from .store import MarkerRecord, MarkerStore
    from .uncommitted_store import UncommittedStore
else:  # loaded on first use: they bring SQLAlchemy
    late_store, service, tracking = (
        lazy_module(f"{__package__}.{name}") for name in ("late_store", "service", "tracking")
    )


class Stores(Protocol):
    """What locating needs of the markers state: its git, its server, its stores, and where to say that
    markers were found in renamed files (their files' lists change)."""

    git: Git
    server: Host

    def markers(self) -> MarkerStore: ...
    def locations(self) -> LocationStore: ...
    def local(self) -> UncommittedStore: ...
    def changed_from_worker(self, uris: list[str]) -> None: ...


def current_text(server: Host, uri: str, open_text: str | None) -> str | None:
    """Worker: the open buffer's text, else the file on disk, else None; -32602 naming the uri for a file that must
    not be read (not a regular file, too large)."""
    if open_text is not None:
        return open_text
    path = uri_to_path(uri)
    if path is None:
        return None
    try:
        return read_text(path, server.settings.section(LimitSettings).maxFileBytes)
    except FileRefused as exc:
        raise InvalidParams("textDocument.uri", f"{uri}: {exc}", kind="fileRefused", uri=uri) from exc
    except OSError:
        return None


def locate(
    stores: Stores, uri: str, text: str | None, repo: git.FileInRepo | None, head: str | None
) -> list[service.Located]:
    """Worker: every marker of ``uri`` located in ``text`` from its best reference. Locations at HEAD computed
    for it are stored after the answer (:mod:`.late_store`): the sync may hold the write lock meanwhile."""
    markers = stores.markers()
    records = markers.for_uri(uri)
    if repo is None or head is None:
        return _located(stores, records, text, repo, None, {})
    late = late_store.LatePuts(stores.locations())
    try:
        with closing(GitView(stores.git, repo.root, head)) as view:
            records, stored = in_file_at_head(stores, uri, view, records, markers, late)
            return _located(stores, records, text, repo, view, stored)
    finally:
        late_store.store_later(stores.server, late)


def _located(
    stores: Stores,
    records: list[MarkerRecord],
    text: str | None,
    repo: git.FileInRepo | None,
    view: GitView | None,
    stored: dict[str, StoredLocation],
) -> list[service.Located]:
    if not records:
        return []
    refs: dict[str, service.Reference | str] = {}
    places: dict[str, Location] = {}  # where each is stored: what a note's state compares with
    for record in records:
        if record.base_text:
            refs[record.id] = service.Reference(record.base_text, record.base)
            if not record.commit_hash_when_created:
                places[record.id] = record.base
    # uncommitted markers' snapshots: the reference of those of this clone, the stored place of those with no base
    uncommitted = [r for r in records if not r.commit_hash_when_created and (repo is not None or not r.base_text)]
    if uncommitted:
        snapshots = stores.local().get([r.id for r in uncommitted])
        for record in uncommitted:
            entry = snapshots.get(record.id)
            if entry is None:
                continue
            if not record.base_text:
                places[record.id] = entry.location
            if repo is not None and in_clone(entry.uri, repo.root):  # another clone's (a shared SQLite file): not ours
                refs[record.id] = service.Reference(entry.file_contents, entry.location)
    for record in records:
        if record.commit_hash_when_created:
            at_head = stored.get(record.id)
            refs[record.id] = committed_reference(view, at_head)
            if at_head is not None and at_head.location is not None:
                places[record.id] = at_head.location
    return service.locate_all(records, text, refs, stores.server.grammar_limits(), places)


def in_file_at_head(
    stores: Stores,
    uri: str,
    view: GitView,
    records: list[MarkerRecord],
    markers: MarkerStore,
    locations: LocationStore | None = None,
) -> tuple[list[MarkerRecord], dict[str, StoredLocation]]:
    """The markers in ``uri`` at ``view.head``, with their locations there: its own ones, and those whose
    location stored at that HEAD is in it (a checkout back before a rename, a rename undone), minus those
    whose location there is in another file. Locations not stored at that HEAD yet are computed now, so the
    answer does not wait for the sync (and does not depend on which file is asked first); ``locations``: where
    they are stored (else the state's store)."""
    locations = locations or stores.locations()
    spellings = file_uri_spellings(uri)
    known = {r.id for r in records}
    arrived = [i for i in locations.ids_in_files(view.head, spellings) if i not in known]
    candidates = records + (markers.get_many(arrived) if arrived else [])
    result = tracking.at_head(candidates, markers, locations, view, limits=stores.server.grammar_limits())
    if result.moved:  # markers whose file this found renamed: the client lists those files again
        stores.changed_from_worker(sorted({r.uri for r in result.moved}))
    inside = []
    for record in candidates:
        where = tracking.file_at_head(record, result.stored.get(record.id), file_exists)
        if where in spellings or same_file(where, uri):
            inside.append(record if record.uri == uri else dataclasses.replace(record, uri=uri))
    return inside, result.stored


def committed_reference(view: GitView | None, stored: StoredLocation | None) -> service.Reference | str:
    """A committed marker's reference: the committed text of the file its location at HEAD is in, and that
    location; else why it is missing."""
    if view is None:
        return "missingOriginalCommit"
    if stored is None or stored.location is None:
        return stored.missing_reason or "unknown" if stored else "unknown"
    path = view.relative(stored.uri)
    committed = view.text(view.head, path) if path else None
    return service.Reference(committed, stored.location) if committed is not None else "missingOriginalCommit"


def with_file_at_head(stores: Stores, record: MarkerRecord, repo: FileInRepo | None, head: str | None) -> MarkerRecord:
    """Worker: the marker with the file it is in at ``head`` of its clone ``repo`` (None: outside git, or not
    committed: its own file); see :func:`tracking.file_at_head`."""
    if repo is None or head is None:
        return record
    stored = stores.locations().at(head, [record.id], near=record.uri).get(record.id)
    if stored is None:
        with closing(GitView(stores.git, repo.root, head)) as view:
            limits = stores.server.grammar_limits()
            result = tracking.at_head([record], stores.markers(), stores.locations(), view, limits=limits)
        stored = result.stored.get(record.id)
    where = tracking.file_at_head(record, stored, file_exists)
    return record if where == record.uri else dataclasses.replace(record, uri=where)
