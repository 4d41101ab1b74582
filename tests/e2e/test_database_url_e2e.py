"""A database that cannot be opened, over stdio: every request that needs it answers ``-32803`` with
``kind: storage``, the reason and the setting to fix; the log warns once, without a traceback."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import server_env
from tests.rawclient import RawServer

PROMPTS = 'GREETING_PROMPT = "Write a warm greeting for {name}, in French."\n'
BAD_URLS = [
    "sqlite:/x.db",  # not a URL SQLAlchemy can parse
    "sqlite",
    "sqlite:////proc/nope/x.db",  # a folder that cannot be made
    "sqlite:////etc/hostname/x.db",  # a folder under a regular file: not writable even by root
    "sqlite:////proc/x.db",  # a folder that exists, where no file can be made
    "sqlite+nosuch:////tmp/x.db",
    "postgresql+nosuch://me:s3cret@db.invalid/tether",  # no such driver; the password never shows
]


class Session:
    """A server over stdio that keeps every message it sent (log messages included)."""

    def __init__(self, tmp_path: Path, options: dict[str, Any], configuration: dict[str, Any] | None = None) -> None:
        self.server = RawServer(env=server_env(tmp_home=tmp_path / "home"))
        self.seen: list[dict[str, Any]] = []
        self.configuration = configuration  # the `tether` section the client answers, if it can
        self.root = tmp_path / "work"
        self.root.mkdir()
        capabilities = {"workspace": {"configuration": configuration is not None}}
        self.request(
            "initialize",
            {"processId": None, "rootUri": self.root.as_uri(), "capabilities": capabilities, **options},
        )
        self.server.notify("initialized", {})

    def request(self, method: str, params: Any) -> dict[str, Any]:
        msg_id = self.server.next_id()
        self.server.send({"id": msg_id, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m)

    def wait_for(self, predicate: Any, timeout: float = 20) -> dict[str, Any]:
        """The first message ``predicate`` accepts; requests from the server are answered on the way."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.server.messages.get(timeout=max(0.0, deadline - time.monotonic()))
            self.seen.append(message)
            if message.get("method") and "id" in message:
                wanted = message["method"] == "workspace/configuration"
                self.server.send({"id": message["id"], "result": [self.configuration] if wanted else None})
            if predicate(message):
                return message

    def seen_or_next(self, predicate: Any) -> dict[str, Any]:
        """The first message, received already or still to come, that ``predicate`` accepts."""
        for message in self.seen:
            if predicate(message):
                return message
        return self.wait_for(predicate)

    def open(self, name: str, text: str) -> str:
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        self.server.notify("textDocument/didOpen", {"textDocument": item})
        position = {"line": 0, "character": 0}
        self.server.notify("tether/editor/didChangeActiveEditor", {"textDocument": {"uri": uri}, "position": position})
        return uri

    def close(self) -> str:
        """Shut down; the server's whole log (stderr)."""
        self.request("shutdown", None)
        self.server.notify("exit", None)
        self.server.wait_closed()
        return self.server.stderr.decode("utf-8", errors="replace")

    def log_messages(self) -> list[dict[str, Any]]:
        return [m["params"] for m in self.seen if m.get("method") == "window/logMessage"]


@pytest.fixture
def sessions() -> Iterator[list[Session]]:
    started: list[Session] = []
    yield started
    for session in started:
        session.server.close()


def assert_storage_error(answer: dict[str, Any], what: str) -> None:
    error = answer.get("error")
    assert error is not None, f"{what}: answered {answer.get('result')!r}"
    assert error["code"] == -32803, f"{what}: {error}"
    assert error["data"]["kind"] == "storage", f"{what}: {error}"
    assert error["data"]["setting"] == "tether.database.url", f"{what}: {error}"
    assert error["data"]["reason"] and error["data"]["reason"] in error["message"], f"{what}: {error}"
    assert "tether.database.url" in error["message"], f"{what}: {error}"
    assert "s3cret" not in json.dumps(error), f"{what}: {error}"


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_database_that_cannot_be_opened_is_a_storage_error(tmp_path: Path, sessions: list[Session], url: str) -> None:
    session = Session(tmp_path, {"initializationOptions": {"tether": {"database": {"url": url}}}})
    sessions.append(session)
    uri = session.open("prompts.py", PROMPTS)
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 10}}

    created = session.request("tether/markers/create", {"textDocument": {"uri": uri}, "range": whole, "note": "n"})
    assert_storage_error(created, "markers/create")
    assert_storage_error(session.request("tether/markers/list", {"textDocument": {"uri": uri}}), "markers/list")

    # prompts are still found and named, for this session
    shown = session.seen_or_next(
        lambda m: m.get("method") == "tether/playground/didChangeState" and m["params"]["prompts"]
    )
    (prompt,) = shown["params"]["prompts"]
    prompt_id = prompt["promptId"]
    assert_storage_error(session.request("tether/playground/runs", {"promptId": prompt_id}), "playground/runs")
    settings = {"promptId": prompt_id, "settings": {"variables": {"name": "Ada"}}}
    assert_storage_error(session.request("tether/playground/setSettings", settings), "playground/setSettings")
    assert_storage_error(session.request("tether/playground/getSettings", {"promptId": prompt_id}), "getSettings")

    log = session.close()
    assert "Traceback" not in log and "internal error" not in log, log
    assert "s3cret" not in log
    # one warning in all (an error or a warning is type 1 or 2), the same for markers and the playground
    reported = [m for m in session.log_messages() if m["type"] <= 2]
    assert [m["type"] for m in reported] == [2], [m["message"] for m in session.log_messages()]
    assert "storage failed" in reported[0]["message"] and "tether.database.url" in reported[0]["message"]


def test_a_bad_setting_value_is_warned_about_once_in_json_words(tmp_path: Path, sessions: list[Session]) -> None:
    """Read from initializationOptions, then again with the pulled configuration: one warning, not two."""
    options = {"initializationOptions": {"tether": {"database": {"url": 5}}}}
    session = Session(tmp_path, options, configuration={"database": {"url": 5}, "probe": 1})
    sessions.append(session)
    # the pulled settings are applied when their unknown key is reported; the warnings of that one call
    # are all sent before the next answer
    session.wait_for(lambda m: "tether.probe" in json.dumps(m.get("params")) and m.get("method") == "window/logMessage")
    session.request("tether/playground/getState", {})
    session.close()
    warnings = [m["message"] for m in session.log_messages() if "tether.database.url" in m["message"]]
    assert len(warnings) == 1, warnings
    assert "keeping the default null" in warnings[0], warnings
