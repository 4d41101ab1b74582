"""Prompts shared by an editor and an agent: the language server (over stdio, as editors run it) and ``tether-lsp
mcp`` (over stdio, as agents run it) on the same clone, each finding the database in the clone's ``.git/tether``
by itself. The ids are the same whichever looked first, an agent's run shows in the editor's run history, and
the documented case of two ids (the editor's server had loaded the map before the agent's first look) ends with
the agent's server using the editor's."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from mcp import StdioServerParameters

from tests.e2e.test_playground_e2e import Editor
from tests.fakemodel import Answer, RunningModel
from tests.helpers import capabilities, raw_request, server_config, server_env
from tests.mcpclient import McpClient

COMMAND = Path(sys.executable).parent / "tether-lsp"
PROMPTS = """SYSTEM_PROMPT = "You are a concise support assistant for a café."


def translation_prompt(text: str, language: str) -> str:
    return f"Translate into {language}, keeping product names: {text}"
"""
OTHER = 'REVIEW_PROMPT = "Summarise this customer review in one sentence: {review}"\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    return folder


@pytest.fixture
def fake() -> Iterator[Any]:
    with RunningModel(Answer(chunks=["Bonjour ", "!"])) as model:
        yield model


@pytest.fixture
def agent(repo: Path, tmp_path: Path, fake: Any) -> Iterator[McpClient]:
    settings = tmp_path / "tether.json"
    settings.write_text(json.dumps({"tether": {"playground": {"endpoint": fake.url("/v1"), "model": "fake-chat"}}}))
    params = StdioServerParameters(
        command=str(COMMAND), args=["mcp", "--root", str(repo), "--settings", str(settings)], env=server_env()
    )
    with McpClient(params) as client:
        yield client


async def editor_on(repo: Path) -> tuple[Any, Editor]:
    """The language server as an editor starts it on the clone (no database setting: it finds .git/tether)."""
    lsp: Any = await server_config().start()
    await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri()))
    return lsp, Editor(lsp, repo)


async def stop(lsp: Any) -> None:
    await lsp.shutdown_session()
    await lsp.stop()


async def editor_ids(editor: Editor) -> dict[str, str]:
    return {p["anchor"]: p["promptId"] for p in (await editor.state())["prompts"]}


def agent_ids(agent: McpClient, path: str) -> dict[str, str]:
    return {p["name"]: p["prompt_id"] for p in agent.ok("prompts", {"path": path})["prompts"]}


async def agent_ids_until(agent: McpClient, path: str, wanted: Callable[[dict[str, str]], bool]) -> dict[str, str]:
    """The agent's ids once ``wanted`` accepts them (the editor's server writes its map after a pause)."""
    deadline = time.monotonic() + 15
    while True:
        ids = await asyncio.to_thread(agent_ids, agent, path)
        if wanted(ids) or time.monotonic() > deadline:
            return ids
        await asyncio.sleep(0.1)


async def test_an_editors_ids_are_the_agents_and_an_agents_run_is_in_the_editors_history(
    repo: Path, agent: McpClient, fake: Any
) -> None:
    lsp, editor = await editor_on(repo)
    try:
        editor.open("p.py", PROMPTS)
        mine = await editor_ids(editor)
        assert set(mine) == {"SYSTEM_PROMPT", "translation_prompt().return"}
        theirs = await agent_ids_until(agent, "p.py", lambda ids: ids == mine)
        assert theirs == mine
        pid = mine["translation_prompt().return"]
        run = await asyncio.to_thread(
            agent.ok, "run_prompt", {"prompt_id": pid, "variables": {"language": "French", "text": "Un café"}}
        )
        assert run["output"] == "Bonjour !" and run["finish_reason"] == "stop"
        assert fake.requests[0]["messages"] == [
            {"role": "user", "content": "Translate into French, keeping product names: Un café"}
        ]
        (history,) = await raw_request(lsp, "tether/playground/runs", {"promptId": pid})
        assert history["output"] == "Bonjour !" and history["variables"] == {"text": "Un café", "language": "French"}
    finally:
        await stop(lsp)


async def test_an_agents_ids_are_the_ids_of_an_editor_started_later(repo: Path, agent: McpClient) -> None:
    (repo / "q.py").write_text(OTHER)
    theirs = await asyncio.to_thread(agent_ids, agent, "q.py")
    lsp, editor = await editor_on(repo)
    try:
        editor.open("q.py", OTHER)
        assert await editor_ids(editor) == theirs
    finally:
        await stop(lsp)


async def test_an_editor_that_loaded_the_map_before_the_agent_looked_makes_its_own_ids_which_the_agent_then_uses(
    repo: Path, agent: McpClient
) -> None:
    lsp, editor = await editor_on(repo)
    try:
        editor.open("p.py", PROMPTS)
        await editor.state()  # the editor's server has loaded the map
        (repo / "q.py").write_text(OTHER)
        first = await asyncio.to_thread(agent_ids, agent, "q.py")
        editor.open("q.py", OTHER)
        mine = await editor_ids(editor)
        assert mine != first  # its map did not have the agent's entry: two ids (docs/agents.md says so)
        assert await agent_ids_until(agent, "q.py", lambda ids: ids == mine) == mine
    finally:
        await stop(lsp)
