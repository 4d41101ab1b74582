"""One path for structural actions: ``tether/applyAction`` (the LSP glue) and ``act`` (the agents' front) both call
``service.perform`` with the nodes they resolved, and ``act`` writes through the same placement as ``edit``
(``Batch.place`` from ``_Edits.place``, ``Batch.change`` from ``write_all``): no front orchestrates an action or
a write of its own."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.mcpclient import McpClient
from tether_lsp.handlers.actions import lsp as actions_lsp
from tether_lsp.handlers.actions import service
from tether_lsp.handlers.actions.wire import ActionTargets, ApplyActionParams
from tether_lsp.handlers.edits import service as edits_service
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.server import build
from tether_lsp.server.app import TetherServer
from tether_lsp.server.document_sync import did_open

SOURCE = "def f(a, b):\n    return g(a, b, 'é')\n"


def caller() -> str:
    return sys._getframe(2).f_code.co_qualname


async def test_the_editors_and_the_agents_actions_run_in_one_service_and_write_like_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    performed: list[tuple[str, str, list[str]]] = []
    placed: list[tuple[str, str]] = []
    perform, place, change = service.perform, edits_service.Batch.place, edits_service.Batch.change

    def perform_spy(source: service.Source, request: service.Request, targets: Any, *rest: Any) -> Any:
        performed.append((caller(), request.action, [n.text.decode() for n in targets]))
        return perform(source, request, targets, *rest)

    def place_spy(batch: edits_service.Batch, target: edits_service.Target) -> Any:
        placed.append(("Batch.place", caller()))
        return place(batch, target)

    def change_spy(batch: edits_service.Batch, *args: Any) -> Any:
        placed.append(("Batch.change", caller()))
        return change(batch, *args)

    monkeypatch.setattr(service, "perform", perform_spy)
    monkeypatch.setattr(edits_service.Batch, "place", place_spy)
    monkeypatch.setattr(edits_service.Batch, "change", change_spy)
    root = (tmp_path / "root").resolve()
    root.mkdir()
    (root / "m.py").write_text(SOURCE)
    uri = (root / "m.py").as_uri()

    server = TetherServer("tether-lsp", "test")
    actions: actions_lsp.Actions = server.router.install(actions_lsp.FEATURE)
    server.workers.bind_loop(asyncio.get_running_loop())
    try:
        did_open(server, types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, SOURCE)))
        where = types.Range(types.Position(1, 16), types.Position(1, 17))  # the call's b
        params = ApplyActionParams(
            types.VersionedTextDocumentIdentifier(version=1, uri=uri), "remove", ActionTargets(ranges=[where])
        )
        answer = actions.apply(params)
    finally:
        await asyncio.to_thread(server.workers.close)
    edits = answer.edit.document_changes
    assert edits is not None and len(edits) == 1

    with McpClient(build(Context([root]))) as client:
        found = client.ok("select", {"path": "m.py", "selectors": ["selectCalls", "selectArguments"]})
        act = {"path": "m.py", "base_version": found["version"], "action": "remove"}
        client.ok("act", {**act, "targets": [found["matches"][1]["node_id"]]})
    assert (root / "m.py").read_text() == "def f(a, b):\n    return g(a, 'é')\n"
    assert performed == [("Actions.apply", "remove", ["b"]), ("_Action.here", "remove", ["b"])]
    assert placed == [("Batch.place", "_Edits.place"), ("Batch.change", "write_all")]
