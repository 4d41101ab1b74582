"""Document sync over stdio: incremental edits with non-ASCII text give the same text and tree as a fresh
parse, in every position encoding; encoding negotiation; a change whose version is not newer is applied."""

from __future__ import annotations

import hashlib
import random

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, change_doc, open_doc, raw_request, server_config
from tether_lsp.server.positions import Encoding, LineIndex

BASE = "class Café:\n    def f(self, x):\n        return [y for y in x if y]  # 東京\n\nasync def g():\n    await h('🚀')\n"
PIECES = ["", "x", "é", "東京", "🚀", "\n", "\r\n", "    ", "def g():\n    pass\n", "'", "(", "👩‍👩‍👧"]


def make_client(encodings: list[str] | None):
    @pytest_lsp.fixture(config=server_config())
    async def fixture(lsp_client: LanguageClient):
        result = await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities(encodings)))
        lsp_client.negotiated = result.capabilities.position_encoding  # type: ignore[attr-defined]
        yield
        await lsp_client.shutdown_session()

    return fixture


utf16_client = make_client(None)
utf8_client = make_client(["utf-16", "utf-8"])
utf32_client = make_client(["utf-32", "utf-16"])


async def test_utf16_by_default(utf16_client: LanguageClient) -> None:
    await check_columns(utf16_client, "utf-16")


async def test_utf8_preferred_when_offered(utf8_client: LanguageClient) -> None:
    await check_columns(utf8_client, "utf-8")


async def test_utf32_when_offered_without_utf8(utf32_client: LanguageClient) -> None:
    await check_columns(utf32_client, "utf-32")


async def check_columns(client: LanguageClient, expected: str) -> None:
    """The negotiated encoding, and columns after an emoji, an accent and a CJK character."""
    assert client.negotiated == expected  # type: ignore[attr-defined]
    uri = "file:///enc.py"
    open_doc(client, uri, "s = '🚀é東' + name\n")
    column = {"utf-16": 13, "utf-8": 18, "utf-32": 12}[expected]  # start of `name`
    result = await client.text_document_selection_range_async(
        types.SelectionRangeParams(
            text_document=types.TextDocumentIdentifier(uri=uri), positions=[types.Position(0, column + 1)]
        )
    )
    assert result is not None
    end = {"utf-16": 17, "utf-8": 22, "utf-32": 16}[expected]
    assert result[0].range == types.Range(start=types.Position(0, column), end=types.Position(0, end))
    string_range = result[0].parent.range  # type: ignore[union-attr]
    assert string_range.start == types.Position(0, 4)


async def assert_same_as_fresh(client: LanguageClient, uri: str, text: bytes, version: int) -> None:
    """The edited document holds exactly ``text`` and the tree a fresh open of it gets."""
    fresh = uri.replace(".py", "-fresh.py")
    open_doc(client, fresh, text.decode())
    got = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}, "detail": True})
    want = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": fresh}, "detail": True})
    assert got["version"] == version
    assert got["textSha256"] == want["textSha256"]
    assert got["treeSha256"] == want["treeSha256"]


@pytest.mark.parametrize("seed", range(6))
async def test_random_incremental_edits_utf16(utf16_client: LanguageClient, seed: int) -> None:
    await multi_change_session(utf16_client, Encoding.UTF16, seed, 25, most=1)


@pytest.mark.parametrize("seed", range(3))
async def test_random_incremental_edits_utf8(utf8_client: LanguageClient, seed: int) -> None:
    await multi_change_session(utf8_client, Encoding.UTF8, 100 + seed, 25, most=1)


@pytest.mark.parametrize("seed", range(3))
async def test_random_incremental_edits_utf32(utf32_client: LanguageClient, seed: int) -> None:
    await multi_change_session(utf32_client, Encoding.UTF32, 200 + seed, 25, most=1)


#: The version numbers of successive didChanges after an open at version 5: the first is not newer (the same
#: number, or a lower one), and a second goes back again later (still applied; no second warning).
REUSED_VERSIONS = {"same": [5, 6, 6, 7, 8, 9, 10], "lower": [2, 3, 4, 5, 1, 6, 7]}


@pytest.mark.parametrize("reused", sorted(REUSED_VERSIONS))
async def test_a_change_whose_version_is_not_newer_is_applied(utf16_client: LanguageClient, reused: str) -> None:
    """The client's text is the truth whatever its version number: a change numbered like the current version,
    or lower, is applied, so the incremental changes after it land where the client put them (text, tree and
    selector results as a fresh open of the client's text gets). The server warns once, naming both numbers,
    and answers with the client's numbers."""
    client, uri = utf16_client, f"file:///reused-{reused}.py"
    rnd = random.Random(reused)
    open_doc(client, uri, BASE, version=5)
    info = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}, "detail": True})
    assert info["version"] == 5  # parsed, and a tree kept, at version 5
    text = BASE.encode()
    for version in REUSED_VERSIONS[reused]:
        index = LineIndex(text)
        a, b = sorted(rnd.randrange(len(text) + 1) for _ in range(2))
        start, end = index.position_of(a, Encoding.UTF16), index.position_of(b, Encoding.UTF16)
        a, b = index.offset_of(start, Encoding.UTF16), index.offset_of(end, Encoding.UTF16)
        new = rnd.choice([p for p in PIECES if p])
        text = text[:a] + new.encode() + text[b:]
        change_doc(client, uri, version, new, (start.line, start.character), (end.line, end.character))
        info = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}, "detail": True})
        assert info["version"] == version  # the client's number, as the client sent it
        assert info["textSha256"] == hashlib.sha256(text).hexdigest(), f"after version {version}"
        functions = {"uri": uri, "selector": "selectFunctions", "cursorNodeIds": []}
        await raw_request(client, "tether/applySelector", functions)  # a selector index on every version
    await assert_same_as_fresh(client, uri, text, REUSED_VERSIONS[reused][-1])
    fresh = uri.replace(".py", "-fresh.py")
    got = await raw_request(client, "tether/applySelector", functions)
    want = await raw_request(client, "tether/applySelector", {**functions, "uri": fresh})
    assert got["ranges"] == want["ranges"]
    first = REUSED_VERSIONS[reused][0]
    warnings = [m.message for m in client.log_messages if "not newer" in m.message and uri in m.message]
    assert len(warnings) == 1, warnings
    assert f"version {first}, not newer than the document's version 5" in warnings[0]
    assert all(m.type == types.MessageType.Warning for m in client.log_messages if m.message in warnings)


async def test_edits_resolve_names_versions_by_the_clients_numbers_after_one_went_back(
    utf16_client: LanguageClient,
) -> None:
    """After the client numbered a change like the current version, a model's edit made on the version the
    server reported is placed on the client's text, and the answer carries the client's current number."""
    client, uri = utf16_client, "file:///resolve-reused.py"
    open_doc(client, uri, "def f():\r\n    return 1\r\n", version=3)
    change_doc(client, uri, 3, "x = 0\r\n", (0, 0))  # the same number: applied all the same
    seen = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}})
    assert seen["version"] == 3  # what a model is shown
    change_doc(client, uri, 4, "# café\r\n", (0, 0))  # the user types on
    params = {
        "textDocument": {"uri": uri},
        "baseVersion": seen["version"],
        "edits": [{"oldText": "    return 1", "newText": "    return 2"}],
    }
    result = await raw_request(client, "tether/edits/resolve", params)
    assert result["version"] == 4
    (edit,) = result["edits"]
    assert edit["status"] == "resolved"
    assert edit["range"] == {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 12}}
    with pytest.raises(JsonRpcException) as newer:
        await raw_request(client, "tether/edits/resolve", {**params, "baseVersion": 9})
    assert "baseVersion: 9 is newer than the current version 4" in str(newer.value)


async def test_close_then_requests_see_nothing(utf16_client: LanguageClient) -> None:
    client = utf16_client
    uri = "file:///c.yaml"
    open_doc(client, uri, "a: [1, 2]\n", language_id="yaml")
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    result = await client.text_document_selection_range_async(
        types.SelectionRangeParams(
            text_document=types.TextDocumentIdentifier(uri=uri), positions=[types.Position(0, 4)]
        )
    )
    assert result is not None
    assert list(result) == []


async def multi_change_session(
    client: LanguageClient, encoding: Encoding, seed: int, steps: int, most: int = 4
) -> None:
    """Random edits: each didChange carries 1 to ``most`` changes (several, like an editor with several
    cursors), each in the text left by the ones before it (as LSP says); the result must equal the same
    text opened fresh, tree included."""
    rnd = random.Random(seed)
    uri = f"file:///multi{seed}.py"
    open_doc(client, uri, BASE)
    text = BASE.encode()
    for version in range(2, steps + 2):
        changes: list[types.TextDocumentContentChangeEvent] = []
        for _ in range(rnd.randint(1, most)):
            index = LineIndex(text)
            a, b = sorted(rnd.randrange(len(text) + 1) for _ in range(2))
            start, end = index.position_of(a, encoding), index.position_of(b, encoding)
            new = rnd.choice(PIECES)
            sa, sb = index.offset_of(start, encoding), index.offset_of(end, encoding)
            text = text[:sa] + new.encode() + text[sb:]
            rng = types.Range(types.Position(start.line, start.character), types.Position(end.line, end.character))
            changes.append(types.TextDocumentContentChangePartial(range=rng, text=new))
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(version=version, uri=uri), changes)
        )
    await assert_same_as_fresh(client, uri, text, steps + 1)


@pytest.mark.parametrize("seed", range(3))
async def test_several_changes_per_did_change_utf16(utf16_client: LanguageClient, seed: int) -> None:
    await multi_change_session(utf16_client, Encoding.UTF16, 300 + seed, 20)


@pytest.mark.parametrize("seed", range(3))
async def test_several_changes_per_did_change_utf8(utf8_client: LanguageClient, seed: int) -> None:
    await multi_change_session(utf8_client, Encoding.UTF8, 400 + seed, 20)


YAML_WITH_COMMENTS = "# café 東京\nspec:\n  # replicas 🚀\n  replicas: 3\n  image: app  # pinned\n"


async def test_typing_in_yaml_comments_keeps_the_tree_a_fresh_parse_gets(utf16_client: LanguageClient) -> None:
    """Edits inside YAML comments skip the parse: the server's tree must still be exactly a fresh parse's."""
    client, uri = utf16_client, "file:///typed.yaml"
    open_doc(client, uri, YAML_WITH_COMMENTS, "yaml")
    first = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}})
    # (line, start, end, text) in UTF-16 columns: typing at a comment's end, after an emoji, in a trailing
    # comment, and deleting the "é" of the first one
    typed = [(0, 9, 9, "x"), (2, 15, 15, "🚀é"), (4, 22, 22, " v2"), (0, 5, 6, "")]
    lines = YAML_WITH_COMMENTS.split("\n")
    for version, (line, start, end, inserted) in enumerate(typed, start=2):
        change_doc(client, uri, version, inserted, (line, start), (line, end))
        units = lines[line].encode("utf-16-le")
        lines[line] = units[: 2 * start].decode("utf-16-le") + inserted + units[2 * end :].decode("utf-16-le")
    fresh = "file:///fresh.yaml"
    open_doc(client, fresh, "\n".join(lines), "yaml")
    got = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}, "detail": True})
    want = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": fresh}, "detail": True})
    assert got["version"] == len(typed) + 1
    assert got["textSha256"] == want["textSha256"]
    assert got["treeSha256"] == want["treeSha256"]
    assert got["parseCount"] == first["parseCount"]  # not one parse for those edits
