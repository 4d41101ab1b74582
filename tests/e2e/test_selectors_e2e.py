"""tether/applySelector and tether/listSelectors end to end over stdio: chains of ids, UTF-16 ranges, stale and
foreign ids, YAML, invalid params, a catastrophic regex, and random chains checked against the nodes' texts."""

from __future__ import annotations

import random
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, change_doc, open_doc, raw_request, server_config
from tests.unit.selectors.sources import K8S, PY
from tether_lsp.handlers.selectors.vocabulary import SELECTORS
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.syntax import parse_text

PY_URI = "file:///work/cafe.py"
YAML_URI = "file:///work/k8s.yaml"


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    open_doc(lsp_client, PY_URI, PY)
    open_doc(lsp_client, YAML_URI, K8S, language_id="yaml")
    yield
    await lsp_client.shutdown_session()


async def apply(client: LanguageClient, selector: str, ids: list[int], *args: Any, uri: str = PY_URI) -> dict[str, Any]:
    params: dict[str, Any] = {"uri": uri, "selector": selector, "cursorNodeIds": ids}
    if args:
        params["args"] = list(args)
    result: dict[str, Any] = await raw_request(client, "tether/applySelector", params)
    return result


def text_of(source: str, r: dict[str, Any]) -> str:
    index = LineIndex(source.encode())
    s = index.offset_of(Pos(r["start"]["line"], r["start"]["character"]), Encoding.UTF16)
    e = index.offset_of(Pos(r["end"]["line"], r["end"]["character"]), Encoding.UTF16)
    return source.encode()[s:e].decode()


async def test_chain_threads_ids_explicitly(client: LanguageClient) -> None:
    functions = await apply(client, "selectFunctions", [])
    assert len(functions["ranges"]) == len(functions["cursorNodeIds"]) == 4
    names = await apply(client, "selectName", functions["cursorNodeIds"])
    assert [text_of(PY, r) for r in names["ranges"]] == ["price", "fetch", "inner", "outer"]
    params = await apply(client, "selectParameters", functions["cursorNodeIds"][:1])
    assert [text_of(PY, r) for r in params["ranges"]] == ["self", "base", "tax=0.2", "**kw"]
    first = await apply(client, "selectFirst", params["cursorNodeIds"])
    assert [text_of(PY, r) for r in first["ranges"]] == ["self"]


async def test_non_ascii_ranges_in_utf16(client: LanguageClient) -> None:
    strings = await apply(client, "selectStrings", [])
    texts = [text_of(PY, r) for r in strings["ranges"]]
    assert texts == ['"""Modül docstring — café ☕."""', '"""Menu 東京."""', '"🚀"', '"big"', '"a"']
    rocket = strings["ranges"][2]
    assert rocket["end"]["character"] - rocket["start"]["character"] == 4  # quotes + a surrogate pair


async def test_empty_ids_start_at_the_root(client: LanguageClient) -> None:
    children = await apply(client, "selectChildren", [])
    assert text_of(PY, children["ranges"][1]) == "import os"
    parent = await apply(client, "selectParent", [])
    assert parent == {"ranges": [], "cursorNodeIds": []}


async def test_ranges_start_from_the_selected_nodes(client: LanguageClient) -> None:
    functions = await apply(client, "selectFunctions", [])
    first, second = functions["ranges"][0], functions["ranges"][1]
    params = {"uri": PY_URI, "selector": "selectName", "cursorNodeIds": [], "ranges": [second, first]}
    names = await raw_request(client, "tether/applySelector", params)
    assert [text_of(PY, r) for r in names["ranges"]] == ["price", "fetch"]  # from each selected function
    inside = dict(first, end=first["start"])  # an empty range: the smallest named node at that point (the def)
    at = await raw_request(client, "tether/applySelector", {**params, "ranges": [inside]})
    assert [text_of(PY, r) for r in at["ranges"]] == ["price"]
    ids = await raw_request(client, "tether/applySelector", {**params, "cursorNodeIds": functions["cursorNodeIds"][3:]})
    assert [text_of(PY, r) for r in ids["ranges"]] == ["outer"]  # cursor ids win over ranges


async def test_stale_ids_after_an_edit(client: LanguageClient) -> None:
    uri = "file:///work/stale.py"
    open_doc(client, uri, "def a():\n    pass\n")
    old = await apply(client, "selectFunctions", [], uri=uri)
    change_doc(client, uri, 2, "def a():\n    pass\n")  # same text, new version: new parse, new ids
    assert await apply(client, "selectName", old["cursorNodeIds"], uri=uri) == {"ranges": [], "cursorNodeIds": []}
    new = await apply(client, "selectFunctions", [], uri=uri)
    assert set(new["cursorNodeIds"]).isdisjoint(old["cursorNodeIds"])


async def test_partial_staleness_keeps_the_valid_cursors(client: LanguageClient) -> None:
    uri = "file:///work/partial.py"
    open_doc(client, uri, "def a(x): pass\ndef b(y): pass\n")
    old = await apply(client, "selectFunctions", [], uri=uri)
    change_doc(client, uri, 2, "def a(x): pass\ndef b(y): pass\n")
    valid = await apply(client, "selectFunctions", [], uri=uri)
    mixed = [*valid["cursorNodeIds"], old["cursorNodeIds"][0], 99_999_999_999]
    result = await apply(client, "selectParameters", mixed, uri=uri)
    assert len(result["ranges"]) == len(result["cursorNodeIds"]) == 2


async def test_duplicate_and_unsorted_ids(client: LanguageClient) -> None:
    functions = await apply(client, "selectFunctions", [])
    ids = functions["cursorNodeIds"]
    messy = [ids[2], ids[0], ids[2], ids[1], ids[0]]
    names = await apply(client, "selectName", messy)
    assert [text_of(PY, r) for r in names["ranges"]] == ["price", "fetch", "inner"]
    assert names["cursorNodeIds"] == sorted(names["cursorNodeIds"])


async def test_ids_from_another_document_are_stale(client: LanguageClient) -> None:
    yaml_docs = await apply(client, "selectDocuments", [], uri=YAML_URI)
    assert await apply(client, "selectChildren", yaml_docs["cursorNodeIds"]) == {"ranges": [], "cursorNodeIds": []}


async def test_empty_document_and_unknown_uri(client: LanguageClient) -> None:
    uri = "file:///work/empty.py"
    open_doc(client, uri, "")
    assert await apply(client, "selectFunctions", [], uri=uri) == {"ranges": [], "cursorNodeIds": []}
    assert await apply(client, "selectFunctions", [], uri="file:///nope.py") == {"ranges": [], "cursorNodeIds": []}
    open_doc(client, "file:///work/notes.txt", "hello", language_id="plaintext")
    assert await apply(client, "selectChildren", [], uri="file:///work/notes.txt") == {
        "ranges": [],
        "cursorNodeIds": [],
    }


async def test_yaml_chain(client: LanguageClient) -> None:
    docs = await apply(client, "selectDocuments", [], uri=YAML_URI)
    pairs = await apply(client, "selectPairs", docs["cursorNodeIds"], uri=YAML_URI)
    images = await apply(client, "filterText", pairs["cursorNodeIds"], "^image:", uri=YAML_URI)
    values = await apply(client, "selectValue", images["cursorNodeIds"], uri=YAML_URI)
    assert [text_of(K8S, r) for r in values["ranges"]] == ["reg/app:1", "reg/side:2"]


async def test_select_at_uses_the_negotiated_encoding(client: LanguageClient) -> None:
    line = PY.splitlines().index('    async def fetch(url: str = "🚀", /, retries: int = 3):')
    column = PY.splitlines()[line].index("retries") + 1  # one UTF-16 unit more: the emoji is 2 units
    at = await apply(client, "selectAt", [], line, column + 1)
    assert [text_of(PY, r) for r in at["ranges"]] == ["retries"]
    enclosing = await apply(client, "selectEnclosing", at["cursorNodeIds"], "method")
    name = await apply(client, "selectName", enclosing["cursorNodeIds"])
    assert [text_of(PY, r) for r in name["ranges"]] == ["fetch"]


@pytest.mark.parametrize(
    ("selector", "args", "kind", "message"),
    [
        ("selectFunction", [], "unknownSelector", "selector: unknown selector 'selectFunction'"),
        ("selectNth", [True], "invalidArgs", "args[0]: n must be an integer, got a boolean"),
        ("selectNth", [1.5], "invalidArgs", "args[0]: n must be an integer, got 1.5"),
        ("selectAt", [-1, 0], "invalidArgs", "args[0]: line must be 0 or more"),
        ("selectEnclosing", ["nope"], "invalidArgs", "args[0]: unknown kind 'nope'"),
        ("filterText", ["[a-"], "invalidArgs", "args[0]: invalid regular expression"),
        ("selectByType", ["block_mapping"], "invalidArgs", "args[0]: 'block_mapping' is not a named node type"),
        ("selectFunctions", [1], "invalidArgs", "args: selectFunctions takes 0 argument(s)"),
        (  # one string for four numbers, as an editor prompt sends it unsplit: the error says how to pass them
            "selectRange",
            ["9,0,9,60"],
            "invalidArgs",
            "args: selectRange takes 4 argument(s) (startLine: nat, startCharacter: nat, endLine: nat, endCharacter:"
            " nat), got 1; send them as an array in args (in the CLI and editor prompts: after the name and a colon,"
            " separated by commas, as in selectRange:startLine,startCharacter,endLine,endCharacter)",
        ),
    ],
)
async def test_errors_then_the_next_request_works(
    client: LanguageClient, selector: str, args: list[Any], kind: str, message: str
) -> None:
    functions = await apply(client, "selectFunctions", [])
    with pytest.raises(JsonRpcException) as info:
        await apply(client, selector, functions["cursorNodeIds"], *args)
    assert info.value.code == -32602
    assert info.value.message.startswith(message)
    assert info.value.data is not None
    assert info.value.data["kind"] == kind
    if kind == "unknownSelector":
        assert info.value.data["available"] == sorted(SELECTORS)
    again = await apply(client, "selectName", functions["cursorNodeIds"])  # a failed request changed nothing
    assert len(again["ranges"]) == 4


async def test_selector_and_args_are_validated_whatever_the_uri(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException) as info:
        await apply(client, "selectNth", [], "x", uri="file:///not-open.py")
    assert info.value.data is not None
    assert info.value.data["kind"] == "invalidArgs"


async def test_wrongly_typed_params(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException) as info:
        await raw_request(
            client, "tether/applySelector", {"uri": PY_URI, "selector": "selectFunctions", "cursorNodeIds": [1, "2"]}
        )
    assert info.value.message.startswith("cursorNodeIds[1]: expected an integer")
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/applySelector", {"uri": PY_URI, "cursorNodeIds": []})
    assert info.value.message == "selector: required field missing"


async def test_catastrophic_regex_does_not_hang_the_server(client: LanguageClient) -> None:
    uri = "file:///work/redos.py"
    open_doc(client, uri, "x = '" + "a" * 3000 + "!'\n")
    strings = await apply(client, "selectStrings", [], uri=uri)
    with pytest.raises(JsonRpcException) as info:
        await apply(client, "filterText", strings["cursorNodeIds"], r"^('(a|aa)+)+$", uri=uri)
    assert "budget" in info.value.message
    assert (await apply(client, "selectStrings", [], uri=uri))["cursorNodeIds"] == strings["cursorNodeIds"]


async def test_list_selectors(client: LanguageClient) -> None:
    listed = await raw_request(client, "tether/listSelectors", {})
    assert len(listed["selectors"]) == 47
    at = next(s for s in listed["selectors"] if s["name"] == "selectAt")
    assert at["args"] == [{"name": "line", "type": "nat"}, {"name": "character", "type": "nat"}]
    assert "function" in listed["kinds"]
    yaml_kinds = (await raw_request(client, "tether/listSelectors", {"languageId": "ansible"}))["kinds"]
    assert "document" in yaml_kinds
    assert "function" not in yaml_kinds
    assert (await raw_request(client, "tether/listSelectors", None))["kinds"] == listed["kinds"]


async def test_random_chains_ranges_match_node_texts(client: LanguageClient) -> None:
    """Random chains over stdio: sorted unique ids, each range's text is a node's trimmed text."""
    tree = parse_text("python", PY.encode())
    node_texts: set[str] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        node_texts.add(PY.encode()[node.start_byte : node.end_byte].decode().rstrip(" \t\r\n"))
        stack.extend(node.children)
    rnd = random.Random(7)
    plain = [name for name, s in SELECTORS.items() if not s.args]
    for _ in range(30):
        ids: list[int] = []
        for _ in range(rnd.randint(1, 4)):
            result = await apply(client, rnd.choice(plain), ids)
            ids = result["cursorNodeIds"]
            assert ids == sorted(set(ids))
            assert len(result["ranges"]) == len(ids)
            for r in result["ranges"]:
                assert text_of(PY, r) in node_texts
            if not ids:
                break
