"""Inline edits over stdio: ``tether/edits/resolve`` and streaming with a client that answers
``workspace/applyEdit`` like an editor (it applies the edit to its text and sends the didChange)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, raw_request, server_config
from tests.unit.edits.test_resolve import BASE, NEW, OLD
from tether_lsp.server.lspclient import plain


class EditorModel:
    """The client's copy of a document: user edits and the server's applyEdits, each sent as a didChange."""

    def __init__(self, client: LanguageClient, uri: str, text: str) -> None:
        self.client, self.uri, self.text, self.version = client, uri, text, 1
        self.applied: list[Any] = []
        #: Set at each change of the text (tests wait on it instead of polling).
        self.changed = asyncio.Event()
        self.refuse = False
        #: Report each applied edit back as one full-text change (LSP allows it; editors do it).
        self.echo_whole_text = False
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )

    def offset(self, line: int, character: int) -> int:
        lines = self.text.split("\n")
        return sum(len(x) + 1 for x in lines[:line]) + character  # ASCII documents in these tests

    def position(self, offset: int) -> types.Position:
        before = self.text[:offset]
        return types.Position(before.count("\n"), offset - (before.rfind("\n") + 1))

    def replace(self, start: int, end: int, new: str, *, whole: bool = False) -> None:
        """An edit made in the editor (the user's or an applied one): sent as an incremental didChange, or as
        the whole text."""
        change: Any = types.TextDocumentContentChangePartial(
            range=types.Range(self.position(start), self.position(end)), text=new
        )
        self.text = self.text[:start] + new + self.text[end:]
        if whole:
            change = types.TextDocumentContentChangeWholeDocument(text=self.text)
        self.version += 1
        self.changed.set()
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.version, uri=self.uri), [change]
            )
        )

    def apply(self, params: Any) -> types.ApplyWorkspaceEditResult:
        data = params if isinstance(params, dict) else get_converter().unstructure(params)
        self.applied.append(data)
        if self.refuse:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="refused by the test")
        for change in data["edit"]["documentChanges"]:
            if change["textDocument"]["version"] != self.version:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="version mismatch")
            for edit in change["edits"]:
                r = edit["range"]
                start = self.offset(r["start"]["line"], r["start"]["character"])
                end = self.offset(r["end"]["line"], r["end"]["character"])
                self.replace(start, end, edit["newText"], whole=self.echo_whole_text)
        return types.ApplyWorkspaceEditResult(applied=True)


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient, tmp_path: Path):
    lsp_client.editors = {}  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: Any) -> types.ApplyWorkspaceEditResult:
        uri = params.edit.document_changes[0].text_document.uri
        editor: EditorModel = lsp_client.editors[uri]  # type: ignore[attr-defined]
        return editor.apply(params)

    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=tmp_path.as_uri()))
    yield
    await lsp_client.shutdown_session()


def editor(client: LanguageClient, tmp_path: Path, text: str = BASE, name: str = "t.py") -> EditorModel:
    model = EditorModel(client, (tmp_path / name).as_uri(), text)
    client.editors[model.uri] = model  # type: ignore[attr-defined]
    return model


async def resolve(client: LanguageClient, uri: str, base: int, edits: list[dict[str, Any]], **extra: Any) -> Any:
    params = {"textDocument": {"uri": uri}, "baseVersion": base, "edits": edits, **extra}
    return await raw_request(client, "tether/edits/resolve", params)


async def test_resolve_after_the_user_typed_above(client: LanguageClient, tmp_path: Path) -> None:
    ed = editor(client, tmp_path)
    ed.replace(0, 0, "# a line typed by the user\n")
    result = await resolve(client, ed.uri, 1, [{"id": "e1", "oldText": OLD, "newText": NEW}])
    assert result["version"] == 2
    (edit,) = result["edits"]
    assert edit["status"] == "resolved"
    assert edit["match"] == {"kind": "exact", "similarity": 1.0}
    assert edit["range"] == {"start": {"line": 9, "character": 0}, "end": {"line": 14, "character": 0}}
    assert edit["newText"] == NEW


async def test_resolve_statuses_are_not_errors(client: LanguageClient, tmp_path: Path) -> None:
    ed = editor(client, tmp_path, BASE + "\n" + OLD)
    result = await resolve(
        client, ed.uri, 1, [{"oldText": OLD, "newText": NEW}, {"oldText": "nowhere()", "newText": "x"}]
    )
    ambiguous, missing = result["edits"]
    assert (ambiguous["id"], ambiguous["status"], len(ambiguous["candidates"])) == ("0", "ambiguous", 2)
    assert missing["status"] == "notFound"
    assert "range" not in missing


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"baseVersion": 9}, "baseVersion: 9 is newer than the current version"),
        ({"edits": [{"oldText": "", "newText": "x"}]}, "edits[0].oldText"),
        ({"edits": [{"oldText": "import os", "newText": "a"}, {"oldText": "import os\n", "newText": "b"}]}, "overlap"),
        ({"options": {"onUserEdit": "ignore"}}, "options.onUserEdit"),
        ({"textDocument": {"uri": "file:///nope.py"}}, "textDocument.uri"),
    ],
)
async def test_resolve_bad_input(client: LanguageClient, tmp_path: Path, params: dict[str, Any], field: str) -> None:
    ed = editor(client, tmp_path)
    base = {"textDocument": {"uri": ed.uri}, "baseVersion": 1, "edits": [{"oldText": OLD, "newText": NEW}]}
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/edits/resolve", {**base, **params})
    assert info.value.code == -32602
    assert field in str(info.value.message)


async def test_a_base_evicted_by_the_byte_budget_names_it_and_the_oldest_kept(tmp_path: Path) -> None:
    lsp: Any = await server_config().start()
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=tmp_path.as_uri(),
            initialization_options={"tether": {"limits": {"historyBytes": 64 * 1024}}},
        )
    )
    try:
        ed = EditorModel(lsp, (tmp_path / "busy.py").as_uri(), BASE)
        for k in range(40):  # each replaces a 2 KB comment: far over 64 KB of edits in all
            ed.replace(0, len("# x\n" * 400) if k else 0, "# x\n" * 400)
        with pytest.raises(JsonRpcException) as info:
            await resolve(lsp, ed.uri, 1, [{"oldText": OLD, "newText": NEW}])
        message = str(info.value.message)
        assert "no longer kept (dropped by the history byte budget (tether.limits.historyBytes = 65536))" in message
        assert "the oldest version kept is" in message
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


async def test_thousands_of_keystrokes_keep_the_base_a_model_saw(client: LanguageClient, tmp_path: Path) -> None:
    ed = editor(client, tmp_path)
    for k in range(600):  # a busy user: six hundred keystrokes above the target since the model's base
        ed.replace(0, 0, "#" if k % 40 else "\n")
    result = await resolve(client, ed.uri, 1, [{"oldText": OLD, "newText": NEW}])
    assert result["edits"][0]["status"] == "resolved"


def chunks(text: str, size: int) -> list[str]:
    return [text[:k] for k in range(size, len(text), size)] + [text]


async def stream_in(
    client: LanguageClient, ed: EditorModel, new: str, *, repeat: bool = False, skip: int = 0, old: str = OLD
) -> list[Any]:
    begun = await raw_request(client, "tether/edits/begin", {"textDocument": {"uri": ed.uri}, "baseVersion": 1})
    edit_id = begun["editId"]
    statuses = []
    for k, part in enumerate(chunks(new, 7)):
        if skip and k % skip == 0 and part != new:
            continue  # a lost update: the next one carries everything
        for _ in range(2 if repeat else 1):
            update = {
                "editId": edit_id,
                "oldText": old,
                "oldTextFinal": True,
                "newText": part,
                "newTextFinal": part == new,
            }
            statuses.append(await raw_request(client, "tether/edits/update", update))
    statuses.append(await raw_request(client, "tether/edits/end", {"editId": edit_id, "action": "keep"}))
    return statuses


LONG_NEW = (
    "def total(items):\n    # the sum of the items, done by the builtin\n    result = sum(items)\n    return result\n"
)


async def test_streaming_repeated_and_skipped_updates_give_the_same_document(
    client: LanguageClient, tmp_path: Path
) -> None:
    plain_run = editor(client, tmp_path, name="a.py")
    await stream_in(client, plain_run, LONG_NEW)
    repeated = editor(client, tmp_path, name="b.py")
    await stream_in(client, repeated, LONG_NEW, repeat=True)
    skipped = editor(client, tmp_path, name="c.py")
    await stream_in(client, skipped, LONG_NEW, skip=3)
    assert plain_run.text == repeated.text == skipped.text == BASE.replace(OLD, LONG_NEW)
    # appends, not rewrites: every write after the first only adds text
    writes = [e for a in plain_run.applied for c in a["edit"]["documentChanges"] for e in c["edits"]]
    assert len(writes) >= 3
    assert all(w["range"]["start"] == w["range"]["end"] for w in writes[1:])


async def test_an_editor_that_reports_applied_edits_as_whole_texts_gets_them_recognised(
    client: LanguageClient, tmp_path: Path
) -> None:
    ed = editor(client, tmp_path)
    ed.echo_whole_text = True
    statuses = await stream_in(client, ed, LONG_NEW)
    assert [s["status"] for s in statuses][-1] == "done"
    assert "conflict" not in {s["status"] for s in statuses}
    assert ed.text == BASE.replace(OLD, LONG_NEW)


async def test_nothing_is_deleted_before_replacement_text_exists(client: LanguageClient, tmp_path: Path) -> None:
    ed = editor(client, tmp_path)
    begun = await raw_request(client, "tether/edits/begin", {"textDocument": {"uri": ed.uri}, "baseVersion": 1})
    edit_id = begun["editId"]
    base = {"editId": edit_id, "oldText": OLD, "newTextFinal": False}
    await raw_request(client, "tether/edits/update", {**base, "oldTextFinal": False, "newText": "def to"})
    await raw_request(client, "tether/edits/update", {**base, "oldTextFinal": True, "newText": "def total(it"})
    assert ed.text == BASE  # no complete line yet: nothing deleted
    status = await raw_request(
        client, "tether/edits/update", {**base, "oldTextFinal": True, "newText": "def total(items):\n    ret"}
    )
    assert ed.text == BASE.replace(OLD, "def total(items):\n")
    assert status["status"] == "streaming"
    assert status["range"] == {"start": {"line": 8, "character": 0}, "end": {"line": 9, "character": 0}}
    await raw_request(client, "tether/edits/end", {"editId": edit_id, "action": "keep"})


async def test_a_user_edit_next_to_the_range_survives_and_inside_it_conflicts(
    client: LanguageClient, tmp_path: Path
) -> None:
    ed = editor(client, tmp_path)
    begun = await raw_request(client, "tether/edits/begin", {"textDocument": {"uri": ed.uri}, "baseVersion": 1})
    edit_id = begun["editId"]
    first = {"editId": edit_id, "oldText": OLD, "oldTextFinal": True, "newTextFinal": False}
    await raw_request(client, "tether/edits/update", {**first, "newText": "def total(items):\n"})
    ed.replace(0, 0, "# typed above while streaming\n")  # next to (above) the range
    ed.replace(len(ed.text), len(ed.text), "print('typed below')\n")
    await raw_request(client, "tether/edits/update", {**first, "newText": "def total(items):\n    return sum(items)\n"})
    assert ed.text == "# typed above while streaming\n" + BASE.replace(OLD, NEW) + "print('typed below')\n"
    at = ed.text.index("    return sum")
    waiter = asyncio.ensure_future(client.wait_for_notification("tether/edits/didUpdate"))
    ed.replace(at, at, "    # the user types inside the range\n")
    status = await raw_request(client, "tether/edits/update", {**first, "newText": NEW + "# more\n"})
    assert status["status"] == "conflict"
    assert plain(await asyncio.wait_for(waiter, 5))["status"] == "conflict"
    assert "# more" not in ed.text  # the stream stopped: the user's text is not overwritten
    assert "    # the user types inside the range\n" in ed.text


async def test_revert_restores_the_original_exactly(client: LanguageClient, tmp_path: Path) -> None:
    ed = editor(client, tmp_path)
    begun = await raw_request(client, "tether/edits/begin", {"textDocument": {"uri": ed.uri}, "baseVersion": 1})
    edit_id = begun["editId"]
    update = {"editId": edit_id, "oldText": OLD, "oldTextFinal": True, "newText": LONG_NEW, "newTextFinal": True}
    await raw_request(client, "tether/edits/update", update)
    assert ed.text == BASE.replace(OLD, LONG_NEW)
    ended = await raw_request(client, "tether/edits/end", {"editId": edit_id, "action": "revert"})
    assert ended["status"] == "reverted"
    assert ed.text == BASE
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/edits/update", update)
    assert "editId" in str(info.value.message)


async def test_a_refused_apply_edit_is_retried(client: LanguageClient, tmp_path: Path) -> None:
    ed = editor(client, tmp_path)
    begun = await raw_request(client, "tether/edits/begin", {"textDocument": {"uri": ed.uri}, "baseVersion": 1})
    edit_id = begun["editId"]
    update = {"editId": edit_id, "oldText": OLD, "oldTextFinal": True, "newText": NEW, "newTextFinal": True}
    ed.refuse = True
    await raw_request(client, "tether/edits/update", update)
    assert ed.text == BASE
    ed.refuse = False
    await raw_request(client, "tether/edits/update", update)
    assert ed.text == BASE.replace(OLD, NEW)
    await raw_request(client, "tether/edits/end", {"editId": edit_id, "action": "keep"})


async def test_closing_the_document_ends_its_streams(client: LanguageClient, tmp_path: Path) -> None:
    ed = editor(client, tmp_path)
    begun = await raw_request(client, "tether/edits/begin", {"textDocument": {"uri": ed.uri}, "baseVersion": 1})
    ended = asyncio.ensure_future(client.wait_for_notification("tether/edits/didUpdate"))
    await asyncio.sleep(0)  # one turn of the loop: the waiter above registers before the close is sent
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(ed.uri)))
    update = plain(await asyncio.wait_for(ended, 10))
    assert update["editId"] == begun["editId"]
    assert update["status"] == "conflict"
    with pytest.raises(JsonRpcException) as info:
        await raw_request(
            client,
            "tether/edits/update",
            {"editId": begun["editId"], "oldText": OLD, "oldTextFinal": True, "newText": "x", "newTextFinal": True},
        )
    assert info.value.code == -32602


async def test_an_idle_stream_is_ended_and_its_base_version_released(tmp_path: Path) -> None:
    lsp: Any = await server_config().start()
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=tmp_path.as_uri(),
            initialization_options={"tether": {"edits": {"streamIdleSeconds": 2}, "limits": {"historySeconds": 1}}},
        )
    )
    try:
        ed = EditorModel(lsp, (tmp_path / "idle.py").as_uri(), BASE)
        begun = await raw_request(lsp, "tether/edits/begin", {"textDocument": {"uri": ed.uri}, "baseVersion": 1})
        ended = asyncio.ensure_future(lsp.wait_for_notification("tether/edits/didUpdate"))
        ed.replace(0, 0, "#")
        update = await asyncio.wait_for(ended, 20)  # after two seconds without an update
        assert plain(update)["status"] == "conflict"
        ed.replace(0, 0, "#")  # the next version lets the history drop what was superseded over 1 s ago
        with pytest.raises(JsonRpcException) as info:  # released: version 1 is gone now
            await resolve(lsp, ed.uri, 1, [{"oldText": OLD, "newText": "x"}])
        assert "no longer kept" in str(info.value.message)
        assert begun["editId"]
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
