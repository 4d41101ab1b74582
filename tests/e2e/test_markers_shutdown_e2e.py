"""A quick shutdown while markers are starting (their database, a HEAD check) is an orderly end: the client
hears no warning or error about markers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.test_markers_e2e import SOURCE, git
from tests.e2e.test_playground_shutdown_e2e import complaints, shut_down
from tests.helpers import server_env
from tests.rawclient import RawServer


def test_shutdown_right_after_start_in_a_repository_warns_nothing_about_markers(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "calc.py").write_text(SOURCE, encoding="utf-8")
    git(repo, "add", "calc.py")
    git(repo, "commit", "-q", "-m", "init")
    for _ in range(5):  # the race is between start-up work and the shutdown: try it several times
        server = RawServer(env=server_env({"TETHER_DATABASE_URL": f"sqlite:///{tmp_path / 'tether.db'}"}))
        try:
            server.initialize(rootUri=repo.as_uri())
            uri = (repo / "calc.py").as_uri()
            document = {"uri": uri, "languageId": "python", "version": 1, "text": SOURCE}
            server.notify("textDocument/didOpen", {"textDocument": document})
            server.send({"id": "lens", "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}})
            seen: list[dict[str, Any]] = []
            shut_down(server, seen)
            assert complaints(seen, "markers") == [], complaints(seen, "markers")
        finally:
            server.close()
