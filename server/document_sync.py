"""Document sync: ``didOpen``, ``didChange``, ``didClose`` and ``didSave`` keep the text model and the parse
cache up to date, then tell the features (docs/architecture.md, "Documents, snapshots and positions").

These notifications are the only writers of documents and stay small: apply the change, reparse
incrementally, tell listeners (``server.on_document``). Their converters are built once the client is initialized,
in a worker (:func:`warm_converters`), not by the first keystroke on the loop.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .documents import ContentChange
from .hooks import DocumentEvent
from .positions import Pos

if TYPE_CHECKING:
    from .app import TetherServer

log = logging.getLogger(__name__)

_URI = {"uri": "file:///tether-warm-up"}
#: One message of each kind: structuring it makes and caches the converter of its class and of every class it holds.
_SAMPLES: dict[str, dict[str, Any]] = {
    types.TEXT_DOCUMENT_DID_OPEN: {"textDocument": {**_URI, "languageId": "python", "version": 1, "text": ""}},
    types.TEXT_DOCUMENT_DID_CHANGE: {
        "textDocument": {**_URI, "version": 2},
        "contentChanges": [
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"},
            {"text": "x"},
        ],
    },
    types.TEXT_DOCUMENT_DID_SAVE: {"textDocument": _URI, "text": "x"},
    types.TEXT_DOCUMENT_DID_CLOSE: {"textDocument": _URI},
}


def warm_converters(ls: TetherServer) -> None:
    """Worker: build the converters of the document sync notifications (cattrs generates a function per class on
    first use: 5-10 ms that the first ``didChange`` held the loop for)."""
    for method, params in _SAMPLES.items():
        ls.protocol.structure_message({"jsonrpc": "2.0", "method": method, "params": params})


async def warm_converters_off_loop(ls: TetherServer) -> None:
    """``initialized``: :func:`warm_converters` in the worker pool."""
    await ls.run_blocking(warm_converters, ls)


def _content_changes(params: types.DidChangeTextDocumentParams) -> list[ContentChange]:
    changes: list[ContentChange] = []
    for change in params.content_changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            r = change.range
            span = (Pos(r.start.line, r.start.character), Pos(r.end.line, r.end.character))
            changes.append(ContentChange(change.text, span))
        else:
            changes.append(ContentChange(change.text))
    return changes


def did_open(ls: TetherServer, params: types.DidOpenTextDocumentParams) -> None:
    """Hold the document's text and parse it (Python and YAML)."""
    item = params.text_document
    doc = ls.documents.open(item.uri, item.language_id, item.version, item.text)
    snapshot = ls.syntax.open(doc)
    ls.hooks.document_changed(DocumentEvent("open", item.uri, snapshot))


def did_change(ls: TetherServer, params: types.DidChangeTextDocumentParams) -> None:
    """Apply incremental or full-text changes."""
    uri, version = params.text_document.uri, params.text_document.version
    doc = ls.documents.get(uri)
    if doc is None:
        log.warning("didChange for %s, which is not open: ignored", uri)
        return
    previous = doc.client_version
    doc.apply(version, _content_changes(params), ls.encoding)  # the client's text is the truth, whatever its number
    if version <= previous and not doc.warned_out_of_order:
        doc.warned_out_of_order = True
        log.warning(
            "didChange for %s has version %d, not newer than the document's version %d: applied all the same "
            "(requests that name a version mean the latest text the client gave that number; warned once)",
            uri,
            version,
            previous,
        )
    snapshot = ls.syntax.update(doc)
    ls.hooks.document_changed(DocumentEvent("change", uri, snapshot))


def did_close(ls: TetherServer, params: types.DidCloseTextDocumentParams) -> None:
    """Forget the document."""
    uri = params.text_document.uri
    ls.documents.close(uri)
    ls.syntax.close(uri)
    ls.hooks.document_changed(DocumentEvent("close", uri, None))


def did_save(ls: TetherServer, params: types.DidSaveTextDocumentParams) -> None:
    """Saved: markers are recomputed from the committed text."""
    ls.hooks.document_changed(DocumentEvent("save", params.text_document.uri, ls.snapshot(params.text_document.uri)))
