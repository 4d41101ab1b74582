"""docs/agents.md tells the truth: its session is replayed call by call against a real agents' front, and every
answer must be the one shown (node ids, prompt ids and note ids are matched by position: node ids depend on what the
process parsed before, prompt and note ids are drawn at random; a note's ``created_at`` is the time it was made, so
only its form is checked). ``run_prompt`` runs against the fake model server, told to
answer word by word what the page shows the model answering."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.fakemodel import Answer, RunningModel
from tests.mcpclient import McpClient
from tests.unit.mcp.conftest import context_with
from tether_lsp.mcp.server import build

DOC = Path(__file__).resolve().parents[3] / "docs" / "agents.md"
STEP = re.compile(r"<!-- example: (file \S+|call|answer|error) -->\n```\w*\n(.*?)```", re.S)
SHOWN_ROOT, SHOWN_HOME = "/home/me/project", "/home/me"


def steps() -> list[tuple[str, str]]:
    return [(kind, body) for kind, body in STEP.findall(DOC.read_text(encoding="utf-8"))]


def same(shown: Any, actual: Any, ids: dict[Any, Any], where: str = "answer") -> None:
    """``actual`` is ``shown`` once the shown node and prompt ids are mapped to the actual ones (learned on the
    way)."""
    if isinstance(shown, dict):
        assert isinstance(actual, dict) and list(shown) == list(actual), f"{where}: {actual!r}"
        for key, value in shown.items():
            if (key in ("node_id", "target") and isinstance(value, int)) or key in ("prompt_id", "id"):
                assert ids.setdefault(value, actual[key]) == actual[key], f"{where}.{key}"
            elif key == "created_at":
                assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", actual[key]), f"{where}.{key}"
            else:
                same(value, actual[key], ids, f"{where}.{key}")
    elif isinstance(shown, list):
        assert isinstance(actual, list) and len(shown) == len(actual), f"{where}: {actual!r}"
        for k, (a, b) in enumerate(zip(shown, actual, strict=True)):
            same(a, b, ids, f"{where}[{k}]")
    else:
        assert shown == actual, f"{where}: shown {shown!r}, got {actual!r}"


def mapped(arguments: Any, ids: dict[Any, Any], key: str = "") -> Any:
    """The call's arguments with the shown node and prompt ids replaced by the actual ones."""
    if isinstance(arguments, dict):
        return {k: mapped(v, ids, k) for k, v in arguments.items()}
    if isinstance(arguments, list):
        return [mapped(v, ids, key) for v in arguments]
    if (isinstance(arguments, int) and key in ("node_id", "from", "targets")) or key in ("prompt_id", "id"):
        return ids[arguments]
    return arguments


def test_the_session_shown_is_what_the_server_answers(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    found = steps()
    assert [kind for kind, _ in found].count("call") >= 8
    ids: dict[Any, Any] = {}
    runs = [json.loads(body) for kind, body in found if kind == "answer" and "finish_reason" in json.loads(body)]
    words = [re.findall(r"\S+\s*", run["output"]) for run in runs]
    model = runs[0]["model"] if runs else "none"
    with (
        RunningModel(*[Answer(chunks=w) for w in words]) as fake,
        McpClient(build(context_with(root, playground={"endpoint": fake.url("/v1"), "model": model}))) as client,
    ):
        result = None
        for kind, body in found:
            if kind.startswith("file "):
                target = root / kind.split(" ", 1)[1]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(body)
            elif kind == "call":
                call = json.loads(body)
                result = client.call(call["tool"], mapped(call["arguments"], ids))
            elif kind == "answer":
                assert result is not None and not result.is_error, result
                same(json.loads(body), result.structured_content, ids)
            else:
                assert result is not None and result.is_error
                text = result.content[0].text  # type: ignore[union-attr]
                shown = text.replace(str(root), SHOWN_ROOT).replace(str(tmp_path), SHOWN_HOME)
                for shown_id, actual_id in ids.items():
                    if isinstance(actual_id, str):
                        shown = shown.replace(actual_id, str(shown_id))
                assert shown == body.strip()
