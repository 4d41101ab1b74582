"""The documentation tells the truth: generated parts are current, examples run as shown, links resolve."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scripts import docgen
from tether_lsp.__main__ import main
from tether_lsp.compose import create_server
from tether_lsp.server.json_converter import make_converter

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").rglob("*.md"))


def test_generated_files_are_current() -> None:
    assert docgen.stale() == [], "run `make docs`"


def test_a_changed_setting_makes_the_generated_files_stale(tmp_path: Path) -> None:
    for rel in (
        "docs/settings.md",
        "docs/protocol.md",
        "docs/selectors.md",
        "docs/agents.md",
        "clients/vscode/package.json",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text((ROOT / rel).read_text())
    schema = (ROOT / "docs/settings.schema.json").read_text()
    (tmp_path / "docs/settings.schema.json").write_text(schema.replace('"default": 0.6', '"default": 0.7', 1))
    assert docgen.stale(tmp_path) == [tmp_path / "docs/settings.schema.json"]


def test_every_setting_has_a_description_and_every_method_a_summary() -> None:
    schema = docgen.settings_schema()

    def settings(properties: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        for name, prop in properties.items():
            nested = prop.get("properties") if prop.get("type") == "object" else None
            yield from settings(nested) if nested is not None else [(name, prop)]

    for section in schema["properties"].values():
        for name, prop in settings(section["properties"]):
            assert prop["markdownDescription"], name
    table = docgen.protocol_methods()
    for spec in create_server().protocol.methods.all():
        if not spec.method.startswith("tether/debug/"):
            row = next(line for line in table.splitlines() if line.startswith(f"| `{spec.method}` |"))
            assert not row.rstrip().endswith("|  |"), f"{spec.method} has no summary"


def _console_examples() -> list[tuple[str, str]]:
    """(command line, expected output) of every ```console block that runs `tether-lsp select`."""
    found = []
    for doc in DOCS:
        for block in re.findall(r"```console\n(.*?)```", doc.read_text(), re.S):
            command, _, output = block.partition("\n")
            if command.startswith("$ tether-lsp select "):
                found.append((command[2:], output))
    return found


@pytest.mark.parametrize(("command", "expected"), _console_examples())
def test_selector_examples_print_what_the_docs_show(
    command: str, expected: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == expected


def _json_messages() -> list[dict[str, Any]]:
    blocks = re.findall(r"```json\n(.*?)```", (ROOT / "docs/protocol.md").read_text(), re.S)
    return [json.loads(b) for b in blocks]


def test_protocol_examples_are_valid_messages_of_their_methods() -> None:
    server = create_server()
    specs = {spec.method: spec for spec in server.protocol.methods.all()}
    converter = make_converter()  # the factory the server's protocol is built with
    requests: dict[int, str] = {}
    checked = set()
    for message in _json_messages():
        if "method" in message and message["method"].startswith("tether/"):
            spec = specs[message["method"]]
            structured = server.protocol.structure_message(message)
            assert type(structured).__name__ != "_Rejected", (message["method"], getattr(structured, "message", ""))
            if spec.sender == "server" and spec.params is not None:
                converter.structure(message["params"], spec.params)
            if "id" in message:
                requests[message["id"]] = message["method"]
            checked.add(message["method"])
        elif "result" in message:
            spec = specs[requests[message["id"]]]
            if spec.result is not None and message["result"] is not None:
                converter.structure(message["result"], spec.result)
    assert len(checked) >= 15


def test_links_between_docs_resolve_and_nothing_points_outside_the_repository() -> None:
    for doc in [ROOT / "README.md", ROOT / "CHANGELOG.md", *DOCS]:
        text = doc.read_text()
        assert "shared/" not in text, doc
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if not target.startswith(("http://", "https://")):
                assert (doc.parent / target).resolve().exists(), f"{doc.relative_to(ROOT)} links to {target}"
