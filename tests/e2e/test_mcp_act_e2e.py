"""``act`` as agents run it: the installed ``tether-lsp mcp`` over stdio, driven by the official MCP SDK's client,
on files other processes change between calls (as editors, formatters and git do)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from tests.helpers import server_env
from tests.mcpclient import McpClient

COMMAND = Path(sys.executable).parent / "tether-lsp"

SOURCE = """import logging


def notify(user, message, debug=False, retries=3):
    logging.info("→ %s: %s", user, message, stacklevel=2, extra={"débogage": debug})


def greet(name):
    return f"こんにちは {name} 👋"
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("root")


@pytest.fixture(scope="module")
def client(root: Path) -> Iterator[McpClient]:
    params = StdioServerParameters(command=str(COMMAND), args=["mcp", "--root", str(root)], env=server_env())
    with McpClient(params) as client:
        yield client


def write(root: Path, name: str, text: str = SOURCE) -> str:
    (root / name).write_text(text, encoding="utf-8")
    return name


def elsewhere(code: str) -> None:
    """Run Python in another process (not the server, not this test's process)."""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_an_argument_selected_by_node_id_is_removed_with_its_comma(client: McpClient, root: Path) -> None:
    path = write(root, "remove.py")
    found = client.ok(
        "select", {"path": path, "selectors": ["selectCalls", "selectArguments", ["filterText", "^stacklevel"]]}
    )
    assert [m["text"] for m in found["matches"]] == ["stacklevel=2"]
    answer = client.ok(
        "act",
        {
            "path": path,
            "base_version": found["version"],
            "action": "remove",
            "targets": [found["matches"][0]["node_id"]],
        },
    )
    assert (root / path).read_text(encoding="utf-8") == SOURCE.replace(" stacklevel=2,", "")
    assert answer["written"] and [r["status"] for r in answer["results"]] == ["applied"]
    assert answer["produced"] == [{"start": {"line": 5, "column": 45}, "end": {"line": 5, "column": 45}}]
    assert answer["version"] == client.ok("read", {"path": path})["version"]


def test_a_function_is_cloned_and_the_copy_read_back_by_its_produced_range(client: McpClient, root: Path) -> None:
    path = write(root, "clone.py")
    outline = client.ok("outline", {"path": path})
    greet = next(item for item in outline["items"] if item["name"] == "greet")
    text = client.text(
        "act", {"path": path, "base_version": outline["version"], "action": "clone", "targets": [greet["node_id"]]}
    )
    copy = 'def greet(name):\n    return f"こんにちは {name} 👋"\n'
    assert (root / path).read_text(encoding="utf-8") == SOURCE + "\n\n" + copy
    assert text.splitlines()[0].startswith("clone: clone.py: written, now version ")
    assert "produced 12:1-13:29  def greet(name): …" in text.splitlines()
    outline = client.ok("outline", {"path": path})
    assert [item["name"] for item in outline["items"]] == ["notify", "greet", "greet"]


def test_an_action_on_a_stale_base_version_is_rebased_onto_what_another_process_wrote(
    client: McpClient, root: Path
) -> None:
    path = write(root, "stale.py")
    found = client.ok("select", {"path": path, "selectors": ["selectFunctions", "selectParameters"]})
    debug = next(m["node_id"] for m in found["matches"] if m["text"] == "debug=False")
    elsewhere(
        f"import pathlib; p = pathlib.Path({str(root / path)!r}); "
        "p.write_text('\"\"\"Messages.\"\"\"\\n' + p.read_text('utf-8'), 'utf-8')"
    )
    answer = client.ok("act", {"path": path, "base_version": found["version"], "action": "remove", "targets": [debug]})
    assert [r["status"] for r in answer["results"]] == ["rebased"]
    assert (root / path).read_text(encoding="utf-8") == '"""Messages."""\n' + SOURCE.replace(" debug=False,", "")
    assert answer["produced"][0]["start"] == {"line": 5, "column": 27}


def test_an_action_that_does_not_fit_is_refused_naming_the_field(client: McpClient, root: Path) -> None:
    path = write(root, "refused.py")
    outline = client.ok("outline", {"path": path})
    first = outline["items"][0]["node_id"]
    result = client.call(
        "act", {"path": path, "base_version": outline["version"], "action": "swap", "targets": [first]}
    )
    assert result.is_error
    message = result.content[0].text  # type: ignore[union-attr]
    assert message.startswith("targets: swap refused: swap takes two targets"), message
    found = client.ok("select", {"path": path, "selectors": ["selectCalls", "selectArguments"]})
    last = found["matches"][-1]["node_id"]
    message = client.refused(
        "act", {"path": path, "base_version": found["version"], "action": "moveDown", "targets": [last]}
    )
    assert message.startswith("targets[0]: moveDown refused: "), message
    assert (root / path).read_text(encoding="utf-8") == SOURCE
