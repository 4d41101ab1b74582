"""``tether/analyzeReplacement`` over stdio: the wire shape of its result (as docs/protocol.md shows it), versions,
positions, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, change_doc, open_doc, raw_request, server_config

#: Two methods separated by one blank line: the second is rewritten from a line opened above it.
SHAPES = """class Shapes:
    def area(self):
        return 1

    def side(self):
        return 2
"""
SIDE = "def side(self):\n        return 3"

SITE = """- hosts: all
  tasks:
    - name: Get cpu count for worker
      become: true
      shell:

        command: >-
          "{{ old command that should be deleted }}"
        register: old_result
      when: ready
"""
COMPLETION = '        command: >-\n          "{{ working_dir }}/oc get nodes"\n        register: r'


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient, tmp_path: Path):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=tmp_path.as_uri()))
    yield
    await lsp_client.shutdown_session()


def pos(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


async def analyze(client: LanguageClient, uri: str, line: int, char: int, completion: str, **extra: Any) -> Any:
    params = {"textDocument": {"uri": uri, **extra.pop("doc", {})}, "position": pos(line, char)}
    return await raw_request(client, "tether/analyzeReplacement", {**params, "completion": completion, **extra})


async def test_a_blank_line_under_shell_replaces_its_children_on_the_wire(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = (tmp_path / "site.yml").as_uri()
    open_doc(client, uri, SITE, "ansible", version=12)
    result = await analyze(client, uri, 5, 0, COMPLETION, doc={"version": 12})
    assert result == {
        "mode": "replace",
        "replaceRange": {"start": pos(6, 0), "end": pos(8, 28)},
        "replacedText": '        command: >-\n          "{{ old command that should be deleted }}"\n        register: old_result',
        "edit": {"range": {"start": pos(5, 0), "end": pos(8, 28)}, "newText": COMPLETION},
        "insertText": COMPLETION,
        "confidence": 1.0,
        "showVisualDiff": True,
        "replacedLines": 3,
        "logicalUnit": {"type": "yaml-key-value-block", "identifier": "command", "column": 8},
        "strategy": "positional-children",
        "reason": "blank line under 'shell:' replaces its children block",
        "version": 12,
        "warning": None,
    }


async def test_an_insert_on_the_wire(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "site.yml").as_uri()
    open_doc(client, uri, SITE, "yaml")
    result = await analyze(client, uri, 5, 0, COMPLETION, options={"enableReplacements": False})
    assert result == {
        "mode": "insert",
        "replaceRange": None,
        "replacedText": None,
        "edit": {"range": {"start": pos(5, 0), "end": pos(5, 0)}, "newText": COMPLETION},
        "insertText": COMPLETION,
        "confidence": 0.0,
        "showVisualDiff": False,
        "replacedLines": 0,
        "logicalUnit": None,
        "strategy": None,
        "reason": "disabled",
        "version": 1,
        "warning": None,
    }


async def test_utf16_positions_after_non_ascii(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "m.py").as_uri()
    text = 'def load(path):  # café 東京 🚀\n    return 1\n\nx = "🚀"; y = 2\n'
    open_doc(client, uri, text)
    # the cursor after `y = ` on line 3: 🚀 is 2 UTF-16 units
    result = await analyze(client, uri, 3, 14, "3")
    assert result["mode"] == "insert"
    assert result["edit"]["range"] == {"start": pos(3, 14), "end": pos(3, 14)}
    result = await analyze(client, uri, 2, 0, "def load(path):\n    return 2")
    assert result["replaceRange"] == {"start": pos(0, 0), "end": pos(1, 12)}
    assert result["replacedText"] == "def load(path):  # café 東京 🚀\n    return 1"


async def test_settings_and_per_request_options(tmp_path: Path) -> None:
    from pytest_lsp import ClientServerConfig

    config: ClientServerConfig = server_config()
    lsp: Any = await config.start()
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=tmp_path.as_uri(),
            initialization_options={"tether": {"completion": {"enableReplacements": False}}},
        )
    )
    try:
        uri = (tmp_path / "site.yml").as_uri()
        open_doc(lsp, uri, SITE, "yaml")
        assert (await analyze(lsp, uri, 5, 0, COMPLETION))["reason"] == "disabled"
        result = await analyze(lsp, uri, 5, 0, COMPLETION, options={"enableReplacements": True})
        assert result["mode"] == "replace"
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


@pytest.mark.parametrize(
    ("change", "code", "message"),
    [
        ({"doc": {"version": 3}}, -32801, "version 3 of"),
        ({"line": 40}, -32602, "position: line 40 is outside the document"),
        ({"options": {"minConfidence": 1.5}}, -32602, "options.minConfidence: must lie in [0, 1]"),
        ({"options": {"minConfidence": "high"}}, -32602, "options.minConfidence"),
        ({"completion": 7}, -32602, "completion: expected a string"),
    ],
)
async def test_bad_input(
    client: LanguageClient, tmp_path: Path, change: dict[str, Any], code: int, message: str
) -> None:
    uri = (tmp_path / "site.yml").as_uri()
    open_doc(client, uri, SITE, "yaml")
    change_doc(client, uri, 2, "# top\n", (0, 0), (0, 0))
    params: dict[str, Any] = {"textDocument": {"uri": uri, **change.get("doc", {})}}
    params["position"] = pos(change.get("line", 6), 0)
    params["completion"] = change.get("completion", COMPLETION)
    if "options" in change:
        params["options"] = change["options"]
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, "tether/analyzeReplacement", params)
    assert info.value.code == code
    assert message in str(info.value.message)
    # and the server still answers
    assert (await analyze(client, uri, 6, 0, COMPLETION))["mode"] == "replace"


async def test_a_character_past_the_line_end_is_clamped(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "site.yml").as_uri()
    open_doc(client, uri, SITE, "yaml")
    result = await analyze(client, uri, 5, 99, COMPLETION)
    assert result["mode"] == "replace"


async def test_a_document_that_is_not_open(client: LanguageClient, tmp_path: Path) -> None:
    with pytest.raises(JsonRpcException) as info:
        await analyze(client, (tmp_path / "nope.yml").as_uri(), 0, 0, "a: 1")
    assert info.value.code == -32602
    assert "textDocument.uri" in str(info.value.message)


async def test_a_language_without_replacement_rules_is_named_in_the_reason(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = (tmp_path / "main.rs").as_uri()
    open_doc(client, uri, "fn main() {\n    \n}\n", "rust")
    result = await analyze(client, uri, 1, 4, 'println!("hi");')
    assert result["mode"] == "insert"
    assert result["reason"] == "no replacement rules for language 'rust'"


def applied(text: str, edit: dict[str, Any]) -> str:
    """``text`` with an LSP edit applied (ASCII text: characters are UTF-16 units)."""
    lines = text.split("\n")
    start, end = edit["range"]["start"], edit["range"]["end"]
    a = sum(len(line) + 1 for line in lines[: start["line"]]) + start["character"]
    b = sum(len(line) + 1 for line in lines[: end["line"]]) + end["character"]
    return text[:a] + edit["newText"] + text[b:]


@pytest.mark.parametrize(
    ("opened", "cursor"),
    [
        ("\n\n    \n    def side", (4, 4)),  # a line opened above the method: it goes
        ("\n    \n    def side", (3, 4)),  # the separator, spaces typed on it: it stays, empty
    ],
)
async def test_the_opened_line_goes_the_separator_stays_on_the_wire(
    client: LanguageClient, tmp_path: Path, opened: str, cursor: tuple[int, int]
) -> None:
    """Accepting the rewrite of the method under the cursor leaves one blank line between the methods,
    neither the line opened for it nor its spaces."""
    uri = (tmp_path / "shapes.py").as_uri()
    doc = SHAPES.replace("\n\n    def side", opened)
    open_doc(client, uri, doc)
    result = await analyze(client, uri, *cursor, SIDE)
    assert (result["mode"], result["replacedText"]) == ("replace", "    def side(self):\n        return 2")
    assert applied(doc, result["edit"]) == SHAPES.replace("return 2", "return 3")


async def test_a_completion_that_would_end_the_class_early_on_the_wire(client: LanguageClient, tmp_path: Path) -> None:
    """On a line with no indentation in a class body: the method below written at column 0 is re-indented into the
    class and replaces it; what fits at neither column comes with a warning."""
    uri = (tmp_path / "shapes.py").as_uri()
    doc = SHAPES.replace("\n\n    def side", "\n\n\n    def side")
    open_doc(client, uri, doc)
    result = await analyze(client, uri, 4, 0, "def side(self):\n    return 3")
    assert result["mode"] == "replace" and result["warning"] is None
    assert result["reason"].startswith("re-indented to column 4"), result["reason"]
    assert applied(doc, result["edit"]) == SHAPES.replace("return 2", "return 3")
    result = await analyze(client, uri, 4, 0, "else:\n    pass")
    assert result["mode"] == "insert"
    assert "would end the enclosing block early" in result["warning"] and result["reason"] == result["warning"]
