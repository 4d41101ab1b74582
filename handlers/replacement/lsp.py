"""LSP edge of replacement analysis: ``tether/analyzeReplacement`` (PROTOCOL.md §4).

Converts the LSP position (negotiated encoding) to a byte offset of the analysed version, runs the pure engine
on the cached tree, and turns its byte spans back into ranges.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import attrs
from lsprotocol import types

from server.errors import ContentModified, InvalidParams
from server.positions import Pos, PositionOutOfRange, lsp_range
from server.syntax import Snapshot

from . import engine
from .model import Analysis, Options
from .settings import CompletionSettings

if TYPE_CHECKING:
    from server.app import TetherServer


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


def snapshot_for(ls: TetherServer, uri: str, version: int | None) -> Snapshot:
    """The open document's current snapshot; -32801 when ``version`` is not current."""
    snapshot = ls.snapshot(uri)
    if snapshot is None:
        raise InvalidParams("textDocument.uri", f"{uri} is not open", kind="unknownDocument")
    if version is not None and version != snapshot.version:
        raise ContentModified(uri, version, snapshot.version)
    return snapshot


def cursor_offset(snapshot: Snapshot, position: types.Position, ls: TetherServer) -> int:
    """The byte offset of ``position``: a line past the end is an error, a character past it is clamped."""
    try:
        return snapshot.index.offset_of(Pos(position.line, position.character), ls.encoding, strict=True)
    except PositionOutOfRange as exc:
        raise InvalidParams("position", f"line {position.line} is outside the document: {exc}") from exc


def options_for(ls: TetherServer, overrides: AnalyzeOptions | None) -> Options:
    options = ls.settings.section(CompletionSettings).options()
    if overrides is None:
        return options
    if overrides.min_confidence is not None:
        if not 0 <= overrides.min_confidence <= 1:
            raise InvalidParams("options.minConfidence", f"must lie in [0, 1], got {overrides.min_confidence}")
        options = replace(options, min_confidence=overrides.min_confidence)
    if overrides.enable_replacements is not None:
        options = replace(options, enable_replacements=overrides.enable_replacements)
    return options


def run(ls: TetherServer, snapshot: Snapshot, cursor: int, completion: str, options: Options) -> Analysis:
    tree = snapshot.tree
    if tree is None or not engine.supported(snapshot.language):
        return Analysis("insert", (cursor, cursor), completion, f"no replacement rules for {snapshot.language}")
    assert snapshot.language is not None
    return engine.analyze(snapshot.text, tree, snapshot.language, cursor, completion, options)


def to_result(ls: TetherServer, snapshot: Snapshot, analysis: Analysis, completion: str) -> AnalyzeResult:
    index, encoding, text = snapshot.index, ls.encoding, snapshot.text
    span = analysis.replace_span
    unit = analysis.unit
    return AnalyzeResult(
        mode=analysis.mode,
        replace_range=lsp_range(index, span[0], span[1], encoding) if span else None,
        replaced_text=text[span[0] : span[1]].decode("utf-8", errors="replace") if span else None,
        edit=Edit(lsp_range(index, *analysis.edit_span, encoding), analysis.new_text),
        insert_text=completion,
        confidence=analysis.confidence,
        show_visual_diff=analysis.show_visual_diff,
        replaced_lines=analysis.replaced_lines,
        logical_unit=LogicalUnit(unit.type, unit.identifier, unit.column) if unit else None,
        strategy=analysis.strategy,
        reason=analysis.reason,
        version=snapshot.version,
    )


def register(server: TetherServer) -> None:
    @server.handler("tether/analyzeReplacement", AnalyzeParams, AnalyzeResult)
    def analyze_replacement(ls: TetherServer, params: AnalyzeParams) -> AnalyzeResult:
        snapshot = snapshot_for(ls, params.text_document.uri, params.text_document.version)
        cursor = cursor_offset(snapshot, params.position, ls)
        options = options_for(ls, params.options)
        analysis = run(ls, snapshot, cursor, params.completion, options)
        return to_result(ls, snapshot, analysis, params.completion)
