"""The wire types of inline edits (``tether/edits/*``) and tasks (``tether/tasks/run``): the params and results of its
methods and notifications, camelCase on the wire (``server/protocol.py`` converts them). Only the glue and its
method table use them; engines and services never do."""

from __future__ import annotations

import attrs
from lsprotocol import types

#: Optional fields are left out of the JSON, not sent as null.
OMIT = {"omit_none": True}


@attrs.define
class DocumentRef:
    uri: str


@attrs.define
class ResolveOptions:
    fuzzy: bool | None = None
    min_similarity: float | None = None
    reindent: bool | None = None
    on_user_edit: str | None = None


@attrs.define
class EditItem:
    old_text: str
    new_text: str
    id: str | None = None


@attrs.define
class ResolveParams:
    text_document: DocumentRef
    base_version: int
    edits: list[EditItem]
    options: ResolveOptions | None = None


@attrs.define
class Match:
    kind: str
    similarity: float


@attrs.define
class EditResult:
    id: str
    status: str
    range: types.Range | None = attrs.field(default=None, metadata=OMIT)
    new_text: str | None = attrs.field(default=None, metadata=OMIT)
    match: Match | None = attrs.field(default=None, metadata=OMIT)
    candidates: list[types.Range] | None = attrs.field(default=None, metadata=OMIT)
    notes: list[str] | None = attrs.field(default=None, metadata=OMIT)


@attrs.define
class ResolveResult:
    version: int
    edits: list[EditResult]


@attrs.define
class BeginParams:
    text_document: DocumentRef
    base_version: int


@attrs.define
class BeginResult:
    edit_id: str


@attrs.define
class UpdateParams:
    edit_id: str
    old_text: str
    old_text_final: bool
    new_text: str
    new_text_final: bool


@attrs.define
class StreamStatus:
    status: str
    range: types.Range | None = attrs.field(default=None, metadata=OMIT)


@attrs.define
class EndParams:
    edit_id: str
    action: str = "keep"


@attrs.define
class DidUpdate:
    """A stream's status or range changed (for decorations)."""

    edit_id: str
    status: str
    range: types.Range | None = attrs.field(default=None, metadata=OMIT)


@attrs.define
class RunParams:
    text_document: types.TextDocumentIdentifier
    position: types.Position
    work_done_token: str | int | None = None  # the client's own progress token (LSP's WorkDoneProgressParams)


@attrs.define
class TaskEdit:
    uri: str
    status: str
    range: types.Range | None = attrs.field(default=None, metadata={"omit_none": True})


@attrs.define
class RunResult:
    session_uri: str
    edits: list[TaskEdit]
