"""Framing and JSON-RPC envelopes: every bad message is answered or skipped, and the server keeps answering."""

from __future__ import annotations

import json

import pytest

from tests.hostile.conftest import assert_alive
from tests.rawclient import RawServer
from tether_lsp.server.transport import MAX_HEADER_LINE


def body(message: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


def framed(data: bytes, length: int | str | None = None) -> bytes:
    header = b"" if length is None else b"Content-Length: %s\r\n" % str(length).encode()
    return header + b"\r\n" + data


def null_error(server: RawServer) -> dict[str, object]:
    return server.wait_for(lambda m: "error" in m and m.get("id") is None)


@pytest.mark.parametrize(
    "length",
    ["99999999999999999999999", "abc", "-5", None, "12x"],
    ids=["overflowing", "not-a-number", "negative", "absent", "trailing-garbage"],
)
def test_a_bad_content_length_is_skipped_and_the_next_message_answered(ready: RawServer, length: str | None) -> None:
    ready.send_raw(framed(body({"id": 900, "method": "tether/listSelectors", "params": {}}), length))
    assert_alive(ready)
    assert ready.proc.poll() is None
    ready.wait_for_stderr(b"framing error")


def test_a_content_length_over_the_limit_is_a_framing_error(ready: RawServer) -> None:
    huge = 64 * 1024 * 1024 + 1
    ready.send_raw(framed(b"{}", huge))
    assert_alive(ready)
    ready.wait_for_stderr(b"over the limit")


def test_a_too_short_content_length_gives_a_parse_error_then_resynchronises(ready: RawServer) -> None:
    data = body({"id": 901, "method": "tether/listSelectors", "params": {}})
    ready.send_raw(framed(data, len(data) - 10))
    error = null_error(ready)
    assert error["error"]["code"] == -32700  # type: ignore[index]
    assert_alive(ready)


def test_an_overlong_header_line_is_a_framing_error_and_the_next_message_is_answered(ready: RawServer) -> None:
    """A header line past the limit makes its block a framing error (logged; it has no id to answer); the
    reader resynchronises on the very next message's Content-Length and answers it."""
    request = body({"id": 902, "method": "tether/listSelectors", "params": {}})
    ready.send_raw(b"X-Junk: " + b"a" * 100_000 + b"\r\n\r\n" + framed(request, len(request)))
    seen: list[dict[str, object]] = []

    def answers_902(message: dict[str, object]) -> bool:
        seen.append(message)
        return message.get("id") == 902

    answer = ready.wait_for(answers_902)
    assert answer["result"]["selectors"], answer
    assert not [m for m in seen if "error" in m]  # nothing answered the bad block
    log = ready.wait_for_stderr(b"resynchronised")
    assert b"framing error: a header line longer than %d bytes" % MAX_HEADER_LINE in log


@pytest.mark.parametrize(
    ("data", "code", "says"),
    [
        (b"{not json", -32700, "Parse error"),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
            -32700,
            "nested",
        ),
        (b"[]", -32600, "batches"),
        (b'[{"jsonrpc": "2.0", "id": 5, "method": "shutdown"}]', -32600, "batches"),
        (b"42", -32600, "JSON object"),
        (b'"text"', -32600, "JSON object"),
        (b"null", -32600, "JSON object"),
        (b'{"jsonrpc": "1.0", "id": 3, "method": "x"}', -32600, "jsonrpc"),
        (b'{"jsonrpc": "2.0", "method": 5}', -32600, "method must be a string"),
        (b'{"jsonrpc": "2.0", "id": true, "method": "x"}', -32600, "id must be"),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "x"}', -32600, "id must be"),
        (b'{"jsonrpc": "2.0"}', -32600, "neither"),
        (b"\xff\xfe", -32700, "Parse error"),
    ],
)
def test_malformed_messages_get_a_json_rpc_error(ready: RawServer, data: bytes, code: int, says: str) -> None:
    ready.send_raw(framed(data, len(data)))
    error = ready.wait_for(lambda m: "error" in m and m["error"]["code"] == code)
    assert says in error["error"]["message"]
    assert_alive(ready)


def test_an_invalid_envelope_with_a_valid_id_is_answered_on_that_id(ready: RawServer) -> None:
    data = b'{"jsonrpc": "1.0", "id": 77, "method": "tether/listSelectors"}'
    ready.send_raw(framed(data, len(data)))
    error = ready.wait_for(lambda m: m.get("id") == 77)
    assert error["error"]["code"] == -32600


@pytest.mark.parametrize("bad_id", [[1, 2], {"a": 1}, None, True, 1.5])
def test_cancel_with_an_id_of_the_wrong_type_is_ignored(ready: RawServer, bad_id: object) -> None:
    ready.notify("$/cancelRequest", {"id": bad_id})
    ready.notify("$/cancelRequest", [1])
    assert_alive(ready)
    assert b"Traceback" not in ready.stderr


def test_requests_before_initialize_get_server_not_initialized(raw: RawServer) -> None:
    answer = raw.request("tether/listSelectors", {})
    assert answer["error"]["code"] == -32002
    raw.notify("initialized", {})  # before initialize: ignored, not a crash
    raw.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": "file:///x.py", "languageId": "python", "version": 1, "text": "x = 1\n"}},
    )
    raw.initialize()
    assert_alive(raw)
    info = raw.request("tether/documentInfo", {"textDocument": {"uri": "file:///x.py"}})
    assert info["error"]["data"]["kind"] == "unknownDocument"  # the early didOpen was not applied


def test_a_failed_initialize_leaves_the_server_waiting_for_a_good_one(raw: RawServer) -> None:
    bad = raw.request("initialize", {"processId": "me", "capabilities": {}})
    assert bad["error"]["code"] == -32602
    raw.notify("initialized", {})
    assert raw.request("tether/listSelectors", {})["error"]["code"] == -32002
    raw.initialize()
    assert_alive(raw)
    assert b"Traceback" not in raw.stderr


def test_an_id_past_64_bits_is_answered_with_that_id(ready: RawServer) -> None:
    """JSON numbers have no size limit: the fast encoder refuses such an integer, the answer still goes out."""
    huge = 2**70 + 1
    ready.send({"id": huge, "method": "tether/listSelectors", "params": {}})
    answer = ready.wait_for(lambda m: m.get("id") == huge)
    assert answer["result"]["selectors"]
    assert_alive(ready)
