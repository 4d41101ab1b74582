"""``prompts``, ``outline``'s prompt items and ``run_prompt`` through the SDK's client, in-process: the
playground's detection and ids (kept in the root's data folder database, as the language server keeps them),
runs against the fake model server (messages, variables, settings, progress, the stored history), refusals."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakemodel import Answer, RunningModel
from tests.mcpclient import McpClient
from tests.unit.mcp.conftest import context_with
from tether_lsp.handlers.playground.store import PlaygroundStore
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.server import build
from tether_lsp.server.storage import Database, default_sqlite_path
from tether_lsp.server.storage.database import Migration

PROMPTS = """SYSTEM_PROMPT = "You are a concise support assistant for a café."


def translation_prompt(text: str, language: str) -> str:
    return f"Translate into {language}, keeping product names: {text}"


class Bot:
    def messages(self, question):
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Question from a customer in 東京: {question}"},
        ]
"""
YAML = """messages:
  - role: system
    content: You answer questions about the opening hours of the shop.
  - role: user
    content: "What time do you open on {{day}}?"
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git clone: the language server keeps its database in ``.git/tether``, and so does the agents' front."""
    folder = tmp_path / "repo"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    return folder


def by_name(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in answer["prompts"]}


def stored_map(repo: Path) -> PlaygroundStore:
    from tether_lsp.handlers.playground.store import MIGRATIONS

    db = Database.sqlite(default_sqlite_path(repo))
    migrations: list[Migration] = list(MIGRATIONS)
    db.migrate({"playground": migrations})
    return PlaygroundStore(db)


def test_prompts_lists_each_prompt_with_its_id_range_text_variables_and_role(repo: Path) -> None:
    (repo / "p.py").write_text(PROMPTS)
    with McpClient(build(Context([repo]))) as client:
        answer = client.ok("prompts", {"path": "p.py"})
        found = by_name(answer)
        assert list(found) == ["SYSTEM_PROMPT", "translation_prompt().return", "Bot.messages()[1].content"]
        system = found["SYSTEM_PROMPT"]
        assert system["text"] == "You are a concise support assistant for a café."
        assert system["role"] == "system" and system["variables"] == []
        assert system["range"] == {"start": {"line": 1, "column": 17}, "end": {"line": 1, "column": 66}}
        assert found["translation_prompt().return"]["variables"] == ["text", "language"]
        assert found["translation_prompt().return"]["role"] is None
        user = found["Bot.messages()[1].content"]
        assert user["role"] == "user" and user["variables"] == ["question"]
        assert user["range"]["start"] == {"line": 12, "column": 41}  # characters: 東京 are two columns
        read = client.ok("read", {"path": "p.py", "targets": [user["range"]]})
        assert read["parts"][0]["text"] == 'f"Question from a customer in 東京: {question}"'
        assert read["version"] == answer["version"]
        again = client.ok("prompts", {"path": "p.py"})
        assert [p["prompt_id"] for p in again["prompts"]] == [p["prompt_id"] for p in answer["prompts"]]
        assert len({p["prompt_id"] for p in answer["prompts"]}) == 3
        text = client.text("prompts", {"path": "p.py"})
        assert f"prompt {system['prompt_id']} SYSTEM_PROMPT 1:17-1:66 (system)" in text
    yaml = Context([repo])
    with McpClient(build(yaml)) as client:
        (repo / "chat.prompt.yml").write_text(YAML)
        found = by_name(client.ok("prompts", {"path": "chat.prompt.yml"}))
        # a message of a conversation is run with the whole conversation: each asks for the variables of all
        assert [(p["role"], p["variables"]) for p in found.values()] == [("system", ["day"]), ("user", ["day"])]


def test_outline_shows_prompts_where_they_sit_with_the_same_ids(repo: Path) -> None:
    (repo / "p.py").write_text(PROMPTS)
    with McpClient(build(Context([repo]))) as client:
        ids = {name: p["prompt_id"] for name, p in by_name(client.ok("prompts", {"path": "p.py"})).items()}
        items = client.ok("outline", {"path": "p.py"})["items"]
        shape = [(i["kind"], i["name"], i.get("prompt_id")) for i in items]
        assert shape == [
            ("prompt", "SYSTEM_PROMPT", ids["SYSTEM_PROMPT"]),
            ("function", "translation_prompt", None),
            ("class", "Bot", None),
        ]
        assert items[1]["children"][0]["prompt_id"] == ids["translation_prompt().return"]
        method = items[2]["children"][0]
        assert (method["kind"], method["name"]) == ("method", "messages")
        (inner,) = method["children"]
        assert (inner["kind"], inner["prompt_id"]) == ("prompt", ids["Bot.messages()[1].content"])
        read = client.ok("read", {"path": "p.py", "targets": [inner["node_id"]]})  # a prompt's node is readable
        assert read["parts"][0]["text"] == 'f"Question from a customer in 東京: {question}"'
        (repo / "plain.py").write_text("def f():\n    return 1\n")
        assert [i["kind"] for i in client.ok("outline", {"path": "plain.py"})["items"]] == ["function"]


def test_ids_follow_edits_and_outlive_the_process_in_the_roots_data_folder(repo: Path) -> None:
    (repo / "p.py").write_text(PROMPTS)
    with McpClient(build(Context([repo]))) as client:
        before = by_name(client.ok("prompts", {"path": "p.py"}))
        version = client.ok("read", {"path": "p.py"})["version"]
        client.ok(
            "edit",
            {
                "path": "p.py",
                "base_version": version,
                "edits": [
                    {"old_text": "a concise support assistant", "new_text": "a friendly, concise support assistant"},
                    {"old_text": "class Bot:", "new_text": "# the bot\nclass Bot:"},
                ],
            },
        )
        after = by_name(client.ok("prompts", {"path": "p.py"}))
        assert after["SYSTEM_PROMPT"]["text"].startswith("You are a friendly, concise")
        assert {n: p["prompt_id"] for n, p in after.items()} == {n: p["prompt_id"] for n, p in before.items()}
    assert (repo / ".git" / "tether" / "tether.db").exists()
    with McpClient(build(Context([repo]))) as client:  # a new process: the ids are the stored ones
        again = by_name(client.ok("prompts", {"path": "p.py"}))
        assert {n: p["prompt_id"] for n, p in again.items()} == {n: p["prompt_id"] for n, p in after.items()}
    entries = list(stored_map(repo).load().files.values())
    assert [e.uri for e in entries] == [(repo / "p.py").resolve().as_uri()]
    assert sorted(p.id for p in entries[0].prompts) == sorted(p["prompt_id"] for p in after.values())


def test_ids_an_editor_stored_are_the_ids_given_and_an_editors_entry_wins_over_an_agents(repo: Path) -> None:
    """The editor's entry uses the editor's spelling of the uri. When two fronts each made an entry for one file
    (the editor's server had loaded the map before the agent looked), the editor's is used, the one it changed
    last when it made two, and the agent's own entry is deleted."""
    from tether_lsp.handlers.playground.model import MapFile, MapPrompt
    from tether_lsp.handlers.playground.text import normalise

    (repo / "my file.py").write_text('SYSTEM_PROMPT = "You are a concise support assistant for a café."\n')
    store = stored_map(repo)
    content = normalise("You are a concise support assistant for a café.")
    spelled = "file://" + str(repo.resolve()).replace(" ", "%20") + "/my%20file.py"

    def entry(file_id: str, prompt_id: str, at: float) -> MapFile:
        return MapFile(file_id, spelled, at, 1, [MapPrompt(prompt_id, "SYSTEM_PROMPT", content, 0, at)])

    store.save_file(entry("agent-1", "agents-id", 3.0))
    store.save_file(entry("editor-old", "older-id", 1.0))
    store.save_file(entry("editor-new", "editor-id", 2.0))
    with McpClient(build(Context([repo]))) as client:
        (found,) = client.ok("prompts", {"path": "my file.py"})["prompts"]
        assert found["prompt_id"] == "editor-id"
    assert sorted(store.load().files) == ["editor-new", "editor-old"]
    (repo / "new.py").write_text('SYSTEM_PROMPT = "You are a concise support assistant for a café."\n')
    with McpClient(build(Context([repo]))) as client:
        client.ok("prompts", {"path": "new.py"})
    (made,) = [e for e in store.load().files.values() if e.uri.endswith("/new.py")]
    assert made.id.startswith("agent-")


def test_without_a_database_ids_last_for_the_process(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "p.py").write_text(PROMPTS)
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the database's folder would go: it cannot be opened
    context = context_with(root, database={"url": f"sqlite:///{blocked}/sub/tether.db"})
    with McpClient(build(context)) as client:
        first = client.ok("prompts", {"path": "p.py"})["prompts"]
        assert [p["prompt_id"] for p in client.ok("prompts", {"path": "p.py"})["prompts"]] == [
            p["prompt_id"] for p in first
        ]


def test_prompts_refusals(repo: Path, tmp_path: Path) -> None:
    (repo / "notes.txt").write_text("prompt = 'not parsed'\n")
    with McpClient(build(Context([repo]))) as client:
        assert client.refused("prompts", {"path": "notes.txt"}).startswith("path: notes.txt is not a Python or YAML")
        assert "outside the roots" in client.refused("prompts", {"path": "../x.py"})
        assert client.refused("prompts", {"path": "p.py", "line": 1}).startswith("line: unknown argument")


# --- run_prompt ---------------------------------------------------------------------------------------------


def runner(repo: Path, url: str, section: str = "playground", **more: Any) -> Context:
    return context_with(repo, **{section: {"endpoint": url, "model": "fake-chat", **more}})


def test_run_prompt_sends_the_prompt_with_its_variables_and_answers_once(repo: Path) -> None:
    (repo / "p.py").write_text(PROMPTS)
    pieces = ["Traduire ", "en ", "français", " : ", "café ☕"]
    with RunningModel(Answer(chunks=pieces)) as model, McpClient(build(runner(repo, model.url("/v1")))) as client:
        ids = {n: p["prompt_id"] for n, p in by_name(client.ok("prompts", {"path": "p.py"})).items()}
        pid = ids["translation_prompt().return"]
        answer = client.ok("run_prompt", {"prompt_id": pid, "variables": {"language": "French", "text": "Un café 🚀"}})
        assert answer == {
            "output": "".join(pieces),
            "model": "fake-chat",
            "finish_reason": "stop",
            "usage": {"prompt_tokens": 7, "completion_tokens": len(pieces)},
        }
        (sent,) = model.requests
        assert model.paths == ["/v1/chat/completions"]
        assert sent["model"] == "fake-chat"
        assert sent["messages"] == [
            {"role": "user", "content": "Translate into French, keeping product names: Un café 🚀"}
        ]
        client.ok("run_prompt", {"prompt_id": ids["Bot.messages()[1].content"], "variables": {"question": "Open?"}})
        assert model.requests[1]["messages"] == [  # a message of a conversation sends the conversation
            {"role": "system", "content": "You are a concise support assistant for a café."},
            {"role": "user", "content": "Question from a customer in 東京: Open?"},
        ]
        client.ok("run_prompt", {"prompt_id": ids["SYSTEM_PROMPT"], "model": "other"})
        assert model.requests[2]["model"] == "other"
        assert model.requests[2]["messages"] == [
            {"role": "system", "content": "You are a concise support assistant for a café."}
        ]
    (run,) = stored_map(repo).runs(pid, 10)  # in the prompt's history, where the editors' playground lists it
    assert run["output"] == "".join(pieces) and run["variables"] == {"text": "Un café 🚀", "language": "French"}


def test_run_prompt_runs_the_prompt_as_the_file_reads_now(repo: Path) -> None:
    (repo / "p.py").write_text(PROMPTS)
    with RunningModel(Answer("ok")) as model, McpClient(build(runner(repo, model.url("/v1")))) as client:
        pid = by_name(client.ok("prompts", {"path": "p.py"}))["SYSTEM_PROMPT"]["prompt_id"]
        (repo / "p.py").write_text(PROMPTS.replace("a concise support", "a terse support"))  # another process
        client.ok("run_prompt", {"prompt_id": pid})
        assert model.requests[0]["messages"][0]["content"] == "You are a terse support assistant for a café."
        (repo / "p.py").write_text("x = 1\n")
        message = client.refused("run_prompt", {"prompt_id": pid})
        assert message.startswith(f"prompt_id: p.py no longer holds prompt {pid}")


def test_run_prompt_follows_new_settings(repo: Path) -> None:
    """Attached mode hands the editor's changed settings to the context: the next run goes where they say."""
    (repo / "p.py").write_text(PROMPTS)
    with RunningModel(Answer("first")) as before, RunningModel(Answer("second")) as after:
        context = runner(repo, before.url("/v1"))
        with McpClient(build(context)) as client:
            pid = by_name(client.ok("prompts", {"path": "p.py"}))["SYSTEM_PROMPT"]["prompt_id"]
            assert client.ok("run_prompt", {"prompt_id": pid})["output"] == "first"
            context.configure(runner(repo, after.url("/v1"), model="newer").settings)
            answer = client.ok("run_prompt", {"prompt_id": pid})
        assert (answer["output"], answer["model"]) == ("second", "newer")
        assert len(before.requests) == 1 and after.requests[0]["model"] == "newer"


def test_run_prompt_falls_back_on_the_tasks_endpoint_and_tells_progress(repo: Path) -> None:
    (repo / "p.py").write_text(PROMPTS)
    pieces = ["one ", "two ", "three"]
    with RunningModel(Answer(chunks=pieces)) as model:
        context = runner(repo, model.url("/api/chat"), section="tasks")
        with McpClient(build(context)) as client:
            pid = by_name(client.ok("prompts", {"path": "p.py"}))["SYSTEM_PROMPT"]["prompt_id"]
            told: list[tuple[float, str | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                told.append((progress, message))

            result = client.portal.call(
                lambda: client.client.call_tool("run_prompt", {"prompt_id": pid}, progress_callback=on_progress)
            )
            assert not result.is_error, result.content
            assert result.structured_content is not None
            assert result.structured_content["output"] == "one two three"
            assert told == [(4, "one "), (8, "two "), (13, "three")]
            assert model.paths == ["/api/chat"] and model.requests[0]["model"] == "fake-chat"


def test_other_tools_answer_while_a_model_call_runs(repo: Path) -> None:
    (repo / "p.py").write_text(PROMPTS)
    with RunningModel(Answer("late", delay=3)) as model, McpClient(build(runner(repo, model.url("/v1")))) as client:
        pid = by_name(client.ok("prompts", {"path": "p.py"}))["SYSTEM_PROMPT"]["prompt_id"]
        done = threading.Event()
        outcome: list[Any] = []

        def run() -> None:
            outcome.append(client.call("run_prompt", {"prompt_id": pid}))
            done.set()

        thread = threading.Thread(target=run)
        thread.start()
        model.wait_for_requests(1)
        assert client.ok("outline", {"path": "p.py"})["items"]
        assert not done.is_set()  # answered while the model had not yet
        thread.join(30)
        assert outcome and not outcome[0].is_error


def test_run_prompt_refusals(repo: Path, tmp_path: Path) -> None:
    (repo / "p.py").write_text(PROMPTS)
    with McpClient(build(Context([repo]))) as client:
        pid = by_name(client.ok("prompts", {"path": "p.py"}))["translation_prompt().return"]["prompt_id"]
        assert client.refused("run_prompt", {"prompt_id": pid, "variables": {"text": "x", "language": "y"}}).startswith(
            "no model endpoint: set tether.playground.endpoint"
        )
        assert client.refused("run_prompt", {"prompt_id": "nope"}).startswith("prompt_id: no prompt with id 'nope'")
        assert client.refused("run_prompt", {"prompt_id": pid, "variables": {"text": 1}}).startswith(
            "variables.text: expected a string"
        )
        assert client.refused("run_prompt", {"prompt_id": pid, "variables": ["x"]}).startswith(
            "variables: expected an object"
        )
        assert client.refused("run_prompt", {}).startswith("prompt_id: missing")
    with RunningModel(Answer("x")) as model, McpClient(build(runner(repo, model.url("/v1")))) as client:
        missing = client.refused("run_prompt", {"prompt_id": pid, "variables": {"text": "x"}})
        assert missing.startswith("variables.language: no value for language: give each in variables")
        assert not model.requests
    other = tmp_path / "other"  # another root, whose database names the prompt of a file outside it: refused
    other.mkdir()
    shared = {"database": {"url": f"sqlite:///{tmp_path / 'shared.db'}"}}
    with McpClient(build(context_with(repo, **shared))) as client:
        pid = by_name(client.ok("prompts", {"path": "p.py"}))["SYSTEM_PROMPT"]["prompt_id"]
    with McpClient(build(context_with(other, **shared))) as client:
        message = client.refused("run_prompt", {"prompt_id": pid})
        assert message.startswith(f"prompt_id: {pid} is a prompt of {(repo / 'p.py').resolve()}, outside the roots")
