"""The wire types of markers (``tether/markers/*``): the params and results of its methods and notifications, camelCase
on the wire (``server/protocol.py`` converts them). Only the glue and its method table use them; engines and
services never do."""

from __future__ import annotations

import attrs
from lsprotocol import types

from .kinds import DEFAULT_KIND


@attrs.define
class CreateParams:
    text_document: types.TextDocumentIdentifier
    range: types.Range
    note: str
    kind: str = DEFAULT_KIND


@attrs.define
class ListParams:
    text_document: types.TextDocumentIdentifier


@attrs.define
class UpdateParams:
    id: str
    note: str | None = None
    kind: str | None = None
    range: types.Range | None = None
    text_document: types.TextDocumentIdentifier | None = None


@attrs.define
class IdParams:
    id: str


@attrs.define
class Marker:
    id: str
    uri: str
    range: types.Range | None
    note: str
    kind: str
    code: str
    commit_hash_when_created: str | None
    created_at: str
    author: str
    status: str
    content_changed: bool
    missing_reason: str | None = attrs.field(default=None, metadata={"omit_none": True})


@attrs.define
class MarkerList:
    markers: list[Marker]


@attrs.define
class WorkspaceParams:
    under: str | None = None  # a folder uri; null: the workspace root


@attrs.define
class FileMarkers:
    uri: str
    markers: list[Marker]


@attrs.define
class WorkspaceMarkers:
    files: list[FileMarkers]


@attrs.define
class DidChangeMarkers:
    """Markers of these files moved for a reason other than the client's own request: list them again."""

    uris: list[str]
