"""The markers section of ``tether-lsp demo``: notes that follow a buffer being edited.

(The git part — commits, branch switches, renames — joins this section when it lands.)
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from server.demo import say
from server.lspclient import raw_request

if TYPE_CHECKING:
    from pygls.lsp.client import LanguageClient

    from server.demo import OpenFile

SOURCE = """import os


def load(path):
    with open(path) as f:
        return f.read()


def total(items):
    s = 0
    for i in items:
        s += i
    return s
"""


def _where(marker: dict[str, Any]) -> str:
    r = marker["range"]
    if r is None:
        return f"missing ({marker.get('missingReason')})"
    changed = ", code changed" if marker["contentChanged"] else ""
    return f"lines {r['start']['line'] + 1}-{r['end']['line'] + 1}{changed}"


async def _show(client: LanguageClient, uri: str, label: str) -> None:
    listed = await raw_request(client, "tether/markers/list", {"textDocument": {"uri": uri}})
    say(f"  {label}: " + "; ".join(f"“{m['note']}” {_where(m)}" for m in listed["markers"]))


def _change(
    client: LanguageClient, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str
) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(*start), end=types.Position(*end)), text=text
                )
            ],
        )
    )


async def section(client: LanguageClient, files: list[OpenFile]) -> None:
    say("== Markers (notes pinned to code blocks) ==")
    with tempfile.TemporaryDirectory(prefix="tether-demo-") as folder:
        path = Path(folder) / "calc.py"
        path.write_text(SOURCE, encoding="utf-8")
        uri = path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=SOURCE)
            )
        )
        for note, (start, end, end_char) in (("load() leaks nothing, good", (3, 5, 23)), ("use sum()", (8, 12, 12))):
            r = {"start": {"line": start, "character": 0}, "end": {"line": end, "character": end_char}}
            await raw_request(client, "tether/markers/create", {"textDocument": {"uri": uri}, "range": r, "note": note})
        await _show(client, uri, "created")
        _change(client, uri, 2, (1, 0), (1, 0), "import sys\nimport json\n")
        await _show(client, uri, "after inserting 2 lines above")
        _change(client, uri, 3, (12, 4), (12, 9), "t = 0")
        await _show(client, uri, "after editing inside total()")
        _change(client, uri, 4, (5, 0), (9, 0), "")
        await _show(client, uri, "after deleting load()")
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        listed = await raw_request(client, "tether/markers/list", {"textDocument": {"uri": uri}})
        for marker in listed["markers"]:
            await raw_request(client, "tether/markers/delete", {"id": marker["id"]})
    say()
