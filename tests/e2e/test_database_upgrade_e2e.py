"""A database written by an earlier Tether, over stdio: its leftovers are left alone and everything works.

Earlier versions made a key-value table (``tether_kv``, the schema component ``core``, version 1) in every
database. No version uses it any more, and none makes it; a database that has it opens as any other.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tests.helpers import server_env
from tests.rawclient import RawServer

PROMPTS = 'GREETING_PROMPT = "Write a warm greeting for {name}, in French."\n'
WHOLE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 10}}

# What the earlier "core" migration left in every SQLite database, as it made it.
OLD_CORE = """
CREATE TABLE tether_kv (
    namespace VARCHAR(200) NOT NULL,
    "key" VARCHAR(500) NOT NULL,
    value TEXT NOT NULL,
    updated_at DATETIME NOT NULL,
    PRIMARY KEY (namespace, "key")
);
INSERT INTO tether_kv VALUES ('ns', 'k', '{"kept": "café 🚀"}', '2024-01-01 00:00:00.000000');
INSERT INTO tether_schema (component, version) VALUES ('core', 1);
"""


class Editor:
    """A server over stdio on ``root``, with the database at ``database``."""

    def __init__(self, tmp_path: Path, root: Path, database: Path) -> None:
        self.server = RawServer(env=server_env(tmp_home=tmp_path / "home"))
        self.root = root
        options = {"tether": {"database": {"url": f"sqlite:///{database}"}}}
        self.server.initialize(rootUri=root.as_uri(), initializationOptions=options)

    def open_prompts(self) -> tuple[str, str]:
        """Open the prompts file; its uri and the id of its one prompt."""
        uri = (self.root / "prompts.py").as_uri()
        item = {"uri": uri, "languageId": "python", "version": 1, "text": PROMPTS}
        self.server.notify("textDocument/didOpen", {"textDocument": item})
        where = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
        self.server.notify("tether/editor/didChangeActiveEditor", where)
        state = self.server.wait_for(
            lambda m: m.get("method") == "tether/playground/didChangeState" and m["params"]["prompts"], timeout=30
        )
        (prompt,) = state["params"]["prompts"]
        return uri, prompt["promptId"]

    def result(self, method: str, params: Any) -> Any:
        answer = self.server.request(method, params, timeout=30)
        assert "error" not in answer, f"{method}: {answer['error']}"
        return answer["result"]

    def close(self) -> str:
        """Shut down; the server's whole log."""
        self.server.request("shutdown", None)
        self.server.notify("exit", None)
        self.server.wait_closed()
        return self.server.stderr.decode("utf-8", errors="replace")


def tables(database: Path) -> set[str]:
    with sqlite3.connect(database) as conn:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_no_key_value_table_is_made_and_a_database_that_has_one_still_works(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "prompts.py").write_text(PROMPTS, encoding="utf-8")
    database = tmp_path / "db" / "tether.db"

    first = Editor(tmp_path, root, database)
    try:
        uri, prompt_id = first.open_prompts()
        first.result("tether/markers/create", {"textDocument": {"uri": uri}, "range": WHOLE, "note": "before"})
        settings = {"promptId": prompt_id, "settings": {"variables": {"name": "Ada"}}}
        first.result("tether/playground/setSettings", settings)
        log = first.close()
    finally:
        first.server.close()
    assert "Traceback" not in log, log
    made = tables(database)
    assert "tether_kv" not in made, made
    assert {"tether_schema", "tether_markers"} <= made, made

    # what the earlier versions also left behind
    with sqlite3.connect(database) as conn:
        conn.executescript(OLD_CORE)

    second = Editor(tmp_path, root, database)
    try:
        uri, prompt_id = second.open_prompts()
        listed = second.result("tether/markers/list", {"textDocument": {"uri": uri}})["markers"]
        assert [m["note"] for m in listed] == ["before"]
        second.result("tether/markers/create", {"textDocument": {"uri": uri}, "range": WHOLE, "note": "after"})
        listed = second.result("tether/markers/list", {"textDocument": {"uri": uri}})["markers"]
        assert sorted(m["note"] for m in listed) == ["after", "before"]
        got = second.result("tether/playground/getSettings", {"promptId": prompt_id})
        assert got == {"variables": {"name": "Ada"}}, got
        log = second.close()
    finally:
        second.server.close()
    assert "Traceback" not in log, log
    with sqlite3.connect(database) as conn:  # the leftovers are left as they were
        assert conn.execute("SELECT value FROM tether_kv").fetchall() == [('{"kept": "café 🚀"}',)]
        assert conn.execute("SELECT version FROM tether_schema WHERE component = 'core'").fetchall() == [(1,)]
