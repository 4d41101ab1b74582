"""The playground section of ``tether-lsp demo``: a prompts file is edited and reordered while the cursor moves;
the state printed after each step shows each prompt keeping its id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tether_lsp.server.demo import say, short
from tether_lsp.server.lspclient import plain, raw_request

from .demo_model import DemoModel

if TYPE_CHECKING:
    from pygls.lsp.client import LanguageClient

    from tether_lsp.server.demo import OpenFile

URI = "untitled:/demo/prompts.py"
GREET = "Greet the customer of the café by name: {name}."
SUMMARY = "Summarize the ticket below in three bullet points for the support team."
TRANSLATE = "Translate the message into {language}, keeping product names unchanged."


def source(*prompts: tuple[str, str]) -> str:
    return "import textwrap\n\n" + "".join(f'{name} = f"{text}"\n\n' for name, text in prompts)


async def _show(client: LanguageClient, label: str) -> None:
    state: dict[str, Any] = await raw_request(client, "tether/playground/getState", {})
    selected = state["prompt"]
    say(f"  {label}")
    for item in state["prompts"]:
        mark = "▶" if selected and selected["promptId"] == item["promptId"] else " "
        say(f"   {mark} {item['promptId']}  {item['anchor']:<16} {short(item['preview'], 52)}")
    if selected is None:
        say("     (the cursor is in no prompt)")


async def section(client: LanguageClient, files: list[OpenFile]) -> None:
    say("== Prompt playground (stable prompt ids across edits and reorders, and a run) ==")

    text = source(("GREET_PROMPT", GREET), ("SUMMARY_PROMPT", SUMMARY), ("TRANSLATE_PROMPT", TRANSLATE))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=URI, language_id="python", version=1, text=text))
    )
    active = {"textDocument": {"uri": URI}, "position": {"line": 4, "character": 20}}
    client.protocol.notify("tether/editor/didChangeActiveEditor", active)
    await _show(client, "opened, the cursor in SUMMARY_PROMPT:")
    ids = [p["promptId"] for p in (await raw_request(client, "tether/playground/getState", {}))["prompts"]]
    await raw_request(client, "tether/playground/setSettings", {"promptId": ids[1], "settings": {"model": "small"}})
    steps = [
        (
            "after a typo fix and an appended sentence:",
            (
                ("GREET_PROMPT", GREET.replace("café", "cafe")),
                ("SUMMARY_PROMPT", SUMMARY + " Be brief."),
                ("TRANSLATE_PROMPT", TRANSLATE),
            ),
        ),
        (
            "after reordering (SUMMARY first) and a new prompt on top:",
            (
                ("NEW_PROMPT", "Suggest a pastry for {drink}."),
                ("SUMMARY_PROMPT", SUMMARY + " Be brief."),
                ("GREET_PROMPT", GREET),
                ("TRANSLATE_PROMPT", TRANSLATE),
            ),
        ),
    ]
    version = 1
    for label, prompts in steps:
        version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=URI),
                [types.TextDocumentContentChangeWholeDocument(text=source(*prompts))],
            )
        )
        await _show(client, label)
    settings = await raw_request(client, "tether/playground/getSettings", {"promptId": ids[1]})
    say(f"  the playground inputs saved for {ids[1]} are still there: {settings}")
    cursor = {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 0}}
    client.protocol.notify("tether/editor/didChangeCursor", cursor)
    await _show(client, "the cursor on a blank line:")
    await _run(client, ids[2])
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(URI)))
    say()


async def _run(client: LanguageClient, prompt_id: str) -> None:
    """Run a prompt against the stand-in model: the output streams, then the answer, then the stored history."""
    deltas: list[str] = []

    def on_output(params: Any) -> None:
        deltas.append(plain(params)["delta"])

    client.feature("tether/playground/didRunOutput")(on_output)

    with DemoModel() as model:
        settings = {"tether": {"playground": {"endpoint": model.url, "model": "demo-model"}}}
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))
        variables = {"language": "Japanese"}
        say(f"  running {prompt_id} (TRANSLATE_PROMPT) with {variables} against a local stand-in model at {model.url}:")
        result = await raw_request(client, "tether/playground/run", {"promptId": prompt_id, "variables": variables})
    say(f"    streamed {len(deltas)} pieces before the answer: {short(''.join(deltas[:4]), 60)}…")
    say(f"    answer ({result['model']}, {result['finishReason']}, {result['usage']}):")
    say(f"    {short(result['output'], 110)}")
    history = await raw_request(client, "tether/playground/runs", {"promptId": prompt_id})
    newest = history[0]
    say(f"  tether/playground/runs: {len(history)} stored run(s), newest {newest['runId']} at {newest['createdAt']}")
