"""Malformed requests over real stdio: documented errors, and the server keeps answering."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, open_doc, raw_notify, raw_request, server_config
from tests.rawclient import RawServer

URI = "file:///work/a.py"


@pytest_lsp.fixture(config=server_config(TETHER_TEST_HOOKS="1"))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    open_doc(lsp_client, URI, "def f(x):\n    return x\n")
    yield
    await lsp_client.shutdown_session()


async def alive(client: LanguageClient) -> None:
    info = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": URI}})
    assert info["uri"] == URI


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        (
            "textDocument/selectionRange",
            {"textDocument": {"uri": 5}, "positions": []},
            "textDocument.uri: expected a string, got 5",
        ),
        ("textDocument/selectionRange", {"textDocument": {"uri": URI}}, "positions: required field missing"),
        (
            "textDocument/selectionRange",
            {"textDocument": {"uri": URI}, "positions": [{"line": 0, "character": True}]},
            "positions[0].character: expected an integer, got true",
        ),
        (
            "textDocument/selectionRange",
            {"textDocument": {"uri": URI}, "positions": [{"line": 1.5, "character": 0}]},
            "positions[0].line: expected an integer, got 1.5",
        ),
        ("tether/documentInfo", {"textDocument": {}}, "textDocument.uri: required field missing"),
        (
            "tether/documentInfo",
            {"textDocument": {"uri": URI}, "detail": "yes"},
            "detail: expected a boolean, got 'yes'",
        ),
        ("tether/documentInfo", None, "params: expected an object, got null"),
        ("tether/documentInfo", [1, 2], "params: expected an object, got an array"),
    ],
)
async def test_invalid_params_name_the_field(client: LanguageClient, method: str, params: object, message: str) -> None:
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, method, params)
    assert info.value.code == -32602
    assert info.value.message.startswith(message)
    assert info.value.data is not None
    assert info.value.data["kind"] == "invalidParams"
    await alive(client)
    assert client.messages == []  # an invalid request is the client's answer, not a popup


async def test_unknown_document(client: LanguageClient) -> None:
    result = await raw_request(
        client,
        "textDocument/selectionRange",
        {"textDocument": {"uri": "file:///nope.py"}, "positions": [{"line": 0, "character": 0}]},
    )
    assert result == []
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": "file:///nope.py"}})
    assert info.value.code == -32602 and info.value.data == {"kind": "unknownDocument", "field": "textDocument.uri"}
    await alive(client)


async def test_unknown_method(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/noSuchMethod", {})
    assert info.value.code == -32601
    await alive(client)


async def test_handler_exception_is_internal_error_and_server_survives(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/debug/raise", {})
    assert info.value.code == -32603
    assert "boom" in info.value.message
    await alive(client)
    with pytest.raises(JsonRpcException):
        await raw_request(client, "tether/debug/raise", {})
    await alive(client)
    await alive(client)  # let any window/showMessage arrive
    assert client.messages == []  # the failure was the request's answer: no popup


async def test_malformed_notifications_are_ignored(client: LanguageClient) -> None:
    raw_notify(client, "textDocument/didOpen", {"textDocument": {"uri": "file:///b.py", "languageId": "python"}})
    raw_notify(client, "textDocument/didChange", {"textDocument": {"uri": URI, "version": "2"}, "contentChanges": []})
    raw_notify(
        client,
        "textDocument/didChange",
        {"textDocument": {"uri": "file:///never-opened.py", "version": 2}, "contentChanges": [{"text": "x"}]},
    )
    raw_notify(client, "tether/unknownNotification", {"x": 1})
    await alive(client)
    info = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": URI}})
    assert info["version"] == 1


def test_invalid_json_and_garbage_do_not_kill_the_server() -> None:
    server = RawServer()
    try:
        server.initialize()
        server.send_bytes(b"{not json")
        server.send_bytes(b'{"jsonrpc": "2.0", "id": 99}')
        server.send_bytes(b"[1, 2, 3]")
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": "x = 1\n"}},
        )
        reply = server.request("tether/documentInfo", {"textDocument": {"uri": URI}})
        assert reply["result"]["lines"] == 2
    finally:
        server.close()


async def test_failing_notifications_show_one_popup_and_keep_serving(client: LanguageClient) -> None:
    for i in range(3):
        raw_notify(client, "tether/debug/raiseInNotification", {"message": f"#{i}"})
    raw_notify(client, "tether/debug/raiseInNotification", {"message": 42})  # invalid params: logged, dropped
    await alive(client)
    await alive(client)
    popups = [m for m in client.messages if "internal error" in m.message]
    assert len(popups) == 1
    assert any("boom in a notification: #2" in m.message for m in client.log_messages)
    assert any(
        "tether/debug/raiseInNotification notification: message: expected a string" in m.message
        for m in client.log_messages
    )
