"""tether/applyAction and the move entries of textDocument/codeAction end to end over stdio: node ids from
tether/applySelector acted on, the edit applied as a client would (UTF-16 ranges, non-ASCII text), the produced
ranges checked in the text after it, versions checked, bad fields named, a move into another document."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, change_doc, open_doc, raw_request, server_config
from tether_lsp.server.positions import Encoding, LineIndex, Pos

PY_URI = "file:///work/café.py"
OTHER_URI = "file:///work/other.py"
YAML_URI = "file:///work/conf.yaml"

PY = '''def prix(base, taux=0.2, *, devise="€"):
    """Le prix TTC — 税込."""
    return base * (1 + taux)


def 取得(url, retries=3):
    return url


def emoji(a):
    return "🎉" + a
'''

OTHER = """def other(x):
    return x
"""

YAML = """services:
  - name: café
    port: 80
  - name: 東京
    port: 81
"""


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    open_doc(lsp_client, PY_URI, PY)
    open_doc(lsp_client, OTHER_URI, OTHER)
    open_doc(lsp_client, YAML_URI, YAML, language_id="yaml")
    yield
    await lsp_client.shutdown_session()


def offset(text: str, position: dict[str, int]) -> int:
    return LineIndex(text.encode()).offset_of(Pos(position["line"], position["character"]), Encoding.UTF16)


def applied(text: str, edits: list[dict[str, Any]]) -> str:
    """The text after a document's TextEdits, applied from the last as a client does (UTF-16 positions)."""
    data = text.encode()
    spans = [(offset(text, e["range"]["start"]), offset(text, e["range"]["end"]), e["newText"]) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        data = data[:start] + new.encode() + data[end:]
    return data.decode()


def texts_of(text: str, locations: list[dict[str, Any]], uri: str) -> list[str]:
    data = text.encode()
    return [
        data[offset(text, loc["range"]["start"]) : offset(text, loc["range"]["end"])].decode()
        for loc in locations
        if loc["uri"] == uri
    ]


async def select(client: LanguageClient, selector: str, ids: list[int], uri: str = PY_URI, *args: Any) -> list[int]:
    params = {"uri": uri, "selector": selector, "cursorNodeIds": ids, "args": list(args)}
    result = await raw_request(client, "tether/applySelector", params)
    ids_out: list[int] = result["cursorNodeIds"]
    return ids_out


async def act(client: LanguageClient, action: str, ids: list[int], version: int = 1, **more: Any) -> dict[str, Any]:
    params = {"textDocument": {"uri": PY_URI, "version": version}, "action": action, "targets": {"cursorNodeIds": ids}}
    result: dict[str, Any] = await raw_request(client, "tether/applyAction", {**params, **more})
    return result


def edits_for(result: dict[str, Any], uri: str) -> tuple[int, list[dict[str, Any]]]:
    (change,) = [c for c in result["edit"]["documentChanges"] if c["textDocument"]["uri"] == uri]
    return change["textDocument"]["version"], change["edits"]


async def test_remove_a_function_by_its_node_id(client: LanguageClient) -> None:
    functions = await select(client, "selectFunctions", [])
    result = await act(client, "remove", functions[1:2])
    version, edits = edits_for(result, PY_URI)
    assert version == 1
    after = applied(PY, edits)
    assert "取得" not in after
    assert after.count("\n\n\ndef ") == 1  # two blank lines between the two functions left, as before
    assert after.startswith("def prix(") and after.rstrip().endswith('return "🎉" + a')


async def test_remove_the_last_parameter_takes_its_comma(client: LanguageClient) -> None:
    functions = await select(client, "selectFunctions", [])
    params = await select(client, "selectParameters", functions[1:2])
    last = await select(client, "selectLast", params)
    after = applied(PY, edits_for(await act(client, "remove", last), PY_URI)[1])
    assert "def 取得(url):" in after


async def test_clone_after_produces_the_copy_in_utf16(client: LanguageClient) -> None:
    functions = await select(client, "selectFunctions", [])
    params = await select(client, "selectParameters", functions[:1])
    taux = await select(client, "selectNth", params, PY_URI, 1)
    result = await act(client, "clone", taux)
    after = applied(PY, edits_for(result, PY_URI)[1])
    assert "def prix(base, taux=0.2, taux=0.2, *," in after
    assert texts_of(after, result["produced"], PY_URI) == ["taux=0.2"]


async def test_swap_two_functions_twice_gives_the_text_back(client: LanguageClient) -> None:
    functions = await select(client, "selectFunctions", [])
    result = await act(client, "swap", [functions[0], functions[2]])
    once = applied(PY, edits_for(result, PY_URI)[1])
    assert once.index("def emoji") < once.index("def 取得") < once.index("def prix")
    assert sorted(texts_of(once, result["produced"], PY_URI)) == sorted(
        ['def emoji(a):\n    return "🎉" + a', PY[: PY.index("\n\n\n")]]
    )
    change_doc(client, PY_URI, 2, once)
    again = await select(client, "selectFunctions", [])
    back = applied(once, edits_for(await act(client, "swap", [again[0], again[2]], version=2), PY_URI)[1])
    assert back == PY


async def test_move_up_is_offered_as_a_code_action(client: LanguageClient) -> None:
    line = PY.splitlines().index("def emoji(a):")
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=PY_URI),
            range=types.Range(start=types.Position(line=line, character=4), end=types.Position(line=line, character=4)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert found is not None
    titles = [a.title for a in found if isinstance(a, types.CodeAction)]
    assert titles == ["Move up"]  # the last function: nothing below it
    (move_up,) = [a for a in found if isinstance(a, types.CodeAction)]
    assert move_up.edit is not None and move_up.edit.document_changes is not None
    change = move_up.edit.document_changes[0]
    assert isinstance(change, types.TextDocumentEdit)
    edits = [
        {
            "range": {
                "start": {"line": e.range.start.line, "character": e.range.start.character},
                "end": {"line": e.range.end.line, "character": e.range.end.character},
            },
            "newText": e.new_text,
        }
        for e in change.edits
        if isinstance(e, types.TextEdit)
    ]
    after = applied(PY, edits)
    assert after.index("def prix") < after.index("def emoji") < after.index("def 取得")


async def test_move_into_another_document(client: LanguageClient) -> None:
    functions = await select(client, "selectFunctions", [])
    others = await select(client, "selectFunctions", [], OTHER_URI)
    result = await act(
        client,
        "move",
        functions[2:3],
        destination={"cursorNodeIds": others, "textDocument": {"uri": OTHER_URI, "version": 1}},
    )
    source_after = applied(PY, edits_for(result, PY_URI)[1])
    other_after = applied(OTHER, edits_for(result, OTHER_URI)[1])
    assert "def emoji" not in source_after and source_after.endswith("return url\n")
    assert other_after.startswith("def other(x):\n    return x\n") and 'return "🎉" + a' in other_after
    assert texts_of(other_after, result["produced"], OTHER_URI) == ['def emoji(a):\n    return "🎉" + a']


async def test_yaml_item_removed_by_range(client: LanguageClient) -> None:
    line = YAML.splitlines().index("  - name: 東京")
    where = {"start": {"line": line, "character": 4}, "end": {"line": line + 1, "character": 12}}
    params = {
        "textDocument": {"uri": YAML_URI, "version": 1},
        "action": "remove",
        "targets": {"ranges": [where]},
    }
    result = await raw_request(client, "tether/applyAction", params)
    after = applied(YAML, edits_for(result, YAML_URI)[1])
    assert after == "services:\n  - name: café\n    port: 80\n"


async def test_a_stale_version_is_refused_with_content_modified(client: LanguageClient) -> None:
    functions = await select(client, "selectFunctions", [])
    change_doc(client, PY_URI, 2, PY + "\n# edited\n")
    with pytest.raises(JsonRpcException) as caught:
        await act(client, "remove", functions[:1], version=1)
    assert caught.value.code == -32801


@pytest.mark.parametrize(
    ("more", "field", "kind"),
    [
        ({"action": "explode"}, "action", "actionRefused"),
        ({"action": "moveUp"}, "targets[0]", "actionRefused"),  # the first function: already first
        ({"action": "swap"}, "targets", "actionRefused"),  # one target and no destination
        ({"action": "wrap", "wrapper": "loop"}, "wrapper", "actionRefused"),
        ({"targets": {"cursorNodeIds": [10**12]}}, "targets.cursorNodeIds", "invalidParams"),
    ],
)
async def test_bad_requests_name_the_field(client: LanguageClient, more: dict[str, Any], field: str, kind: str) -> None:
    functions = await select(client, "selectFunctions", [])
    params = {
        "textDocument": {"uri": PY_URI, "version": 1},
        "action": "remove",
        "targets": {"cursorNodeIds": functions[:1]},
        **more,
    }
    with pytest.raises(JsonRpcException) as caught:
        await raw_request(client, "tether/applyAction", params)
    assert caught.value.code == -32602
    data = caught.value.data
    assert data is not None and data["kind"] == kind and data["field"] == field
    assert str(caught.value.message).startswith(f"{field}: ")
