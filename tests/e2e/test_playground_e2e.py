"""Prompt playground scenarios over stdio: identity across edits, reorders, renames, pins and restarts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.helpers import capabilities, raw_request, server_config
from tether_lsp.server.lspclient import plain

A = "You are a helpful assistant that answers questions about the menu of the café."
B = "Summarize the following support ticket in three short bullet points for the team."
C = "Translate the customer's message into French, keeping product names unchanged."


def module(*prompts: tuple[str, str]) -> str:
    return "".join(f'{name} = "{text}"\n\n' for name, text in prompts)


class Editor:
    """A scripted editor: full-text changes, active editor and cursor notifications, state requests."""

    def __init__(self, lsp: Any, root: Path) -> None:
        self.lsp, self.root = lsp, root
        self.versions: dict[str, int] = {}
        self.states: list[Any] = []
        self.arrived = asyncio.Event()

        @lsp.feature("tether/playground/didChangeState")
        def on_state(params: Any) -> None:
            self.states.append(plain(params))
            self.arrived.set()

    async def state_where(self, predicate: Any, timeout: float = 10) -> dict[str, Any]:
        """The first notified state (from now on) that ``predicate`` accepts, without asking for one."""
        seen = len(self.states)
        async with asyncio.timeout(timeout):
            while True:
                for state in self.states[seen:]:
                    if predicate(state):
                        return state
                seen = len(self.states)
                self.arrived.clear()
                await self.arrived.wait()

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def open(self, name: str, text: str, language: str = "python") -> str:
        uri = self.uri(name)
        (self.root / name).write_text(text, encoding="utf-8")
        self.versions[uri] = 1
        self.lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text))
        )
        self.focus(uri)  # an editor that opens a document shows it
        return uri

    def edit(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.lsp.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.versions[uri], uri=uri),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def close(self, uri: str) -> None:
        self.lsp.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))

    def focus(self, uri: str | None, line: int = 0, character: int = 0) -> None:
        params: dict[str, Any] = {"textDocument": {"uri": uri} if uri else None}
        if uri:
            params["position"] = {"line": line, "character": character}
        self.lsp.protocol.notify("tether/editor/didChangeActiveEditor", params)

    def cursor(self, uri: str, line: int, character: int = 0) -> None:
        params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
        self.lsp.protocol.notify("tether/editor/didChangeCursor", params)

    async def state(self) -> dict[str, Any]:
        result: dict[str, Any] = await raw_request(self.lsp, "tether/playground/getState", {})
        return result

    async def ids(self) -> list[str]:
        return [p["promptId"] for p in (await self.state())["prompts"]]


async def start(tmp_path: Path, **init: Any) -> tuple[Any, Editor]:
    config = server_config(TETHER_DATABASE_URL=f"sqlite:///{tmp_path / 'db' / 'tether.db'}")
    lsp: Any = await config.start()
    await lsp.initialize_session(
        types.InitializeParams(capabilities=capabilities(), root_uri=tmp_path.as_uri(), initialization_options=init)
    )
    return lsp, Editor(lsp, tmp_path)


async def stop(lsp: Any) -> None:
    await lsp.shutdown_session()
    await lsp.stop()


@pytest.fixture
async def editor(tmp_path: Path):
    lsp, ed = await start(tmp_path)
    yield ed
    await stop(lsp)


async def test_edits_reorders_and_insertions_keep_ids(editor: Editor) -> None:
    uri = editor.open("p.py", module(("A_PROMPT", A), ("B_PROMPT", B), ("C_PROMPT", C)))
    editor.focus(uri, 0, 12)
    a, b, c = await editor.ids()
    editor.edit(uri, module(("A_PROMPT", A.replace("menu", "menus")), ("B_PROMPT", B), ("C_PROMPT", C)))  # typo fix
    assert await editor.ids() == [a, b, c]
    editor.edit(uri, module(("A_PROMPT", A + " Always be polite."), ("B_PROMPT", B), ("C_PROMPT", C)))  # appended
    assert await editor.ids() == [a, b, c]
    editor.edit(uri, module(("C_PROMPT", C), ("A_PROMPT", A), ("B_PROMPT", B)))  # reordered
    assert await editor.ids() == [c, a, b]
    editor.edit(
        uri,
        module(
            ("NEW_PROMPT", "A new prompt, inserted above the others."),
            ("C_PROMPT", C),
            ("A_PROMPT", A),
            ("B_PROMPT", B),
        ),
    )
    new, *rest = await editor.ids()
    assert rest == [c, a, b]
    assert new not in (a, b, c)
    editor.edit(
        uri,
        module(("C_PROMPT", "Entirely rewritten: count the vowels of every word."), ("A_PROMPT", A), ("B_PROMPT", B)),
    )
    rewritten, *rest = await editor.ids()
    assert rest == [a, b]
    assert rewritten not in (a, b, c, new)


async def test_gradual_drift_and_near_identical_prompts(editor: Editor) -> None:
    one, two = "Reply in English to the customer politely.", "Reply in German to the customer politely."
    uri = editor.open("n.py", module(("EN_PROMPT", one), ("DE_PROMPT", two)))
    en, de = await editor.ids()
    words = one.split()
    for k in range(len(words)):
        words[k] = words[k].lower() + "!"
        editor.edit(uri, module(("EN_PROMPT", " ".join(words)), ("DE_PROMPT", two)))
        assert await editor.ids() == [en, de]
    editor.edit(uri, module(("DE_PROMPT", two.replace("German", "German,")), ("EN_PROMPT", " ".join(words))))
    assert await editor.ids() == [de, en]


async def test_duplicates_copies_deletions_and_undo(editor: Editor) -> None:
    uri = editor.open("d.py", module(("X_PROMPT", A), ("Y_PROMPT", A), ("Z_PROMPT", B), ("W_PROMPT", C)))
    x, y, z, w = await editor.ids()
    assert x != y  # identical duplicates keep distinct ids
    editor.edit(uri, module(("X_PROMPT", A), ("Y_PROMPT", A), ("Z_PROMPT", B), ("W_PROMPT", C), ("V_PROMPT", B)))
    assert (await editor.ids())[:4] == [x, y, z, w]  # a pasted copy gets a new id, the original keeps its own
    editor.edit(uri, module(("W_PROMPT", C)))  # most prompts deleted
    assert await editor.ids() == [w]
    editor.edit(uri, module(("X_PROMPT", A), ("Y_PROMPT", A), ("Z_PROMPT", B), ("W_PROMPT", C)))  # undo
    assert await editor.ids() == [x, y, z, w]


async def test_a_transient_syntax_error_keeps_the_last_good_prompts(editor: Editor) -> None:
    text = module(("A_PROMPT", A), ("B_PROMPT", B))
    uri = editor.open("s.py", text)
    a, b = await editor.ids()
    broken = text.replace(f'B_PROMPT = "{B}"', f'B_PROMPT = "{B}')  # an unclosed quote while typing
    editor.edit(uri, broken)
    state = await editor.state()
    assert state["parseError"] is not None
    assert [p["promptId"] for p in state["prompts"]][:1] == [a]
    assert b in [p["promptId"] for p in state["prompts"]]
    editor.edit(uri, text)
    state = await editor.state()
    assert state["parseError"] is None
    assert [p["promptId"] for p in state["prompts"]] == [a, b]


async def test_the_cursor_selects_the_prompt_under_it_in_utf16(editor: Editor) -> None:
    text = 'x = "🚀 東京 é"; P_PROMPT = "Prompt after non-ASCII text"\n\nOTHER = 1\n'
    uri = editor.open("u.py", text)
    # `x = "🚀 東京 é"; P_PROMPT = ` is 26 UTF-16 units (🚀 counts 2): the prompt's string starts there
    editor.focus(uri, 0, 26)
    state = await editor.state()
    assert state["prompt"]["content"] == "Prompt after non-ASCII text"
    assert state["prompt"]["reason"] == "cursor"
    assert state["prompt"]["range"] == {"start": {"line": 0, "character": 26}, "end": {"line": 0, "character": 55}}
    editor.cursor(uri, 0, 55)  # the end is inclusive
    assert (await editor.state())["prompt"] is not None
    editor.cursor(uri, 2, 0)  # outside any prompt: no prompt, no fallback to the first one
    assert (await editor.state())["prompt"] is None


async def test_yaml_key_renames_keep_ids(editor: Editor) -> None:
    text = f"summarize:\n  system: {A}\n  user_prompt: {B}\n"
    uri = editor.open("p.yaml", text, "yaml")
    a, b = await editor.ids()
    editor.edit(uri, text.replace("summarize:", "summary:").replace("user_prompt:", "instructions:"))
    state = await editor.state()
    assert [p["promptId"] for p in state["prompts"]] == [a, b]
    assert [p["anchor"] for p in state["prompts"]] == ["summary.system", "summary.instructions"]


async def test_renamed_and_copied_files(editor: Editor, tmp_path: Path) -> None:
    text = module(("A_PROMPT", A), ("B_PROMPT", B))
    uri = editor.open("orig.py", text)
    a, b = await editor.ids()
    copy = editor.open("copy.py", text)  # the original is still there: a copy never steals ids
    editor.focus(copy)
    copied = await editor.ids()
    assert not set(copied) & {a, b}
    editor.close(uri)
    (tmp_path / "orig.py").rename(tmp_path / "moved.py")
    moved = editor.open("moved.py", text.replace("three", "3"))  # lightly edited on the way
    editor.lsp.workspace_did_rename_files(types.RenameFilesParams([types.FileRename(old_uri=uri, new_uri=moved)]))
    editor.focus(moved)
    assert await editor.ids() == [a, b]


@pytest.mark.parametrize("rename_first", [True, False])
async def test_did_rename_files_before_or_after_open_gives_the_same_result(
    editor: Editor, tmp_path: Path, rename_first: bool
) -> None:
    text = module(("A_PROMPT", A), ("B_PROMPT", B), ("C_PROMPT", C))
    uri = editor.open("first.py", text)
    a, b, c = await editor.ids()
    editor.close(uri)
    (tmp_path / "first.py").rename(tmp_path / "second.py")
    new = editor.uri("second.py")
    rename = types.RenameFilesParams([types.FileRename(old_uri=uri, new_uri=new)])
    # two of three prompts rewritten on the way: too different for similarity alone (mean < 0.5)
    rewritten = module(
        ("A_PROMPT", "Heavily rewritten during the rename, nothing like before."),
        ("B_PROMPT", B),
        ("C_PROMPT", "Also rewritten: list every allergen of each dish."),
    )
    if rename_first:
        editor.lsp.workspace_did_rename_files(rename)
        editor.open("second.py", rewritten)
    else:
        editor.open("second.py", rewritten)
        editor.lsp.workspace_did_rename_files(rename)
    editor.focus(new)
    state = await editor.state()
    ids = [p["promptId"] for p in state["prompts"]]
    assert ids[1] == b  # identity comes from the rename, in either order
    assert a not in ids
    assert c not in ids
    assert state["file"]["uri"] == new


async def test_pinned_navigation_and_other_files(editor: Editor) -> None:
    one = editor.open("one.py", module(("A_PROMPT", A), ("B_PROMPT", B)))
    two = editor.open("two.py", module(("C_PROMPT", C)))
    editor.focus(one, 2, 12)
    state = await editor.state()
    file_id, b = state["file"]["fileId"], state["prompt"]["promptId"]
    pinned = await raw_request(editor.lsp, "tether/playground/pin", {"fileId": file_id, "promptId": b})
    assert pinned["pin"] == {"fileId": file_id, "promptId": b}
    assert pinned["prompt"]["reason"] == "cursor"
    editor.focus(two, 0, 12)  # navigating away keeps the pinned prompt on show
    editor.cursor(two, 0, 14)
    state = await editor.state()
    assert state["file"]["uri"] == one
    assert (state["prompt"]["promptId"], state["prompt"]["reason"]) == (b, "cursor")
    editor.edit(two, module(("C_PROMPT", C), ("D_PROMPT", "Another prompt in the other file, tracked.")))
    await editor.state()
    editor.edit(one, module(("A_PROMPT", A), ("B_PROMPT", B + " Pinned but edited.")))  # the pinned file: updated
    state = await editor.state()
    assert state["prompt"]["content"] == B + " Pinned but edited."
    unpinned = await raw_request(editor.lsp, "tether/playground/unpin", {})
    assert unpinned["file"]["uri"] == two  # resolved at once from the active editor and its cursor
    assert len(unpinned["prompts"]) == 2  # the other file was tracked while pinned
    assert unpinned["prompt"]["anchor"] == "C_PROMPT"


async def test_did_change_state_only_when_the_state_changes(editor: Editor) -> None:
    """The server handles messages in order and sends a notification before the answer to a later request,
    so once a getState is answered every didChangeState the earlier messages caused has arrived."""
    uri = editor.open("c.py", module(("A_PROMPT", A), ("B_PROMPT", B)))
    editor.focus(uri, 0, 12)
    await editor.state()
    count = len(editor.states)
    for _ in range(5):
        editor.cursor(uri, 0, 14)  # the same prompt: nothing new to show
    await editor.state()
    assert len(editor.states) == count
    editor.cursor(uri, 2, 12)
    await editor.state()
    assert len(editor.states) == count + 1
    assert editor.states[-1]["prompt"]["anchor"] == "B_PROMPT"


async def test_typing_alone_updates_the_state_once_it_pauses(editor: Editor) -> None:
    """No playground message after the edits: the prompts are found in a worker once typing pauses, and the
    state a client shows follows (the last version only: the earlier ones were replaced before the pause)."""
    uri = editor.open("t.py", module(("A_PROMPT", A)))
    editor.focus(uri, 0, 12)
    assert [p["anchor"] for p in (await editor.state())["prompts"]] == ["A_PROMPT"]
    editor.edit(uri, module(("A_PROMPT", A), ("B_PROMPT", B)))
    editor.edit(uri, module(("A_PROMPT", A), ("B_PROMPT", B), ("C_PROMPT", C)))
    state = await editor.state_where(lambda s: len(s["prompts"]) > 1)
    assert [p["anchor"] for p in state["prompts"]] == ["A_PROMPT", "B_PROMPT", "C_PROMPT"]
    assert state["prompt"]["anchor"] == "A_PROMPT"


async def test_bad_input(editor: Editor) -> None:
    uri = editor.open("b.py", module(("A_PROMPT", A)))
    editor.focus(uri, 0, 12)
    state = await editor.state()
    cases = [
        ("tether/playground/pin", {"fileId": "nope", "promptId": "x"}, "fileId"),
        ("tether/playground/pin", {"fileId": state["file"]["fileId"], "promptId": "nope"}, "promptId"),
        ("tether/playground/setSettings", {"promptId": "nope", "settings": {}}, "promptId"),
        ("tether/playground/setSettings", {"promptId": state["prompts"][0]["promptId"], "settings": [1]}, "settings"),
        ("tether/playground/getSettings", {"promptId": "nope"}, "promptId"),
    ]
    for method, params, field in cases:
        with pytest.raises(JsonRpcException) as info:
            await raw_request(editor.lsp, method, params)
        assert info.value.code == -32602
        assert field in str(info.value.message)


async def test_identity_and_settings_survive_a_restart(tmp_path: Path) -> None:
    text = module(("A_PROMPT", A), ("B_PROMPT", B))
    lsp, editor = await start(tmp_path)
    try:
        uri = editor.open("r.py", text)
        a, b = await editor.ids()
        await raw_request(lsp, "tether/playground/setSettings", {"promptId": b, "settings": {"vars": {"x": "é 🚀"}}})
    finally:
        await stop(lsp)
    lsp, editor = await start(tmp_path)
    try:
        editor.open("r.py", module(("B_PROMPT", B), ("A_PROMPT", A)))
        editor.focus(uri, 0, 12)
        assert await editor.ids() == [b, a]
        assert await raw_request(lsp, "tether/playground/getSettings", {"promptId": b}) == {"vars": {"x": "é 🚀"}}
        assert await raw_request(lsp, "tether/playground/getSettings", {"promptId": a}) is None
    finally:
        await stop(lsp)


async def test_keywords_and_thresholds_are_settings(tmp_path: Path) -> None:
    limits = {"similarityThreshold": 0.95, "shortSimilarityThreshold": 0.95}
    init = {"tether": {"playground": {"keywords": ["persona"], **limits}}}
    lsp, editor = await start(tmp_path, **init)
    try:
        uri = editor.open("k.py", 'agent(persona="A grumpy but helpful chef.", system="Not a keyword now.")\n')
        state = await editor.state()
        assert [p["anchor"] for p in state["prompts"]] == ["agent(persona=)"]
        (first,) = await editor.ids()
        editor.edit(uri, 'agent(persona="A grumpy but very helpful chef.")\n')  # 0.9 similar: below 0.95 now
        (second,) = await editor.ids()
        assert second != first
    finally:
        await stop(lsp)
