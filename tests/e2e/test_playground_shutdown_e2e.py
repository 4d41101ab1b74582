"""A quick shutdown while the playground is still finding prompts is an orderly end, not a failure: the
client hears nothing about it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers import server_env
from tests.rawclient import RawServer

PROMPTS = "".join(f'ANSWER_{k}_PROMPT = "You are assistant number {k}; answer in one sentence."\n' for k in range(300))
WARNING = 2  # MessageType.Warning; Error is 1


def start(tmp_path: Path) -> RawServer:
    server = RawServer(env=server_env({"TETHER_DATABASE_URL": f"sqlite:///{tmp_path / 'tether.db'}"}))
    server.initialize(rootUri=tmp_path.as_uri())
    return server


def open_file(server: RawServer, tmp_path: Path, name: str, text: str = PROMPTS, shown: bool = False) -> str:
    uri = (tmp_path / name).as_uri()
    (tmp_path / name).write_text(text, encoding="utf-8")
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    server.notify("textDocument/didOpen", {"textDocument": document})
    if shown:
        server.notify("tether/editor/didChangeActiveEditor", {"textDocument": {"uri": uri}})
    return uri


def keeping(seen: list[dict[str, Any]], predicate: Callable[[dict[str, Any]], bool]) -> Callable[..., bool]:
    """A ``wait_for`` predicate that also keeps every message it is shown (``wait_for`` drops the others)."""

    def check(message: dict[str, Any]) -> bool:
        seen.append(message)
        return predicate(message)

    return check


def shows_all_prompts(message: dict[str, Any]) -> bool:
    return message.get("method") == "tether/playground/didChangeState" and len(message["params"]["prompts"]) == 300


def shut_down(server: RawServer, seen: list[dict[str, Any]]) -> None:
    """``shutdown`` then ``exit``, keeping every message the server sent until it has exited."""
    server.send({"id": "bye", "method": "shutdown", "params": None})
    server.wait_for(keeping(seen, lambda m: m.get("id") == "bye" and "method" not in m), timeout=20)
    server.notify("exit")
    assert server.proc.wait(timeout=20) == 0
    server.wait_closed()
    while not server.messages.empty():
        seen.append(server.messages.get())


def complaints(seen: list[dict[str, Any]], about: str = "playground") -> list[str]:
    """Warnings and errors about a feature the client was shown or logged."""
    return [
        m["params"]["message"]
        for m in seen
        if m.get("method") in ("window/showMessage", "window/logMessage")
        and m["params"]["type"] <= WARNING
        and about in m["params"]["message"]
    ]


def test_shutdown_right_after_opening_a_file_with_prompts_warns_nothing(tmp_path: Path) -> None:
    server = start(tmp_path)
    try:
        seen: list[dict[str, Any]] = []
        open_file(server, tmp_path, "agent.py")
        shut_down(server, seen)
        assert complaints(seen) == [], complaints(seen)
    finally:
        server.close()


def test_shutdown_while_a_second_file_is_being_scanned_warns_nothing(tmp_path: Path) -> None:
    server = start(tmp_path)
    try:
        seen: list[dict[str, Any]] = []
        open_file(server, tmp_path, "first.py", shown=True)
        server.wait_for(keeping(seen, shows_all_prompts), timeout=20)  # the map is loaded by now
        for name in ("second.py", "third.py"):  # more than one batch of detection
            open_file(server, tmp_path, name, PROMPTS * 12)
        # a message waits for their prompts: detection starts in a worker, the next batch after it
        server.send({"id": "state", "method": "tether/playground/getState", "params": {}})
        shut_down(server, seen)
        assert complaints(seen) == [], complaints(seen)
    finally:
        server.close()
