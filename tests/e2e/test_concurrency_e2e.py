"""The loop keeps answering while a worker recalculates a repository: requests sent during a HEAD change of
10,000 markers are answered before its ``tether/markers/didChange``. Ordering, not wall-clock time, is
asserted: the replies and the notification are recorded in the order the client receives them."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

from benchmarks.markers import change_every_file, make_repo, seed_markers
from tests.helpers import server_env
from tether_lsp.server.lspclient import make_client, raw_request


async def test_requests_during_a_10000_marker_recalculation_are_answered_before_it_ends(tmp_path: Path) -> None:
    names = make_repo(tmp_path, files=200, lines_per_file=500)
    assert seed_markers(tmp_path, names, per_file=50) == 10_000
    client = make_client("ordering")
    events: list[str] = []
    ended = asyncio.get_running_loop().create_future()

    last_file = (tmp_path / names[-1]).as_uri()  # never listed: only the recalculation names it

    @client.feature("tether/markers/didChange")
    def changed(params: Any) -> None:
        uris = params["uris"] if isinstance(params, dict) else params.uris
        if last_file not in uris:
            return  # a file listed before the commit, told again (its full answer after a quick first one)
        events.append("didChange")
        if not ended.done():
            ended.set_result(None)

    await client.start_io(sys.executable, "-m", "tether_lsp", env=server_env())
    try:
        await raw_request(client, "initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.initialized(types.InitializedParams())
        first = (tmp_path / names[0]).as_uri()
        open_uri = (tmp_path / names[1]).as_uri()
        assert (
            len((await raw_request(client, "tether/markers/list", {"textDocument": {"uri": first}}))["markers"]) == 50
        )
        change_every_file(tmp_path, names)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [types.FileEvent(uri=(tmp_path / ".git" / "HEAD").as_uri(), type=types.FileChangeType.Changed)]
            )
        )

        async def answered(label: str, method: str, params: dict[str, Any]) -> Any:
            result = await raw_request(client, method, params)
            events.append(label)
            return result

        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri=open_uri,
                    language_id="python",
                    version=1,
                    text=(tmp_path / names[1]).read_text(encoding="utf-8"),
                )
            )
        )
        replies = await asyncio.gather(
            answered("listSelectors", "tether/listSelectors", {}),
            answered("documentInfo", "tether/documentInfo", {"textDocument": {"uri": open_uri}}),
            answered(
                "selector",
                "tether/applySelector",
                {"uri": open_uri, "selector": "selectFunctions", "cursorNodeIds": []},
            ),
            answered("markers", "tether/markers/list", {"textDocument": {"uri": (tmp_path / names[2]).as_uri()}}),
            answered("codeLens", "textDocument/codeLens", {"textDocument": {"uri": open_uri}}),
        )
        await asyncio.wait_for(ended, 120)
        assert events.index("didChange") == 5, events  # every reply came first
        assert len(replies[3]["markers"]) == 50  # from the locations known before the commit, carried
        assert replies[2]["ranges"]
        # and after it: the stored locations at the new HEAD are used
        moved = (await raw_request(client, "tether/markers/list", {"textDocument": {"uri": first}}))["markers"]
        assert len(moved) == 50
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()  # type: ignore[no-untyped-call]
