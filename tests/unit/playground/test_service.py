"""The playground's one service API in-process, on a real SQLite file in a git clone: prompt identity for a file as
it reads now (``identity.PromptIds``, what the agents' front asks), an editor's session (``Session``: the state,
pinning, saved inputs, renames, the map written at shutdown), and both fronts running a prompt through the same
function into the same database, the agents' front with no engine of its own and one database per root."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.fakemodel import Answer, RunningModel
from tests.helpers import git
from tests.mcpclient import McpClient
from tether_lsp.handlers.playground import engine, identity, runs
from tether_lsp.handlers.playground import lsp as playground_lsp
from tether_lsp.handlers.playground.identity import PromptIds
from tether_lsp.handlers.playground.session import Session
from tether_lsp.handlers.playground.settings import PlaygroundSettings
from tether_lsp.handlers.playground.store import MIGRATIONS, PlaygroundStore
from tether_lsp.handlers.playground.wire import ActiveEditorParams, DocumentRef, Empty, PlaygroundRunParams
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.server import build
from tether_lsp.mcp.settings import schema
from tether_lsp.server import storage
from tether_lsp.server.app import TetherServer
from tether_lsp.server.document_sync import did_open
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import Pos
from tether_lsp.server.settings import CORE_SECTIONS, Settings
from tether_lsp.server.storage import Database, default_sqlite_path
from tether_lsp.server.syntax import parse_text
from tether_lsp.server.thread_host import ThreadHost

PROMPTS = """SYSTEM_PROMPT = "You are a concise support assistant for a café."


def translation_prompt(text: str, language: str) -> str:
    return f"Translate into {language}, keeping product names: {text}"
"""
TRANSLATION = "translation_prompt().return"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A git clone holding ``prompts.py``: its database is ``.git/tether/tether.db``, whichever front opens it."""
    folder = (tmp_path / "clone").resolve()
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    (folder / "prompts.py").write_text(PROMPTS)
    return folder


def stored(root: Path) -> PlaygroundStore:
    db = Database.sqlite(default_sqlite_path(root))
    db.migrate({"playground": MIGRATIONS})
    return PlaygroundStore(db)


# --- prompt identity for a file as it reads now ----------------------------------------------------------------


@pytest.fixture
def host(root: Path) -> Iterator[ThreadHost]:
    settings = Settings({}, {**CORE_SECTIONS, "playground": PlaygroundSettings})
    host = ThreadHost(settings, root, {"playground": lambda: MIGRATIONS})
    yield host
    host.close()


def found_in(ids: PromptIds, path: Path) -> dict[str, identity.FoundPrompt]:
    text = path.read_bytes()
    return {f.prompt.anchor: f for f in ids.found(path, "python", parse_text("python", text), text)}


def test_a_files_ids_are_kept_in_the_roots_database_for_the_next_look(root: Path, host: ThreadHost) -> None:
    path = root / "prompts.py"
    first = found_in(PromptIds(host), path)
    assert list(first) == ["SYSTEM_PROMPT", TRANSLATION]
    assert (first[TRANSLATION].text, first[TRANSLATION].variables) == (
        "Translate into {language}, keeping product names: {text}",
        ("text", "language"),
    )
    ids = {anchor: f.prompt_id for anchor, f in first.items()}
    path.write_text("import os\n" + PROMPTS.replace("a concise", "a friendly, concise"))
    later = PromptIds(host)  # a later look, by a service that read nothing yet: the ids are the stored ones
    assert {anchor: f.prompt_id for anchor, f in found_in(later, path).items()} == ids
    (entry,) = stored(root).load().files.values()
    assert entry.id.startswith(identity.AGENT) and entry.uri == path.as_uri()
    assert later.holding(ids["SYSTEM_PROMPT"]) == entry and later.holding("p-nope") is None
    last_seen = identity.prompt_now(entry, ids["SYSTEM_PROMPT"], None)  # the file gone: as the map last saw it
    assert last_seen is not None and last_seen.content == "You are a friendly, concise support assistant for a café."
    assert identity.prompt_now(entry, ids["SYSTEM_PROMPT"], []) is None  # the file no longer holds it


def test_without_a_database_ids_last_as_long_as_the_service(root: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # where the database's folder would go: it cannot be opened
    sections = {**CORE_SECTIONS, "playground": PlaygroundSettings}
    settings = Settings(schema().parse({"database": {"url": f"sqlite:///{blocked}/sub/tether.db"}})[0].values, sections)
    host = ThreadHost(settings, root, {"playground": lambda: MIGRATIONS})
    try:
        ids = PromptIds(host)
        first = {a: f.prompt_id for a, f in found_in(ids, root / "prompts.py").items()}
        assert {a: f.prompt_id for a, f in found_in(ids, root / "prompts.py").items()} == first
        assert ids.current() == (ids.memory, None) and ids.holding(first["SYSTEM_PROMPT"]) is not None
    finally:
        host.close()


# --- an editor's session ----------------------------------------------------------------------------------------


@asynccontextmanager
async def language_server(
    root: Path, **playground: Any
) -> AsyncIterator[tuple[TetherServer, playground_lsp.PlaygroundFront, list[Any]]]:
    """A language server in this process with the playground feature, on ``root``, the playground settings given;
    what it would send the client is collected instead."""
    server = TetherServer("tether-lsp", "test")
    glue: playground_lsp.PlaygroundFront = server.router.install(playground_lsp.FEATURE)
    server.workspace_root = root
    server.workers.bind_loop(asyncio.get_running_loop())
    server.settings = server.settings_schema.parse({"playground": playground})[0]
    sent: list[Any] = []
    server.protocol.notify = lambda method, params=None: sent.append((method, params))  # type: ignore[method-assign]
    try:
        yield server, glue, sent
    finally:
        await asyncio.to_thread(server.workers.close)
        await asyncio.to_thread(server.databases.close)


def opened(server: TetherServer, uri: str) -> None:
    did_open(server, types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, PROMPTS)))


async def test_an_editors_session_shows_pins_keeps_inputs_follows_renames_and_writes_the_map(root: Path) -> None:
    uri = (root / "prompts.py").as_uri()
    async with language_server(root) as (server, glue, sent):
        session: Session = glue.session
        opened(server, uri)
        assert (await session.state()).uri is None  # no editor shown yet
        await session.active_editor(uri, Pos(0, 20))  # in the system prompt's string
        state = await session.state()
        assert state.prompt is not None and (state.prompt.anchor, state.reason) == ("SYSTEM_PROMPT", "cursor")
        method, told_state = sent[-1]  # told as the editor changed (the wire's ranges from these spans)
        assert method == "tether/playground/didChangeState" and told_state.prompt.prompt_id == state.prompt.prompt_id
        ids = {item.anchor: item.prompt_id for item in state.prompts}
        file_id = state.file_id
        assert file_id is not None

        with pytest.raises(InvalidParams) as refused:
            await session.pin("f-nope", ids[TRANSLATION])
        assert (refused.value.data["field"], refused.value.data["kind"]) == ("fileId", "unknownPrompt")
        with pytest.raises(InvalidParams) as refused:
            await session.pin(file_id, "p-nope")
        assert refused.value.data["field"] == "promptId"
        pinned = await session.pin(file_id, ids[TRANSLATION])
        assert pinned.prompt is not None and (pinned.prompt.anchor, pinned.reason) == (TRANSLATION, "pinned")
        told = len(sent)
        await session.cursor(uri, Pos(0, 25))  # pinned: the cursor moving changes nothing shown
        assert len(sent) == told and (await session.state()).pin == (file_id, ids[TRANSLATION])
        assert (await session.unpin()).prompt == state.prompt

        with pytest.raises(InvalidParams, match="^settings: expected a JSON object, got list"):
            await session.set_saved_inputs(ids[TRANSLATION], ["French"])
        with pytest.raises(InvalidParams) as refused:
            await session.saved_inputs("p-nope")
        assert refused.value.data["kind"] == "unknownPrompt"
        inputs = {"variables": {"language": "Français", "text": "東京 🚀"}}
        await session.set_saved_inputs(ids[TRANSLATION], inputs)
        assert await session.saved_inputs(ids[TRANSLATION]) == inputs

        new_uri = (root / "renamed.py").as_uri()
        await session.files_renamed([(uri, new_uri)])
        assert session.prompt(ids[TRANSLATION]).anchor == TRANSLATION
        assert {i.anchor: i.prompt_id for i in (await session.state()).prompts} == ids
        session.prepare_shutdown()
        await server.run_blocking(session.write_at_shutdown)
    (entry,) = stored(root).load().files.values()
    assert (entry.id, entry.uri, sorted(p.id for p in entry.prompts)) == (file_id, new_uri, sorted(ids.values()))
    assert stored(root).settings(ids[TRANSLATION]) == inputs


# --- both fronts ----------------------------------------------------------------------------------------------


async def test_an_editors_run_and_an_agents_run_go_through_one_function_into_one_database(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tether/playground/run`` and the agents' ``run_prompt`` both run in ``Runner.run``, which stores the run
    (``PlaygroundStore.add_run``, called from its ``_store``), each with the prompt found by the playground's
    identity service: the editor's session, or the prompt as its file reads now. The agents' front builds no
    engine of its own, and both runs land in the prompt's one history."""
    savers: list[str] = []
    sources: list[str] = []
    engines: list[str] = []
    add_run, run, init = PlaygroundStore.add_run, runs.Runner.run, engine.PlaygroundEngine.__init__

    def add_run_spy(self: PlaygroundStore, *args: Any, **kwargs: Any) -> None:
        savers.append(sys._getframe(1).f_code.co_qualname)  # add_run <- the function that saves a run
        add_run(self, *args, **kwargs)

    async def run_spy(self: runs.Runner, *args: Any, **kwargs: Any) -> runs.RunOutcome:
        sources.append(type(self.prompts).__name__)
        return await run(self, *args, **kwargs)

    def init_spy(self: engine.PlaygroundEngine, *args: Any, **kwargs: Any) -> None:
        engines.append(sys._getframe(1).f_code.co_qualname)
        init(self, *args, **kwargs)

    monkeypatch.setattr(PlaygroundStore, "add_run", add_run_spy)
    monkeypatch.setattr(runs.Runner, "run", run_spy)
    monkeypatch.setattr(engine.PlaygroundEngine, "__init__", init_spy)
    uri = (root / "prompts.py").as_uri()
    with RunningModel(Answer("Bonjour"), Answer("Salut")) as model:
        endpoint = {"endpoint": model.url("/v1"), "model": "fake-chat"}
        async with language_server(root, **endpoint) as (server, glue, _sent):
            opened(server, uri)
            await glue.active_editor(ActiveEditorParams(DocumentRef(uri), types.Position(0, 20)))
            pid = (await glue.get_state(Empty())).prompts[0].prompt_id
            glue.session.prepare_shutdown()  # the editor's map written: the agent reads the editor's ids
            await server.run_blocking(glue.session.write_at_shutdown)
            editors = await glue.run(PlaygroundRunParams(pid))
        editors_engines = list(engines)  # the editor's session's one engine
        assert len(editors_engines) == 1
        context = Context([root], schema().parse({"playground": endpoint})[0])
        try:
            with McpClient(build(context)) as client:
                (listed, _) = (await asyncio.to_thread(client.ok, "prompts", {"path": "prompts.py"}))["prompts"]
                agents = await asyncio.to_thread(client.ok, "run_prompt", {"prompt_id": pid})
        finally:
            context.close()
    assert engines == editors_engines  # none for the agent's run
    assert listed["prompt_id"] == pid
    assert (editors.output, agents["output"]) == ("Bonjour", "Salut")
    assert sources == ["Session", "OnePrompt"]
    assert savers == ["Runner._store.<locals>.write", "Runner._store.<locals>.write"]
    assert [r["output"] for r in stored(root).runs(pid, 10)] == ["Salut", "Bonjour"]


def test_the_agents_front_opens_a_roots_database_once_for_notes_prompts_and_runs(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opens: list[Path | None] = []
    open_database = storage.open_database

    def spy(url: str | None, workspace_root: Path | None) -> Database:
        opens.append(workspace_root)
        return open_database(url, workspace_root)

    monkeypatch.setattr(storage, "open_database", spy)
    git(root, "add", "prompts.py")
    git(root, "commit", "-q", "-m", "prompts")
    context = Context([root])
    try:
        with McpClient(build(context)) as client:
            (system, _) = client.ok("prompts", {"path": "prompts.py"})["prompts"]
            target = {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 66}}
            client.ok("note_add", {"path": "prompts.py", "target": target, "text": "keep it short"})
            assert [n["text"] for n in client.ok("notes", {"path": "prompts.py"})["notes"]] == ["keep it short"]
            assert client.refused("run_prompt", {"prompt_id": system["prompt_id"]}).startswith("no model endpoint")
    finally:
        context.close()
    assert opens == [root]
