"""Session files of attached mode: private files, the session for a folder (the deepest workspace root holding
it), a clear refusal naming the running sessions, and the files of dead servers removed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether_lsp.mcp import discovery


def test_published_files_are_private_and_withdrawn(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "mcp"
    description, token = discovery.publish(folder, "s", os.getpid(), [tmp_path], "http://127.0.0.1:1/mcp", "t0k")
    assert folder.stat().st_mode & 0o777 == 0o700
    assert description.stat().st_mode & 0o777 == 0o600 and token.stat().st_mode & 0o777 == 0o600
    (session,) = discovery.sessions(folder)
    assert (session.token(), session.url, session.roots) == ("t0k", "http://127.0.0.1:1/mcp", [tmp_path])
    discovery.withdraw(description, token)
    assert list(folder.iterdir()) == []


def test_a_folder_others_can_write_to_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    with pytest.raises(PermissionError, match="not a private folder"):
        discovery.publish(folder, "s", os.getpid(), [tmp_path], "http://127.0.0.1:1/mcp", "t")
    assert list(folder.iterdir()) == []


def test_the_deepest_root_holding_the_folder_wins(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    outer, inner = tmp_path / "mono", tmp_path / "mono" / "service"
    (inner / "src").mkdir(parents=True)
    discovery.publish(folder, "outer", os.getpid(), [outer], "http://127.0.0.1:1/mcp", "a")
    discovery.publish(folder, "inner", os.getpid(), [inner], "http://127.0.0.1:2/mcp", "b")
    assert discovery.find(folder, inner / "src").url == "http://127.0.0.1:2/mcp"
    assert discovery.find(folder, outer).url == "http://127.0.0.1:1/mcp"
    with pytest.raises(LookupError, match=f"no running Tether session has {tmp_path / 'elsewhere'}.*pid {os.getpid()}"):
        discovery.find(folder, tmp_path / "elsewhere")


def test_the_files_of_a_dead_server_are_removed(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    description, token = discovery.publish(folder, "dead", dead.pid, [tmp_path], "http://127.0.0.1:1/mcp", "x")
    with pytest.raises(LookupError, match="no running Tether language server serves MCP"):
        discovery.find(folder, tmp_path)
    assert not description.exists() and not token.exists()
