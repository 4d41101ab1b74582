"""``act`` through the SDK's client: each kind of target (node ids from select and outline, ranges), the action's
text written like ``edit``'s (rebased on a file changed since, nothing written on a conflict), the produced ranges
in the version written, refusals naming the argument; and the adapter's own conversion of produced spans."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.mcpclient import McpClient
from tests.unit.mcp.conftest import context_with
from tether_lsp.handlers.actions.model import Outcome, Replace
from tether_lsp.handlers.actions.service import ACTIONS
from tether_lsp.handlers.actions.wrap import WRAPPERS
from tether_lsp.mcp import tools
from tether_lsp.mcp.act import produced_spans
from tether_lsp.mcp.server import build

SOURCE = """import os


def report(name, café, debug=True):
    print(name, café, debug=debug)


def done():
    return "✓ 完了 🎉"
"""


def make(root: Path, name: str = "m.py", text: str = SOURCE) -> str:
    (root / name).write_bytes(text.encode("utf-8"))
    return name


def arguments(client: McpClient, path: str) -> tuple[str, dict[str, int]]:
    """The version and the node id of each argument of the call in SOURCE, by its text."""
    found = client.ok("select", {"path": path, "selectors": ["selectCalls", "selectArguments"]})
    return found["version"], {m["text"]: m["node_id"] for m in found["matches"]}


def functions(client: McpClient, path: str) -> tuple[str, dict[str, int]]:
    outline = client.ok("outline", {"path": path})
    return outline["version"], {item["name"]: item["node_id"] for item in outline["items"]}


def at(line: int, column: int) -> dict[str, int]:
    return {"line": line, "column": column}


def test_the_tool_offers_what_the_engine_does() -> None:
    assert tools.ACTIONS == ACTIONS and tools.WRAPPERS == WRAPPERS
    assert len(tools.TOOLS) <= 12


def test_an_argument_named_by_select_is_removed_with_its_comma(client: McpClient, root: Path) -> None:
    path = make(root)
    version, ids = arguments(client, path)
    answer = client.ok("act", {"path": path, "base_version": version, "action": "remove", "targets": [ids["café"]]})
    assert (root / path).read_text() == SOURCE.replace("print(name, café, debug", "print(name, debug")
    assert answer["written"] and [r["status"] for r in answer["results"]] == ["applied"]
    assert answer["produced"] == [{"start": at(5, 17), "end": at(5, 17)}]  # where the argument was
    assert answer["version"] == client.ok("read", {"path": path})["version"] != version
    text = client.text(
        "act",
        {
            "path": path,
            "base_version": answer["version"],
            "action": "remove",
            "targets": [
                client.ok("select", {"path": path, "selectors": ["selectCalls", "selectArguments"]})["matches"][-1][
                    "node_id"
                ]
            ],
        },
    )
    assert text.splitlines()[0].startswith("remove: m.py: written, now version ")
    assert (root / path).read_text() == SOURCE.replace("print(name, café, debug=debug)", "print(name)")


def test_every_target_of_a_select_goes_in_one_write(client: McpClient, root: Path) -> None:
    path = make(root)
    version, ids = arguments(client, path)
    answer = client.ok(
        "act", {"path": path, "base_version": version, "action": "remove", "targets": list(ids.values())}
    )
    assert "    print()\n" in (root / path).read_text()
    assert answer["written"] and all(r["status"] == "applied" for r in answer["results"])


def test_a_cloned_function_is_written_and_its_copy_is_the_produced_range(client: McpClient, root: Path) -> None:
    path = make(root)
    version, ids = functions(client, path)
    result = client.call("act", {"path": path, "base_version": version, "action": "clone", "targets": [ids["done"]]})
    assert not result.is_error and isinstance(result.structured_content, dict)
    copy = '\n\ndef done():\n    return "✓ 完了 🎉"\n'
    assert (root / path).read_text() == SOURCE + copy
    assert result.structured_content["produced"] == [{"start": at(12, 1), "end": at(13, 20)}]
    assert "produced 12:1-13:20  def done(): …" in result.content[0].text  # type: ignore[union-attr]
    parts = client.ok("read", {"path": path, "targets": result.structured_content["produced"]})["parts"]
    assert parts[0]["text"] == 'def done():\n    return "✓ 完了 🎉"'


def test_clone_before_and_ranges_as_targets(client: McpClient, root: Path) -> None:
    path = make(root, text="xs = [1, 'é', 3]\n")
    version = client.ok("read", {"path": path})["version"]
    element = {"start": at(1, 10), "end": at(1, 11)}  # inside 'é': the element holding it
    answer = client.ok(
        "act", {"path": path, "base_version": version, "action": "clone", "targets": [element], "after": False}
    )
    assert (root / path).read_text() == "xs = [1, 'é', 'é', 3]\n"
    assert answer["produced"] == [{"start": at(1, 10), "end": at(1, 13)}]


def test_an_action_on_an_older_version_is_rebased_onto_the_file_as_it_is(client: McpClient, root: Path) -> None:
    path = make(root)
    version, ids = arguments(client, path)
    (root / path).write_text("# a header someone added\n" + SOURCE)
    answer = client.ok("act", {"path": path, "base_version": version, "action": "remove", "targets": [ids["name"]]})
    assert [r["status"] for r in answer["results"]] == ["rebased"]
    assert (root / path).read_text() == "# a header someone added\n" + SOURCE.replace("print(name, ", "print(")
    assert answer["produced"] == [{"start": at(6, 11), "end": at(6, 11)}]


def test_an_action_whose_code_was_changed_since_writes_nothing(client: McpClient, root: Path) -> None:
    path = make(root)
    version, ids = arguments(client, path)
    changed = SOURCE.replace("print(name, café, debug=debug)", "print(name, café, debug=False)")
    (root / path).write_text(changed)
    answer = client.ok(
        "act", {"path": path, "base_version": version, "action": "remove", "targets": [ids["debug=debug"]]}
    )
    assert not answer["written"] and answer["produced"] == []
    assert answer["results"][0]["status"] == "conflict"
    assert (root / path).read_text() == changed


def test_a_bring_into_another_file_writes_that_file_and_a_move_there_is_refused(client: McpClient, root: Path) -> None:
    path = make(root)
    other = make(root, "other.py", "def first():\n    pass\n")
    version, ids = functions(client, path)
    goal_version, goal_ids = functions(client, other)
    given = {"path": path, "base_version": version, "targets": [ids["done"]], "destination": goal_ids["first"]}
    refused = client.refused("act", {**given, "action": "move", "destination_path": other})
    assert refused.startswith("destination_path: move into another file would write two files")
    answer = client.ok(
        "act", {**given, "action": "bring", "destination_path": other, "destination_version": goal_version}
    )
    assert answer["path"] == other and answer["written"]
    assert (root / other).read_text() == 'def first():\n    pass\n\n\ndef done():\n    return "✓ 完了 🎉"\n'
    assert (root / path).read_text() == SOURCE
    assert answer["produced"] == [{"start": at(5, 1), "end": at(6, 20)}]


def test_refusals_name_the_argument_and_write_nothing(client: McpClient, root: Path) -> None:
    path = make(root)
    version, ids = functions(client, path)
    call = {"path": path, "base_version": version}
    message = client.refused("act", {**call, "action": "moveDown", "targets": [ids["done"]]})
    assert message.startswith("targets[0]: moveDown refused: "), message
    message = client.refused("act", {**call, "action": "swap", "targets": [ids["report"]]})
    assert message.startswith("targets: swap refused: swap takes two targets"), message
    message = client.refused("act", {**call, "action": "move", "targets": [ids["done"]], "destination": 10**9})
    assert message.startswith("destination: node 1000000000 is not a node of m.py at version"), message
    message = client.refused("act", {**call, "action": "chuck", "targets": [ids["done"]]})
    assert message.startswith("action: expected one of remove, clone"), message
    message = client.refused("act", {**call, "action": "clone", "targets": [ids["done"]], "after": 1})
    assert message == "after: expected a boolean, got a number"
    message = client.refused("act", {**call, "action": "wrap", "targets": [ids["done"]], "wrapper": "for"})
    assert message.startswith("wrapper: expected one of try, with, if, call")
    message = client.refused("act", {**call, "base_version": "0" * 12, "action": "remove", "targets": [ids["done"]]})
    assert message.startswith("base_version: 000000000000 is not a version of m.py handed out"), message
    assert (root / path).read_text() == SOURCE


def test_wrap_answers_the_placeholder_to_type_over(client: McpClient, root: Path) -> None:
    path = make(root, text="def f():\n    x = 1\n    return x\n")
    found = client.ok("select", {"path": path, "selectors": ["selectFunctions", "selectStatements"]})
    first = next(m["node_id"] for m in found["matches"] if m["text"] == "x = 1")
    answer = client.ok(
        "act",
        {
            "path": path,
            "base_version": found["version"],
            "action": "wrap",
            "targets": [first],
            "wrapper": "if",
            "placeholder": "ready",
        },
    )
    assert (root / path).read_text() == "def f():\n    if ready:\n        x = 1\n    return x\n"
    assert answer["produced"] == [{"start": at(2, 8), "end": at(2, 13)}]


def test_crlf_and_a_byte_order_mark_are_kept(client: McpClient, root: Path) -> None:
    text = "\ufeffitems = [\r\n    'naïve',\r\n    '東京',\r\n]\r\n"
    path = make(root, "crlf.py", text)
    found = client.ok("select", {"path": path, "selectors": ["selectStrings"]})
    answer = client.ok(
        "act",
        {
            "path": path,
            "base_version": found["version"],
            "action": "moveUp",
            "targets": [found["matches"][1]["node_id"]],
        },
    )
    assert (root / path).read_bytes() == "\ufeffitems = [\r\n    '東京',\r\n    'naïve',\r\n]\r\n".encode()
    assert answer["produced"] == [{"start": at(2, 5), "end": at(2, 9)}]


def test_the_targets_named_are_bounded_by_the_actions_setting(root: Path) -> None:
    path = make(root)
    with McpClient(build(context_with(root, actions={"maxTargets": 2}))) as client:
        version, ids = arguments(client, path)
        message = client.refused(
            "act", {"path": path, "base_version": version, "action": "remove", "targets": list(ids.values())}
        )
    assert message == "targets: 3 targets named, more than tether.actions.maxTargets (2)"


def spans(outcome: Outcome, written: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    return produced_spans(outcome, written)


def test_produced_spans_land_where_their_replacement_was_written() -> None:
    # base "abcdefghij": "cd" -> "XYZ" (2..4), "h" removed (7..8), "QQ" inserted at 10
    outcome = Outcome(
        (Replace(2, 4, b"XYZ"), Replace(7, 8, b""), Replace(10, 10, b"QQ")),
        ((3, 5), (8, 8), (11, 12)),  # "YZ", the removal's place, the second Q (after: "abXYZefgijQQ")
    )
    assert spans(outcome, {0: (2, 5), 1: (8, 8), 2: (11, 13)}) == [(3, 5), (8, 8), (12, 13)]
    # the file had 5 more bytes before the first and 2 between the second and the third when it was written
    assert spans(outcome, {0: (7, 10), 1: (13, 13), 2: (18, 20)}) == [(8, 10), (13, 13), (19, 20)]


def test_a_produced_span_past_what_was_written_there_is_cut_to_it() -> None:
    outcome = Outcome((Replace(0, 1, b"abc"),), ((1, 3),))
    assert spans(outcome, {0: (0, 2)}) == [(1, 2)]  # merged with a user's edit into 2 bytes


def test_an_action_that_would_grow_the_file_past_the_limit_is_refused_as_its_targets(root: Path) -> None:
    path = make(root)
    with McpClient(build(context_with(root, limits={"maxFileBytes": len(SOURCE.encode()) + 10}))) as client:
        version, ids = functions(client, path)
        message = client.refused(
            "act", {"path": path, "base_version": version, "action": "clone", "targets": [ids["report"]]}
        )
    assert message.startswith("targets: the file would have "), message
    assert (root / path).read_text() == SOURCE


PROBE = """
import sys, pathlib
from tests.mcpclient import McpClient
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.server import build
root = pathlib.Path(sys.argv[1])
engine = lambda: sorted(m for m in sys.modules if m.startswith("tether_lsp.handlers.actions.") and m != "tether_lsp.handlers.actions.settings")
with McpClient(build(Context([root]))) as client:
    client.tools()
    outline = client.ok("outline", {"path": "m.py"})
    print(engine())
    client.ok("act", {"path": "m.py", "base_version": outline["version"], "action": "clone", "targets": [outline["items"][0]["node_id"]]})
    print("tether_lsp.handlers.actions.service" in engine())
"""


def test_the_actions_engine_loads_at_the_first_act_not_before(root: Path) -> None:
    make(root)
    repo = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(root)], capture_output=True, text=True, check=True, timeout=120, cwd=repo
    )
    assert out.stdout.split("\n")[:2] == ["[]", "True"], out.stderr
