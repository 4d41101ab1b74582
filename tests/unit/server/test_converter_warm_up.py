"""The document sync notifications' converters are built once, in a worker, when the client says ``initialized``:
the keystrokes that follow build none on the loop (cattrs generates a function per class the first time it meets
it, 5-10 ms that the first ``didChange`` used to hold the loop for)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import cattrs.gen
import pytest

from tether_lsp.server.app import TetherServer
from tether_lsp.server.runtime_methods import runtime_feature


def did_change(version: int, whole: bool) -> dict[str, Any]:
    change: dict[str, Any] = {"text": "x = 1\n"}
    if not whole:
        change["range"] = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    return {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": "file:///a.py", "version": version}, "contentChanges": [change]},
    }


async def test_after_initialized_keystrokes_build_no_converter_on_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    server = TetherServer("tether-lsp", "test")
    server.router.install(runtime_feature())
    server.workers.bind_loop(asyncio.get_running_loop())
    built: list[tuple[str, bool]] = []  # (class, on the loop's thread)
    make = cattrs.gen.make_dict_structure_fn

    def counting(cl: Any, *args: Any, **kwargs: Any) -> Any:
        built.append((cl.__name__, threading.current_thread() is threading.main_thread()))
        return make(cl, *args, **kwargs)

    monkeypatch.setattr(cattrs.gen, "make_dict_structure_fn", counting)
    try:
        await server.hooks.initialized(server)
        for version in range(2, 6):
            message = server.protocol.structure_message(did_change(version, whole=version % 2 == 0))
            assert message.params.text_document.version == version
        assert [name for name, on_loop in built if on_loop] == []
        assert ("DidChangeTextDocumentNotification", False) in built  # built once, in a worker
    finally:
        await asyncio.to_thread(server.close_down)
