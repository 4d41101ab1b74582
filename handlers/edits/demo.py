"""The edits section of ``tether-lsp demo``: an edit the "model" made on version 1 is resolved after the "user"
inserted lines above the target and edited another line of it (backdating and a three-way merge)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tether_lsp.server.demo import say
from tether_lsp.server.lspclient import raw_request

if TYPE_CHECKING:
    from pygls.lsp.client import LanguageClient

    from tether_lsp.server.demo import OpenFile

URI = "untitled:/demo/orders.py"
TEXT = """def total(order):
    s = 0
    for line in order.lines:
        s += line.price * line.quantity
    return s
"""
OLD = "    s = 0\n    for line in order.lines:\n        s += line.price * line.quantity\n    return s\n"
NEW = (
    "    s = 0\n    for line in order.lines:\n        if line.quantity > 0:\n"
    "            s += line.price * line.quantity\n    return s\n"
)


def _change(client: LanguageClient, version: int, line: int, start: int, end: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=URI),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, start), types.Position(line, end)), text=text
                )
            ],
        )
    )


async def section(client: LanguageClient, files: list[OpenFile]) -> None:
    say("== Inline edits (tether/edits/resolve: place a model's edit on a document that moved on) ==")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=URI, language_id="python", version=1, text=TEXT))
    )
    say("  the model saw version 1 and proposes: skip order lines with no quantity (a guard in the loop)")
    _change(client, 2, 0, 0, 0, "from decimal import Decimal\n\n\n")
    say("  meanwhile the user inserted 3 lines above (version 2)")
    _change(client, 3, 7, 4, 12, "return round(s, 2)")
    say("  and edited another line of the target: `return s` -> `return round(s, 2)` (version 3)")
    params = {
        "textDocument": {"uri": URI},
        "baseVersion": 1,
        "edits": [{"id": "guard", "oldText": OLD, "newText": NEW}],
    }
    result: dict[str, Any] = await raw_request(client, "tether/edits/resolve", params)
    edit = result["edits"][0]
    r = edit["range"]
    notes = "; ".join(edit.get("notes") or [])
    say(
        f"  → {edit['status']} ({edit['match']['kind']} match in version 1; {notes}), placed on lines "
        f"{r['start']['line'] + 1}-{r['end']['line']} of version {result['version']}:"
    )
    for line in edit["newText"].rstrip("\n").split("\n"):
        say(f"      {line}")
    params["edits"] = [{"id": "same-line", "oldText": "    return s\n", "newText": "    return int(s)\n"}]
    result = await raw_request(client, "tether/edits/resolve", params)
    say(f"  an edit of the very line the user changed → {result['edits'][0]['status']} (never overwritten)")
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(URI)))
    say()
