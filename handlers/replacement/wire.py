"""The wire types of replacement analysis (``tether/analyzeReplacement``): the params and results of its methods and
notifications, camelCase on the wire (``server/protocol.py`` converts them). Only the glue and its method table use
them; engines and services never do."""

from __future__ import annotations

import attrs
from lsprotocol import types


@attrs.define
class VersionedDocument:
    uri: str
    version: int | None = None


@attrs.define
class AnalyzeOptions:
    enable_replacements: bool | None = None
    min_confidence: float | None = None


@attrs.define
class AnalyzeParams:
    text_document: VersionedDocument
    position: types.Position
    completion: str
    options: AnalyzeOptions | None = None


@attrs.define
class Edit:
    range: types.Range
    new_text: str


@attrs.define
class LogicalUnit:
    type: str
    identifier: str
    column: int


@attrs.define
class AnalyzeResult:
    mode: str
    replace_range: types.Range | None
    replaced_text: str | None
    edit: Edit
    insert_text: str
    confidence: float
    show_visual_diff: bool
    replaced_lines: int
    logical_unit: LogicalUnit | None
    strategy: str | None
    reason: str
    version: int
    warning: str | None = None
