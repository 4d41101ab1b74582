"""Which prompt the cursor selects, and an f-string's text as Python renders it, over stdio.

A cursor on the statement that holds a prompt (its name, ``=``, a keyword argument's name, a YAML key) selects
that prompt, as a cursor inside its string does; an f-string's ``{{``/``}}`` are shown, counted and sent as the
braces Python writes, not as a variable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.test_playground_e2e import Editor, start, stop
from tests.e2e.test_playground_run_e2e import playground
from tests.fakemodel import Answer, RunningModel
from tests.helpers import raw_request

ORDERS = '''import textwrap

SUMMARY_PROMPT = f"""Summarize the order of {customer} in one line.
Reply as JSON: {{"order": "{{order_id}}", "total": {total!r}}}
"""


def ask(client, question):
    return client.create(
        model="small",
        system="You answer questions about café orders, briefly.",
        input=question,
    )

LIMIT = 3
GREETING_PROMPT = f"Say {{hello}} to {name}."
'''
SHOWN = 'Summarize the order of {customer} in one line.\nReply as JSON: {"order": "{order_id}", "total": {total!r}}\n'
CONFIG = """summarize:
  system_prompt: |
    You are a support assistant.
    Answer in {{ language }}.
  temperature: 0.2
"""


async def selected(editor: Editor, uri: str, line: int, character: int) -> dict[str, Any] | None:
    editor.cursor(uri, line, character)
    prompt: dict[str, Any] | None = (await editor.state())["prompt"]
    return prompt


async def test_the_cursor_on_a_prompts_name_or_statement_selects_it(tmp_path: Path) -> None:
    lsp, editor = await start(tmp_path)
    try:
        uri = editor.open("orders.py", ORDERS)
        for line, character in [(2, 0), (2, 5), (2, 15), (2, 17)]:  # `SUMMARY_PROMPT = f"""…`: name, `=`, string
            prompt = await selected(editor, uri, line, character)
            assert prompt is not None and prompt["anchor"] == "SUMMARY_PROMPT", (line, character)
            assert prompt["reason"] == "cursor"
            assert prompt["range"]["start"] == {"line": 2, "character": 17}  # the range is still the string's
        for line, character in [(10, 8), (10, 13)]:  # `system=` of the call
            prompt = await selected(editor, uri, line, character)
            assert prompt is not None and prompt["anchor"] == "client.create(system=)", (line, character)
        for line, character in [(0, 0), (1, 0), (5, 0), (7, 0), (9, 8), (14, 0)]:  # import, blanks, def, model=, LIMIT
            assert await selected(editor, uri, line, character) is None, (line, character)
        yaml = editor.open("config.yaml", CONFIG, "yaml")
        for character in (2, 10):
            prompt = await selected(editor, yaml, 1, character)  # on `system_prompt:`
            assert prompt is not None and prompt["anchor"] == "summarize.system_prompt"
            assert prompt["content"] == "You are a support assistant.\nAnswer in {{ language }}.\n"  # YAML's own
        assert await selected(editor, yaml, 0, 3) is None  # `summarize:` holds more than the prompt
        assert await selected(editor, yaml, 4, 4) is None  # `temperature:`
        await selected(editor, yaml, 1, 2)
        pin = (await editor.state())["prompts"][0]
        pinned = await raw_request(lsp, "tether/playground/pin", {"fileId": pin["fileId"], "promptId": pin["promptId"]})
        assert pinned["prompt"]["reason"] == "cursor"  # pinned with the cursor on its key
    finally:
        await stop(lsp)


async def test_an_f_strings_doubled_braces_are_shown_and_sent_as_python_renders_them(tmp_path: Path) -> None:
    with RunningModel(Answer("ok")) as model:
        lsp, editor = await start(tmp_path, **playground(model.url("/v1")))
        try:
            uri = editor.open("orders.py", ORDERS)
            prompt = await selected(editor, uri, 3, 0)
            assert prompt is not None and prompt["anchor"] == "SUMMARY_PROMPT"
            assert prompt["content"] == SHOWN
            assert prompt["variables"] == ["customer", "total"]  # `{{order_id}}` is text, not a variable
            previews = {p["anchor"]: p["preview"] for p in (await editor.state())["prompts"]}
            assert previews["GREETING_PROMPT"] == "Say {hello} to {name}."
            values = {"customer": "Ana", "total": "12.5", "order_id": "ignored"}
            await raw_request(lsp, "tether/playground/run", {"promptId": prompt["promptId"], "variables": values})
            (history,) = await raw_request(lsp, "tether/playground/runs", {"promptId": prompt["promptId"]})
        finally:
            await stop(lsp)
    rendered = 'Summarize the order of Ana in one line.\nReply as JSON: {"order": "{order_id}", "total": 12.5}\n'
    assert model.requests[0]["messages"] == [{"role": "user", "content": rendered}]
    assert history["prompt"] == SHOWN and history["variables"] == {"customer": "Ana", "total": "12.5"}
