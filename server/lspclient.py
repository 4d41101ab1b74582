"""Helpers for scripted LSP sessions (the demo, tests, benchmarks) on top of pygls' client.

pygls types messages by method name: it cannot send a malformed request on purpose, and it fails on a
peer's response that lsprotocol cannot structure. These send and receive plain JSON instead.
"""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import Future
from typing import Any

import cattrs
from lsprotocol.converters import get_converter
from pygls.client import JsonRPCClient
from pygls.lsp.client import LanguageClient
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage


async def raw_request(client: JsonRPCClient, method: str, params: Any) -> Any:
    """Send ``params`` exactly as given; the result comes back as plain dicts and lists."""
    protocol = client.protocol
    msg_id = str(uuid.uuid4())
    future: Future[Any] = Future()
    protocol._request_futures[msg_id] = future
    protocol._result_types[msg_id] = None
    protocol._send_data(JsonRPCRequestMessage(id=msg_id, method=method, params=params, jsonrpc="2.0"))
    return plain(await asyncio.wrap_future(future))


def plain(value: Any) -> Any:
    """pygls' client turns JSON objects into namedtuples; scripts compare plain dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def plain_converter() -> cattrs.Converter:
    """A client converter that leaves untyped results and params as plain JSON.

    pygls' default turns every JSON object of an untyped result into a freshly created namedtuple class,
    which costs ~100 µs per object (half a second for a thousand ranges) — it would measure the client,
    not the server.
    """
    converter = get_converter()

    def keep(obj: dict[str, Any], cls: type[Any]) -> Any:
        return cls(**obj)

    for cls in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(cls, keep)
    return converter


def make_client(name: str, version: str = "0") -> LanguageClient:
    """A pygls client whose untyped results are plain dicts and lists."""
    return LanguageClient(name, version, converter_factory=plain_converter)
