"""A client nobody here wrote: the MCP Inspector's command-line mode (``@modelcontextprotocol/inspector``, the
TypeScript SDK's client; ``scripts/ensure-mcp-tools.sh`` installs it into ``.cache/mcp-inspector``) starts
``tether-lsp mcp`` over stdio, lists its tools, and calls ``select`` and ``edit`` on a real folder, each call a
new process as the Inspector makes it (a note one process adds, the next one lists). Array and object arguments go
as JSON on the command line, as its users write them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import TOOL_NAMES, server_env

ROOT = Path(__file__).resolve().parents[2]
INSPECTOR = ROOT / ".cache" / "mcp-inspector" / "node_modules" / ".bin" / "mcp-inspector"
COMMAND = Path(sys.executable).parent / "tether-lsp"
SOURCE = """class Store:
    def get(self, key):
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
"""


@pytest.fixture(scope="module")
def inspector() -> Path:
    if not INSPECTOR.exists():
        if os.environ.get("TETHER_REQUIRE_EDITORS") or os.environ.get("CI"):
            pytest.fail("the MCP Inspector is missing: scripts/ensure-mcp-tools.sh installs it")
        pytest.skip("run scripts/ensure-mcp-tools.sh first")
    return INSPECTOR


def inspect(inspector: Path, root: Path, *args: str) -> dict[str, Any]:
    """One Inspector CLI run against ``tether-lsp mcp --root root``: its JSON output."""
    command = [str(inspector), "--cli", str(COMMAND), "mcp", "--root", str(root), *args]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120, env=server_env())
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    answer: dict[str, Any] = json.loads(out.stdout)
    return answer


def call(inspector: Path, root: Path, tool: str, **arguments: Any) -> dict[str, Any]:
    pairs = [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in arguments.items()]
    args = ["--method", "tools/call", "--tool-name", tool, *[a for p in pairs for a in ("--tool-arg", p)]]
    return inspect(inspector, root, *args)


def test_the_inspector_lists_the_tools_then_selects_and_edits(inspector: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "store.py").write_text(SOURCE)
    tools = inspect(inspector, root, "--method", "tools/list")["tools"]
    assert [t["name"] for t in tools] == TOOL_NAMES
    edit_tool = next(t for t in tools if t["name"] == "edit")
    assert edit_tool["annotations"]["destructiveHint"] is True and edit_tool["inputSchema"]["required"] == [
        "path",
        "base_version",
        "edits",
    ]
    selected = call(inspector, root, "select", path="store.py", selectors=["selectMethods", ["filterText", "^def get"]])
    assert selected["isError"] is False
    (match,) = selected["structuredContent"]["matches"]
    assert match["text"] == "def get(self, key):\n        return self.data[key]"
    assert match["range"] == {"start": {"line": 2, "column": 5}, "end": {"line": 3, "column": 30}}
    assert selected["content"][0]["text"].startswith("store.py (version ")
    version = selected["structuredContent"]["version"]
    new = "def get(self, key, default=None):\n        return self.data.get(key, default)"
    edited = call(
        inspector,
        root,
        "edit",
        path="store.py",
        base_version=version,
        edits=[{"range": match["range"], "new_text": new}],
    )
    assert edited["isError"] is False
    assert edited["structuredContent"]["written"] is True
    assert edited["structuredContent"]["results"][0]["status"] == "applied"
    assert (root / "store.py").read_text() == SOURCE.replace(match["text"], new)
    stale = call(
        inspector,
        root,
        "edit",
        path="store.py",
        base_version=version,  # a new server process never handed this version out: refused, file untouched
        edits=[{"old_text": "self.data[key] = value", "new_text": "pass"}],
    )
    assert stale["isError"] is True and stale["content"][0]["text"].startswith("base_version: ")
    assert (root / "store.py").read_text() == SOURCE.replace(match["text"], new)
    outside = call(inspector, root, "read", path="../secret.py")
    assert outside["isError"] is True and "outside the roots" in outside["content"][0]["text"]


def test_the_inspector_adds_a_note_that_a_later_server_lists(inspector: Path, tmp_path: Path) -> None:
    root = tmp_path / "clone"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=server_env())  # its database: .git/tether
    (root / "store.py").write_text(SOURCE)
    put = {"start": {"line": 5, "column": 5}, "end": {"line": 6, "column": 31}}
    added = call(inspector, root, "note_add", path="store.py", target=put, text="no default?", kind="question")
    assert added["isError"] is False, added["content"]
    note = added["structuredContent"]
    assert (note["state"], note["range"], note["author"], note["kind"]) == ("fresh", put, "agent", "question")
    listed = call(inspector, root, "notes", under=".")  # another server process, the same records
    assert listed["isError"] is False
    assert listed["structuredContent"]["notes"] == [note]
    assert f"store.py 5:5-6:31 [question, fresh] agent: no default? (id {note['id']})" in listed["content"][0]["text"]
    refused = call(inspector, root, "note_add", path="store.py", target="put", text="x")
    assert refused["isError"] is True and refused["content"][0]["text"].startswith("target: ")
    updated = call(inspector, root, "note_update", id=note["id"], text="None is the default", kind="comment")
    assert updated["isError"] is False, updated["content"]
    assert (updated["structuredContent"]["text"], updated["structuredContent"]["kind"]) == (
        "None is the default",
        "comment",
    )
    deleted = call(inspector, root, "note_delete", id=note["id"])
    assert deleted["structuredContent"] == {"deleted": True}
    assert call(inspector, root, "notes", under=".")["structuredContent"] == {"notes": []}
