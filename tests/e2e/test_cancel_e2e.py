"""``$/cancelRequest`` over stdio: a cancelled request whose work runs in the workers is answered ``-32800`` at
the handler's next wait, before a request sent after the cancel that needs the same workers, and exactly once;
a long ``textDocument/selectionRange`` lets other requests be answered meanwhile and is cancelled as well.
Ordering, not wall-clock time, is asserted: every message the server writes is recorded in the order read, and
the count of answers is taken after ``exit`` closed the server's stdout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.corpus import python_file
from benchmarks.markers import make_repo, seed_markers
from tests.rawclient import RawServer

REQUEST_CANCELLED = -32800


def _answer(server: RawServer, msg_id: int, seen: list[dict[str, Any]], timeout: float = 120) -> dict[str, Any]:
    """Read messages until the answer to ``msg_id``; every answer read on the way is kept in ``seen``."""

    def keep(message: dict[str, Any]) -> bool:
        if "id" in message and "method" not in message:
            seen.append(message)
        return message.get("id") == msg_id and "method" not in message

    if any(m["id"] == msg_id for m in seen):
        return next(m for m in seen if m["id"] == msg_id)
    return server.wait_for(keep, timeout)


def test_a_cancelled_workspace_listing_is_answered_at_once_and_once(tmp_path: Path) -> None:
    names = make_repo(tmp_path, files=200, lines_per_file=300)
    assert seed_markers(tmp_path, names, per_file=50) == 10_000
    server = RawServer()
    seen: list[dict[str, Any]] = []
    try:
        server.initialize(rootUri=tmp_path.as_uri())
        listing = server.next_id()
        server.send({"id": listing, "method": "tether/markers/listWorkspace", "params": {}})
        # a request sent after it that needs the workers: once it is answered, the listing has begun its
        # worker jobs (tasks start, and hand their jobs to the pool, in the order the requests came)
        probe = server.next_id()
        server.send(
            {
                "id": probe,
                "method": "tether/markers/list",
                "params": {"textDocument": {"uri": _uri(tmp_path, names[0])}},
            }
        )
        assert len(_answer(server, probe, seen)["result"]["markers"]) == 50
        assert all(m["id"] != listing for m in seen), "the listing ended before it could be cancelled: a bigger repo"
        server.notify("$/cancelRequest", {"id": listing})
        later = server.next_id()
        server.send(
            {
                "id": later,
                "method": "tether/markers/list",
                "params": {"textDocument": {"uri": _uri(tmp_path, names[1])}},
            }
        )
        assert len(_answer(server, later, seen)["result"]["markers"]) == 50
        order = [m["id"] for m in seen]
        assert listing in order, "the cancelled listing was not answered before a request sent after the cancel"
        assert order.index(listing) < order.index(later), order
        cancelled = next(m for m in seen if m["id"] == listing)
        assert cancelled.get("error", {}).get("code") == REQUEST_CANCELLED, cancelled
        assert _answers_once_the_server_ended(server, seen).count(listing) == 1
    finally:
        server.close()


def _uri(root: Path, name: str) -> str:
    return (root / name).as_uri()


def _answers_once_the_server_ended(server: RawServer, seen: list[dict[str, Any]]) -> list[Any]:
    """The ids of every answer, counted after ``exit`` closed the server's stdout (nothing more can come)."""
    shutdown = server.next_id()
    server.send({"id": shutdown, "method": "shutdown", "params": None})
    _answer(server, shutdown, seen)
    server.notify("exit")
    server.wait_closed(timeout=60)
    while not server.messages.empty():
        message = server.messages.get_nowait()
        if "id" in message and "method" not in message:
            seen.append(message)
    return [m["id"] for m in seen]


def test_a_long_selection_range_lets_others_answer_and_is_cancelled(tmp_path: Path) -> None:
    text = python_file(20_000)
    lines = text.count("\n")
    uri = (tmp_path / "big.py").as_uri()
    server = RawServer()
    seen: list[dict[str, Any]] = []
    try:
        server.initialize(rootUri=tmp_path.as_uri())
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        )
        assert server.request("tether/documentInfo", {"textDocument": {"uri": uri}}, timeout=60)["result"]
        expanding = server.next_id()
        positions = [{"line": line, "character": 4} for line in range(lines)]
        server.send(
            {
                "id": expanding,
                "method": "textDocument/selectionRange",
                "params": {"textDocument": {"uri": uri}, "positions": positions},
            }
        )
        before = server.next_id()
        server.send({"id": before, "method": "tether/listSelectors", "params": {}})
        assert _answer(server, before, seen)["result"]["selectors"]
        assert all(m["id"] != expanding for m in seen), "selectionRange held the loop: answered before listSelectors"
        server.notify("$/cancelRequest", {"id": expanding})
        # read while it works (a -32800, not its result): its next slice ends it
        cancelled = _answer(server, expanding, seen)
        assert cancelled.get("error", {}).get("code") == REQUEST_CANCELLED, str(cancelled)[:300]
        assert _answers_once_the_server_ended(server, seen).count(expanding) == 1
    finally:
        server.close()
