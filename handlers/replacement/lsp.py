"""LSP edge of replacement analysis: ``tether/analyzeReplacement`` (docs/protocol.md, "Replacement analysis").

Converts the LSP position (negotiated encoding) to a byte offset of the analysed version, runs the pure engine
on the cached tree, and turns its byte spans back into ranges.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tether_lsp.server.errors import ContentModified, InvalidParams
from tether_lsp.server.methods import Command, Feature, Method
from tether_lsp.server.positions import Pos, PositionOutOfRange, lsp_range
from tether_lsp.server.settings import LimitSettings
from tether_lsp.server.syntax import Snapshot

from . import engine, fim, inference
from .inline import InlineState
from .model import Analysis, Options
from .settings import CompletionSettings, InferenceSettings
from .wire import AnalyzeOptions, AnalyzeParams, AnalyzeResult, Edit, LogicalUnit

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer


def snapshot_for(ls: TetherServer, uri: str, version: int | None) -> Snapshot:
    """The open document's current snapshot; -32801 when ``version`` is not current."""
    snapshot = ls.snapshot(uri)
    if snapshot is None:
        raise InvalidParams("textDocument.uri", f"{uri} is not open", kind="unknownDocument")
    if version is not None and version != snapshot.client_version:
        raise ContentModified(uri, version, snapshot.client_version)
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
    tree = snapshot.tree_or_raise()
    if tree is None or not engine.supported(snapshot.language):
        doc = ls.document(snapshot.uri)  # its languageId: the client's word, set even when Tether parses nothing
        language = doc.language_id if doc is not None else snapshot.language
        return Analysis("insert", (cursor, cursor), completion, f"no replacement rules for language {language!r}")
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
        version=snapshot.client_version,
        warning=analysis.warning,
    )


def multiline_ranges(ls: TetherServer) -> bool:
    """Whether the client applies multi-line inline completion ranges (our Neovim/Emacs configs opt in)."""
    experimental: Any = ls.client_capabilities.experimental
    tether = experimental.get("tether") if isinstance(experimental, dict) else None
    return bool(isinstance(tether, dict) and tether.get("multilineInlineCompletionRange") is True)


NO_ITEMS = types.InlineCompletionList(items=[])


class Replacement:
    """The replacement feature's context: the server and the inline completion requests' shared state."""

    def __init__(self, server: TetherServer) -> None:
        server.register_settings("completion", CompletionSettings)
        server.register_settings("inference", InferenceSettings)
        self.server = server
        self.inline = InlineState()

    def analyze(self, params: AnalyzeParams) -> AnalyzeResult:
        """Does a completion at the cursor insert, or replace an existing unit (and which lines)?"""
        ls = self.server
        snapshot = snapshot_for(ls, params.text_document.uri, params.text_document.version)
        cursor = cursor_offset(snapshot, params.position, ls)
        options = options_for(ls, params.options)
        analysis = run(ls, snapshot, cursor, params.completion, options)
        return to_result(ls, snapshot, analysis, params.completion)

    def accepted(self, arguments: list[Any]) -> None:
        """The user accepted a replacement (the inline item's command): logged."""
        log.info("inline completion: replacement accepted %s", arguments[:1])


async def inline_completion(context: Replacement, params: types.InlineCompletionParams) -> types.InlineCompletionList:
    """Ask the fill-in-the-middle model, then place its answer as an insert or a replacement."""
    ls, state = context.server, context.inline
    settings = ls.settings.section(InferenceSettings)
    if not settings.endpoint:
        return NO_ITEMS
    automatic = params.context.trigger_kind == types.InlineCompletionTriggerKind.Automatic
    if automatic and settings.delay < 0:
        return NO_ITEMS
    state.generation += 1
    mine = state.generation
    if state.inflight is not None:
        state.inflight.cancel()
    if automatic and settings.delay > 0:
        await asyncio.sleep(settings.delay / 1000)
        if mine != state.generation:
            return NO_ITEMS  # superseded while waiting
    snapshot = ls.snapshot(params.text_document.uri)
    if snapshot is None or snapshot.language is None or snapshot.text_only is not None:
        return NO_ITEMS
    cursor = snapshot.index.offset_of(Pos(params.position.line, params.position.character), ls.encoding)
    prefix = snapshot.text[:cursor].decode("utf-8", errors="replace")
    suffix = snapshot.text[cursor:].decode("utf-8", errors="replace")
    prompt = fim.build(
        prefix, suffix, snapshot.language, settings.format, settings.maxPrefixLength, settings.maxSuffixLength
    )
    try:
        endpoint = inference.Endpoint.parse(settings.endpoint)
    except inference.InferenceError as exc:
        state.failed(str(exc))
        return NO_ITEMS
    call = asyncio.ensure_future(
        inference.complete(
            endpoint,
            settings.model,
            prompt.text,
            settings.maxTokens,
            settings.temperature,
            settings.timeout,
            ls.settings.section(LimitSettings).maxResponseBytes,
        )
    )
    state.inflight = call
    try:
        raw = await call
    except asyncio.CancelledError:
        return NO_ITEMS  # a newer request took over
    except inference.InferenceError as exc:
        state.failed(str(exc))
        return NO_ITEMS
    finally:
        if state.inflight is call:
            state.inflight = None
    state.succeeded()
    current = ls.snapshot(params.text_document.uri)
    if mine != state.generation or current is None or current.version != snapshot.version:
        return NO_ITEMS  # the document or the request moved on while the model was thinking
    completion = fim.clean(raw, prompt.suffix, settings.maxLines)
    if not completion.strip():
        return NO_ITEMS
    options = ls.settings.section(CompletionSettings).options()
    analysis = run(ls, snapshot, cursor, completion, options)
    if analysis.warning is not None:
        # not offered: Tab would leave the file broken. Said once per line, not once per keystroke
        row = params.position.line
        if state.withheld(snapshot.uri, row):
            message = f"Tether: completion on line {row + 1} not offered: {analysis.warning}"
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        return NO_ITEMS
    return _items(ls, snapshot, analysis)


def _items(ls: TetherServer, snapshot: Snapshot, analysis: Analysis) -> types.InlineCompletionList:
    if analysis.reason == "identical":
        return NO_ITEMS  # accepting would change nothing
    edit_range = lsp_range(snapshot.index, *analysis.edit_span, ls.encoding)
    if analysis.mode == "insert":
        return types.InlineCompletionList(items=[types.InlineCompletionItem(analysis.new_text, range=edit_range)])
    if not multiline_ranges(ls) and edit_range.start.line != edit_range.end.line:
        # stock clients mishandle multi-line ranges: they draw the diff from tether/analyzeReplacement instead
        log.debug("inline completion: a multi-line replacement withheld from a client that did not opt in")
        return NO_ITEMS
    assert analysis.unit is not None
    command = types.Command(
        title="Tether: replacement accepted",
        command="tether.replacementAccepted",
        arguments=[{"strategy": analysis.strategy, "identifier": analysis.unit.identifier}],
    )
    item = types.InlineCompletionItem(analysis.new_text, range=edit_range, command=command)
    return types.InlineCompletionList(items=[item])


FEATURE = Feature(
    "replacement",
    setup=Replacement,
    methods=[
        Method("tether/analyzeReplacement", Replacement.analyze, AnalyzeParams, AnalyzeResult),
        Method(
            types.TEXT_DOCUMENT_INLINE_COMPLETION,
            inline_completion,
            runs="async",
            cancellable=True,
            options=types.InlineCompletionOptions(),
        ),
    ],
    commands=[Command("tether.replacementAccepted", Replacement.accepted)],
)
