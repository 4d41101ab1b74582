"""LSP edge of inline edits (docs/protocol.md, "Inline edits"): ``tether/edits/resolve`` and the streaming
``tether/edits/begin`` / ``update`` / ``end`` with ``workspace/applyEdit`` and ``tether/edits/didUpdate``.

Edits are placed by the :class:`.service.Batch` service and streamed by the :class:`.streamer.Streamer`
service, which writes into the editor over LSP (:class:`.lsp_editor.LspEditor`); this module turns wire params
into their plain arguments and their byte spans into ranges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from tether_lsp.server.documents import Document, TextVersion
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.hooks import DocumentEvent
from tether_lsp.server.methods import Feature, Method, Notice
from tether_lsp.server.positions import lsp_range

from . import lsp_tasks
from .lsp_editor import LspEditor
from .service import Batch, Options, Target
from .settings import EditSettings
from .streamer import Streamer
from .wire import (
    BeginParams,
    BeginResult,
    DidUpdate,
    EditResult,
    EndParams,
    Match,
    ResolveOptions,
    ResolveParams,
    ResolveResult,
    RunParams,
    RunResult,
    StreamStatus,
    UpdateParams,
)

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer


def open_document(ls: TetherServer, uri: str) -> Document:
    doc = ls.document(uri)
    if doc is None:
        raise InvalidParams("textDocument.uri", f"{uri} is not open", kind="unknownDocument")
    return doc


def base_of(doc: Document, base_version: int) -> TextVersion:
    """The kept version a model saw, named by the client's number (the newest kept version with that number:
    a client that reused a number means its latest text by it)."""
    found = doc.find(base_version)
    if found is not None:
        return found
    if base_version > doc.client_version:
        raise InvalidParams("baseVersion", f"{base_version} is newer than the current version {doc.client_version}")
    raise InvalidParams(
        "baseVersion",
        f"version {base_version} is no longer kept (dropped by {doc.last_eviction or 'the history limits'}); "
        f"the oldest version kept is {doc.versions()[0].client_version}",
    )


def options_of(given: ResolveOptions | None) -> Options:
    if given is None:
        return Options()
    if given.on_user_edit not in (None, "merge", "refuse"):
        raise InvalidParams("options.onUserEdit", f"expected merge or refuse, got {given.on_user_edit!r}")
    if given.min_similarity is not None and not 0 <= given.min_similarity <= 1:
        raise InvalidParams("options.minSimilarity", f"must lie in [0, 1], got {given.min_similarity}")
    default = Options()
    return Options(
        fuzzy=default.fuzzy if given.fuzzy is None else given.fuzzy,
        min_similarity=default.min_similarity if given.min_similarity is None else given.min_similarity,
        reindent=default.reindent if given.reindent is None else given.reindent,
        on_user_edit=given.on_user_edit or default.on_user_edit,
    )


def resolve(context: Edits, params: ResolveParams) -> ResolveResult:
    """Place edits a model made on `baseVersion` onto the current version (no side effects)."""
    ls = context.server
    doc = open_document(ls, params.text_document.uri)
    base = base_of(doc, params.base_version)
    options = options_of(params.options)
    for k, item in enumerate(params.edits):
        if not item.old_text and base.text:
            raise InvalidParams(f"edits[{k}].oldText", "empty, but the base document is not (where would it go?)")
    batch = Batch(base.text, doc.current.text, list(doc.edits_since(base.version) or []), options)
    for k, item in enumerate(params.edits):
        batch.place(Target(item.id or str(k), item.new_text, item.old_text))
    results = batch.placed(together=False)
    index, encoding = doc.current.index, ls.encoding

    def rng(span: tuple[int, int]) -> types.Range:
        return lsp_range(index, span[0], span[1], encoding)

    out = []
    for r in results:
        resolved = r.status == "resolved" and r.span is not None
        out.append(
            EditResult(
                id=r.id,
                status=r.status,
                range=rng(r.span) if r.span is not None else None,
                new_text=r.new_text if resolved else None,
                match=Match(*r.match) if r.match and resolved else None,
                candidates=[rng(c) for c in r.candidates] or None,
                notes=r.notes or None,
            )
        )
    return ResolveResult(doc.client_version, out)


class Edits:
    """The edits feature's context: one :class:`Streamer` writing into the editor over LSP, and the tasks that
    stream into it."""

    def __init__(self, server: TetherServer) -> None:
        server.register_settings("edits", EditSettings)
        self.server = server
        self.editor = editor = LspEditor(server)
        self.streamer = streamer = Streamer(server, editor)

        def on_document(event: DocumentEvent) -> None:
            if event.kind == "close":
                streamer.closed(event.uri)

        server.on_document(on_document)
        self.tasks = lsp_tasks.tasks_over(server, editor, streamer)

    def begin(self, params: BeginParams) -> BeginResult:
        """Start streaming an edit made on `baseVersion` (the base version is kept until the stream ends)."""
        doc = open_document(self.server, params.text_document.uri)
        return BeginResult(self.streamer.begin(doc.uri, base_of(doc, params.base_version).version))

    async def update(self, params: UpdateParams) -> StreamStatus:
        """The target and replacement so far (cumulative); writes what is complete through `workspace/applyEdit`."""
        state = await self.streamer.update(
            params.edit_id, params.old_text, params.old_text_final, params.new_text, params.new_text_final
        )
        return self.editor.status(state)

    async def end(self, params: EndParams) -> StreamStatus:
        """End a stream: keep what was written, or revert to the original text."""
        if params.action not in ("keep", "revert"):
            raise InvalidParams("action", f"expected keep or revert, got {params.action!r}")
        return self.editor.status(await self.streamer.end(params.edit_id, params.action))

    async def run_task(self, params: RunParams) -> RunResult:
        """Run the `@run <instruction>` task on this line: the model's changes stream into the files."""
        return await lsp_tasks.run(self.tasks, params)


FEATURE = Feature(
    "edits",
    setup=Edits,
    methods=[
        Method("tether/edits/resolve", resolve, ResolveParams, ResolveResult),
        Method("tether/edits/begin", Edits.begin, BeginParams, BeginResult),
        Method("tether/edits/update", Edits.update, UpdateParams, StreamStatus, runs="async"),
        Method("tether/edits/end", Edits.end, EndParams, StreamStatus, runs="async"),
        Method(
            "tether/tasks/run",
            Edits.run_task,
            RunParams,
            RunResult,
            runs="async",
            cancellable=True,
        ),
    ],
    sends=[Notice("tether/edits/didUpdate", DidUpdate)],
)
