"""The tool table as agents see it, and ``outline``, ``select`` and ``read`` through the SDK's client: node ids
shared between tools, 1-based character columns, stale ids, the answer size limit, refusals; the table's rows
against their adapters, and the arguments checked from their declarations before an adapter runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import TOOL_NAMES
from tests.mcpclient import McpClient
from tests.unit.mcp.conftest import context_with
from tether_lsp.handlers.markers.kinds import DEFAULT_KIND, KINDS
from tether_lsp.handlers.selectors.vocabulary import SELECTORS
from tether_lsp.mcp.args import Arg, Array, NodeOrRange, Text
from tether_lsp.mcp.context import Answer, Context
from tether_lsp.mcp.server import build
from tether_lsp.mcp.settings import schema
from tether_lsp.mcp.tools import MAX_DESCRIPTION, TOOLS, Runs, Tool
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.settings import LimitSettings

SOURCE = '''import functools


@functools.cache
async def fetch(url):
    return url


class Café:
    """Prices in €."""

    def price(self, n):
        return n * 2

    @property
    def name(self):
        return "café"
'''


def test_tools_list_names_every_tool_with_a_short_description_and_hints(client: McpClient) -> None:
    listed = {tool.name: tool for tool in client.tools()}
    assert list(listed) == TOOL_NAMES == [t.name for t in TOOLS]
    for tool in listed.values():
        assert tool.description and len(tool.description) <= MAX_DESCRIPTION
        assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False
        hints = tool.annotations
        changes = ("edit", "act", "note_add", "note_update", "note_delete", "run_prompt")
        assert hints is not None and hints.read_only_hint is (tool.name not in changes)
        # run_prompt adds a run to the history only, note_add a note
        assert hints.destructive_hint is (tool.name in ("edit", "act", "note_update", "note_delete"))
        assert hints.open_world_hint is (tool.name == "run_prompt")  # it calls a model


def test_outline_nests_classes_methods_and_decorated_async_functions(client: McpClient, root: Path) -> None:
    (root / "c.py").write_text(SOURCE)
    answer = client.ok("outline", {"path": "c.py"})
    assert answer["language"] == "python"
    shape = [(i["kind"], i["name"], [(c["kind"], c["name"]) for c in i.get("children", [])]) for i in answer["items"]]
    assert shape == [("function", "fetch", []), ("class", "Café", [("method", "price"), ("method", "name")])]
    fetch = answer["items"][0]
    assert fetch["range"] == {"start": {"line": 4, "column": 1}, "end": {"line": 6, "column": 15}}  # the decorator too
    read = client.ok("read", {"path": "c.py", "targets": [answer["items"][1]["children"][0]["node_id"]]})
    assert read["parts"][0]["text"] == "def price(self, n):\n        return n * 2"
    assert read["version"] == answer["version"]


def test_outline_of_yaml_lists_documents_and_nested_keys(client: McpClient, root: Path) -> None:
    (root / "c.yaml").write_text("a: 1\nb:\n  c: 2\n---\nd: 3\n")
    items = client.ok("outline", {"path": "c.yaml"})["items"]
    assert [(i["kind"], i["name"]) for i in items] == [("document", "document 1"), ("document", "document 2")]
    keys = items[0]["children"]
    assert [(k["name"], [c["name"] for c in k.get("children", [])]) for k in keys] == [("a", []), ("b", ["c"])]


def test_columns_are_one_based_characters(client: McpClient, root: Path) -> None:
    (root / "u.py").write_text('s = "日本語🙂"; t = 1\n')  # t is the 13th character (🙂 is one, not two or four)
    match = client.ok("select", {"path": "u.py", "selectors": ["selectAssignments", ["filterText", "^t"]]})["matches"]
    assert match[0]["range"] == {"start": {"line": 1, "column": 13}, "end": {"line": 1, "column": 18}}
    read = client.ok("read", {"path": "u.py", "targets": [match[0]["range"]]})
    assert read["parts"][0]["text"] == "t = 1"
    at = client.ok("select", {"path": "u.py", "selectors": [["selectAt", 1, 13]]})["matches"]
    assert at[0]["text"] == "t"


def test_select_chains_from_node_ids_and_says_when_they_are_stale(client: McpClient, root: Path) -> None:
    (root / "c.py").write_text(SOURCE)
    classes = client.ok("select", {"path": "c.py", "selectors": ["selectClasses"]})["matches"]
    names = client.ok(
        "select", {"path": "c.py", "selectors": ["selectMethods", "selectName"], "from": [classes[0]["node_id"]]}
    )
    assert [m["text"] for m in names["matches"]] == ["price", "name"]
    (root / "c.py").write_text(SOURCE + "\n\nx = 1\n")
    text = client.text("select", {"path": "c.py", "selectors": ["selectMethods"], "from": [classes[0]["node_id"]]})
    assert "0 matches" in text and "1 node id in `from` is not of this version" in text
    message = client.refused("read", {"path": "c.py", "targets": [classes[0]["node_id"]]})
    assert message.startswith(f"targets[0]: node {classes[0]['node_id']} is not a node of c.py at version")


def test_select_refusals_name_the_step_and_the_argument(client: McpClient, root: Path) -> None:
    (root / "c.py").write_text(SOURCE)

    def refused(selectors: object) -> str:
        return client.refused("select", {"path": "c.py", "selectors": selectors})

    assert refused(["selectFunction"]).startswith("selectors[0]: unknown selector 'selectFunction' (did you mean")
    assert refused(["selectClasses", ["filterText", "("]]).startswith("selectors[1]: args[0]: invalid regular")
    assert refused(["selectClasses", ["filterText", "a" * 2000]]).startswith("selectors[1]: args[0]:")
    assert refused([["selectAt", 0, 1]]) == "selectors[0][1]: expected at least 1, got 0"
    assert refused([3]).startswith("selectors[0]: expected a selector name or [name, ...arguments], got a number")
    assert refused([]).startswith("selectors: empty")
    assert len(SELECTORS) == 47


def test_files_tether_does_not_parse_are_read_but_not_outlined(client: McpClient, root: Path) -> None:
    (root / "notes.txt").write_text("line one\nline two\n")
    assert client.refused("outline", {"path": "notes.txt"}).startswith("path: notes.txt is not a Python or YAML file")
    part = client.ok(
        "read", {"path": "notes.txt", "targets": [{"start": {"line": 2, "column": 6}, "end": {"line": 3, "column": 1}}]}
    )
    assert part["parts"][0]["text"] == "two\n"


def test_an_answer_over_the_size_limit_is_refused_saying_how_to_ask_for_less(root: Path) -> None:
    (root / "big.py").write_text("x = 1\n" * 400)
    with McpClient(build(context_with(root, mcp={"maxResponseBytes": 1024}))) as client:
        message = client.refused("read", {"path": "big.py"})
        assert message.startswith("the answer would be") and "over tether.mcp.maxResponseBytes (1024)" in message
        part = client.ok(
            "read",
            {"path": "big.py", "targets": [{"start": {"line": 3, "column": 1}, "end": {"line": 4, "column": 1}}]},
        )
        assert part["parts"][0]["text"] == "x = 1\n"


def test_unknown_tools_and_arguments_are_refused(client: McpClient, root: Path) -> None:
    (root / "c.py").write_text(SOURCE)
    assert client.refused("delete", {"path": "c.py"}).startswith("name: unknown tool 'delete' (tools: outline, select")
    assert client.refused("read", {"path": "c.py", "target": [1]}).startswith("target: unknown argument")
    assert client.refused("read", {}) == "path: missing (a string is required)"
    assert client.refused("read", {"path": 3}) == "path: expected a string, got a number"


def test_the_note_tools_offer_the_markers_kinds(client: McpClient) -> None:
    listed = {tool.name: tool for tool in client.tools()}
    for name in ("note_add", "note_update"):
        kind = listed[name].input_schema["properties"]["kind"]
        assert kind["enum"] == list(KINDS) and kind["description"] == f"default: {DEFAULT_KIND}"


def test_every_row_agrees_with_its_adapter() -> None:
    assert {tool.name: tool.problem() for tool in TOOLS} == {tool.name: None for tool in TOOLS}
    assert [tool.name for tool in TOOLS if tool.runs == "async"] == ["run_prompt"]


def test_a_row_contradicting_its_adapter_is_found() -> None:
    def plain(context: Context, *, path: str) -> Answer:
        return Answer({}, path)

    async def coroutine(context: Context, progress: object, *, path: str) -> Answer:
        return Answer({}, path)

    path = Arg("path", Text(), required=True)

    def problem(run: Callable[..., Any], runs: Runs = "worker", *args: Arg) -> str | None:
        return Tool("t", "", args or (path,), "", run, runs=runs).problem()

    assert problem(plain) is None and problem(coroutine, "async") is None
    assert problem(plain, "async") == "runs 'async' but its adapter is not a coroutine function"
    assert problem(coroutine) == "runs in a worker but its adapter is a coroutine function (declare runs='async')"
    assert "the row declares {'path': True, 'kind': False}" in str(problem(plain, "worker", path, Arg("kind", Text())))
    assert "the row declares {'path': False}" in str(problem(plain, "worker", Arg("path", Text())))


def test_the_table_checks_the_arguments_before_the_adapter_runs(root: Path) -> None:
    given: list[dict[str, Any]] = []

    def adapter(context: Context, *, path: str, targets: list[Any] | None = None, from_: Any = "default") -> Answer:
        given.append({"path": path, "targets": targets, "from_": from_})
        return Answer({}, "")

    args = (Arg("path", Text(), required=True), Arg("targets", Array({})), Arg("from", Array({}), null_refused=True))
    tool = Tool("t", "", args, "", adapter)
    context = Context([root])

    def refused(arguments: dict[str, Any]) -> str:
        with pytest.raises(InvalidParams) as caught:
            tool.answer(context, arguments)
        return caught.value.message

    assert refused({"path": 3}) == "path: expected a string, got a number"
    assert refused({"path": None}) == "path: missing (a string is required)"
    assert refused({"path": "a", "pth": 1}) == "pth: unknown argument (expected path, targets, from)"
    assert refused({"path": "a", "targets": {}}) == "targets: expected an array, got an object"
    assert refused({"path": "a", "from": None}) == "from: expected an array, got null"  # as select always answered
    assert given == []  # nothing refused reached the adapter
    tool.answer(context, {"path": "a", "targets": None})  # null reads as absent: the adapter's default holds
    tool.answer(context, {"path": "b", "from": [1]})
    assert given == [
        {"path": "a", "targets": None, "from_": "default"},
        {"path": "b", "targets": None, "from_": [1]},
    ]


def test_a_target_is_a_node_id_or_a_range_also_as_json_text() -> None:
    shape, settings = NodeOrRange(), schema().parse()[0].section(LimitSettings)
    assert shape.check("12", "target", settings) == 12
    assert shape.check('{"start": {}}', "target", settings) == {"start": {}}
    assert shape.check(2.5, "target", settings) == 2.5  # the node lookup refuses it, naming the target
    for value, kind in (("true", "a string"), ("x", "a string"), (True, "a boolean"), ([1], "an array")):
        with pytest.raises(InvalidParams) as caught:
            shape.check(value, "target", settings)
        assert caught.value.message == f"target: expected a node id or a range, got {kind}"
