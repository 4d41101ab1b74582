"""``tether-lsp mcp`` as agents run it: the installed command over stdio, driven by the MCP SDK's client. One
server for the module (each test has files of its own); other processes change, rename and delete files between
calls, as editors, git and shells do."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from tests.helpers import TOOL_NAMES, server_env
from tests.mcpclient import McpClient
from tether_lsp.mcp.cli import MISSING_SDK

COMMAND = Path(sys.executable).parent / "tether-lsp"
MAX_FILE_BYTES = 4096

SOURCE = """import os


class Store:
    def get(self, key):
        return os.environ[key]

    def put(self, key, value):
        os.environ[key] = value
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("root")


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.py").write_text("TOKEN = 'x'\n")
    return folder


@pytest.fixture(scope="module")
def client(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    settings = tmp_path_factory.mktemp("settings") / "tether.json"
    settings.write_text(json.dumps({"tether": {"limits": {"maxFileBytes": MAX_FILE_BYTES}}}))
    params = StdioServerParameters(
        command=str(COMMAND),
        args=["mcp", "--root", str(root), "--settings", str(settings)],
        env=server_env(),
    )
    with McpClient(params) as client:
        yield client


def elsewhere(code: str) -> None:
    """Run Python in another process (a shell, an editor, git: not the server, not this test's process)."""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def write(root: Path, name: str, text: str) -> str:
    (root / name).write_text(text)
    return name


def test_every_tool_over_stdio(client: McpClient, root: Path) -> None:
    path = write(root, "store.py", SOURCE)
    assert [t.name for t in client.tools()] == TOOL_NAMES
    outline = client.ok("outline", {"path": path})
    store = outline["items"][0]
    assert (store["kind"], store["name"], [m["name"] for m in store["children"]]) == ("class", "Store", ["get", "put"])
    names = client.ok(
        "select", {"path": path, "selectors": ["selectMethods", "selectName"], "from": [store["node_id"]]}
    )
    assert [m["text"] for m in names["matches"]] == ["get", "put"]
    read = client.ok("read", {"path": path, "targets": [store["children"][0]["node_id"]]})
    assert read["parts"][0]["text"] == "def get(self, key):\n        return os.environ[key]"
    answer = client.ok(
        "edit",
        {
            "path": path,
            "base_version": read["version"],
            "edits": [
                {
                    "node_id": store["children"][0]["node_id"],
                    "new_text": "def get(self, key):\n        return os.environ.get(key)",
                }
            ],
        },
    )
    assert answer["written"] and answer["results"][0]["status"] == "applied"
    assert "return os.environ.get(key)" in (root / path).read_text()


def test_each_edit_status_with_other_processes_changing_the_file(client: McpClient, root: Path) -> None:
    path = write(root, "status.py", SOURCE)
    base = client.ok("read", {"path": path})["version"]
    elsewhere(f"import pathlib; p = pathlib.Path({str(root / path)!r}); p.write_text('# added\\n' + p.read_text())")
    rebased = client.ok(
        "edit", {"path": path, "base_version": base, "edits": [{"old_text": "class Store:", "new_text": "class Shop:"}]}
    )
    assert rebased["results"][0] == {
        "status": "rebased",
        "range": {"start": {"line": 5, "column": 1}, "end": {"line": 5, "column": 12}},
    }
    elsewhere(
        f"import pathlib; p = pathlib.Path({str(root / path)!r}); p.write_text(p.read_text().replace('os.environ[key] = value', 'os.environ[key] = str(value)'))"
    )
    conflict = client.ok(
        "edit",
        {
            "path": path,
            "base_version": base,
            "edits": [{"old_text": "        os.environ[key] = value", "new_text": "        pass"}],
        },
    )
    assert conflict["results"][0]["status"] == "conflict" and not conflict["written"]
    assert conflict["results"][0]["current_text"] == "        os.environ[key] = str(value)"
    ambiguous = client.ok(
        "edit",
        {
            "path": path,
            "base_version": conflict["version"],
            "edits": [{"old_text": "self, key", "new_text": "self, name"}],
        },
    )
    assert ambiguous["results"][0]["status"] == "ambiguous" and len(ambiguous["results"][0]["candidates"]) == 2


def test_renamed_and_deleted_files(client: McpClient, root: Path) -> None:
    path = write(root, "old_name.py", SOURCE)
    base = client.ok("read", {"path": path})["version"]
    elsewhere(f"import os; os.rename({str(root / path)!r}, {str(root / 'new_name.py')!r})")
    assert client.refused("read", {"path": path}) == "path: old_name.py: no such file (deleted or renamed?)"
    moved = client.ok(
        "edit",
        {
            "path": "new_name.py",
            "base_version": base,
            "edits": [{"old_text": "import os", "new_text": "import os as o"}],
        },
    )
    assert moved["results"][0]["status"] == "applied"
    elsewhere(f"import os; os.remove({str(root / 'new_name.py')!r})")
    message = client.refused(
        "edit", {"path": "new_name.py", "base_version": moved["version"], "edits": [{"old_text": "x", "new_text": "y"}]}
    )
    assert message == "path: new_name.py: no such file (deleted or renamed?)"


def test_paths_out_of_the_root_are_refused(client: McpClient, root: Path, outside: Path) -> None:
    (root / "escape.py").symlink_to(outside / "secret.py")
    for path in (f"../{outside.name}/secret.py", str(outside / "secret.py"), "escape.py"):
        message = client.refused("read", {"path": path})
        assert message.startswith(f"path: {path!r} resolves to {outside / 'secret.py'}, outside the roots ({root})")
    message = client.refused(
        "edit", {"path": "escape.py", "base_version": "000000000000", "edits": [{"old_text": "x", "new_text": "y"}]}
    )
    assert "outside the roots" in message
    assert (outside / "secret.py").read_text() == "TOKEN = 'x'\n"


def test_binary_and_oversized_files_are_refused(client: McpClient, root: Path) -> None:
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert client.refused("read", {"path": "image.png"}).startswith("path: image.png is a binary file")
    write(root, "big.py", "x = 1\n" * (MAX_FILE_BYTES // 6 + 1))
    message = client.refused("outline", {"path": "big.py"})
    assert (
        message
        == f"path: big.py has {6 * (MAX_FILE_BYTES // 6 + 1)} bytes, over tether.limits.maxFileBytes ({MAX_FILE_BYTES})"
    )


def test_crlf_bom_and_non_ascii_columns_survive_a_round_trip(client: McpClient, root: Path) -> None:
    (root / "menu.yaml").write_bytes("\ufeffcafé: 1\r\nthé: 2\r\n".encode())
    match = client.ok(
        "select", {"path": "menu.yaml", "selectors": ["selectPairs", ["filterText", "^thé"], "selectValue"]}
    )
    assert match["matches"][0]["range"] == {"start": {"line": 2, "column": 6}, "end": {"line": 2, "column": 7}}
    answer = client.ok(
        "edit",
        {
            "path": "menu.yaml",
            "base_version": match["version"],
            "edits": [{"range": match["matches"][0]["range"], "new_text": "3\nchocolat: 4"}],
        },
    )
    assert answer["written"]
    assert (root / "menu.yaml").read_bytes() == "\ufeffcafé: 1\r\nthé: 3\r\nchocolat: 4\r\n".encode()


def test_the_language_server_does_not_load_the_mcp_sdk() -> None:
    """Nor the front beyond its settings and attached mode's switch (``tether.mcp.http.enabled`` is off)."""
    front = ("context", "server", "http", "bridge", "attached_source", "tools")
    names = ("mcp", "mcp_types", "starlette", "uvicorn", "pydantic", *(f"tether_lsp.mcp.{m}" for m in front))
    probe = (
        "import sys, tether_lsp.__main__; from tether_lsp.compose import create_server; create_server(); "
        f"print(sorted(m for m in {names!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=server_env())
    assert out.stdout.strip() == "[]"


def test_help_and_a_clear_message_without_the_sdk(tmp_path: Path) -> None:
    help_text = subprocess.run([str(COMMAND), "mcp", "--help"], capture_output=True, text=True, timeout=60)
    assert help_text.returncode == 0 and help_text.stdout.startswith("usage: tether-lsp mcp")
    probe = (
        "import sys; sys.modules['mcp'] = None; from tether_lsp.__main__ import main; "
        f"sys.exit(main(['mcp', '--root', {str(tmp_path)!r}]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=server_env())
    assert out.returncode == 2
    assert MISSING_SDK in out.stderr
    bad_root = subprocess.run(
        [str(COMMAND), "mcp", "--root", str(tmp_path / "nope")], capture_output=True, text=True, timeout=60
    )
    assert bad_root.returncode == 2 and "not a folder" in bad_root.stderr


def test_a_client_of_the_initialize_handshake_sees_camel_case_results(tmp_path: Path) -> None:
    """What Claude Code, Cursor and VS Code send today: newline-delimited JSON-RPC, ``initialize`` at protocol
    2025-06-18, then ``tools/list`` and ``tools/call``; results carry ``structuredContent`` and ``isError``."""
    (tmp_path / "a.py").write_text("def f():\n    pass\n")
    server = subprocess.Popen(
        [str(COMMAND), "mcp", "--root", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server_env(),
    )
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert server.stdin is not None
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()

    def answer(request_id: int) -> dict[str, object]:
        assert server.stdout is not None
        while True:
            message = json.loads(server.stdout.readline())
            if message.get("id") == request_id:
                return message["result"]

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        init = answer(1)
        assert init["protocolVersion"] == "2025-06-18" and "tools" in init["capabilities"]  # type: ignore[operator]
        assert "outline or select" in str(init["instructions"])
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = answer(2)["tools"]
        assert [t["name"] for t in tools] == TOOL_NAMES  # type: ignore[attr-defined]
        assert tools[3]["annotations"]["readOnlyHint"] is False  # type: ignore[index]
        send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "outline", "arguments": {"path": "a.py"}},
            }
        )
        outline = answer(3)
        assert outline["isError"] is False
        assert outline["structuredContent"]["items"][0]["name"] == "f"  # type: ignore[index]
        send(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "read", "arguments": {"path": "/etc/hosts"}},
            }
        )
        refused = answer(4)
        assert refused["isError"] is True and "outside the roots" in refused["content"][0]["text"]  # type: ignore[index]
    finally:
        server.stdin.close()
        assert server.wait(30) == 0
