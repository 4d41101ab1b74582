"""The replacement section of ``tether-lsp demo``: the classic example (a blank line under ``shell:`` whose
``command:`` children are replaced) and a Python method redefinition from an auto-indented cursor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tether_lsp.server.demo import say
from tether_lsp.server.lspclient import raw_request

if TYPE_CHECKING:
    from pygls.lsp.client import LanguageClient

    from tether_lsp.server.demo import OpenFile

PLAYBOOK = """- hosts: all
  tasks:
    - name: Get cpu count for worker
      shell:

        command: >-
          "{{ old command that should be deleted }}"
        register: old_result
"""
PLAYBOOK_COMPLETION = '        command: >-\n          "{{ working_dir }}/oc get nodes"\n        register: r'

STORE = (
    """class Store:
    def load(self, path):
        return open(path).read()

    @property
    def size(self):
        return 1

"""
    + "    \n"
)
STORE_COMPLETION = "def load(self, path):\n        with open(path) as f:\n            return f.read()"


async def _case(
    client: LanguageClient, uri: str, language: str, text: str, line: int, char: int, completion: str
) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        )
    )
    params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": char}, "completion": completion}
    result: dict[str, Any] = await raw_request(client, "tether/analyzeReplacement", params)
    say(f"  cursor {line + 1}:{char + 1}, completion: {completion.splitlines()[0].strip()} …")
    say(f"  → {result['mode']} ({result['strategy'] or '-'}): {result['reason']}")
    if result["mode"] == "replace":
        r = result["replaceRange"]
        say(
            f"    replaces lines {r['start']['line'] + 1}-{r['end']['line'] + 1}, confidence {result['confidence']}, "
            f"visual diff: {result['showVisualDiff']}"
        )
        for line_text in result["replacedText"].splitlines():
            say(f"    - {line_text}")
        for line_text in result["edit"]["newText"].splitlines():
            say(f"    + {line_text}")
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))


async def section(client: LanguageClient, files: list[OpenFile]) -> None:
    say("== Replacement analysis (tether/analyzeReplacement: insert or replace?) ==")
    say("The classic example: the cursor on the blank line under `shell:`")
    await _case(client, "untitled:/demo/site.yml", "ansible", PLAYBOOK, 4, 0, PLAYBOOK_COMPLETION)
    say("A method redefined from an auto-indented cursor (the model's text starts at the cursor column)")
    await _case(client, "untitled:/demo/store.py", "python", STORE, 8, 4, STORE_COMPLETION)
    say("A new method: nothing to replace")
    await _case(client, "untitled:/demo/store.py", "python", STORE, 8, 4, "def save(self, path):\n        pass")
    say()
