"""Playground runs as a service, with no language server: a real engine over an open file, a real SQLite store,
a real model server on 127.0.0.1 (tests/fakemodel.py), and the host of a process with no language server (its
workers counted). The last test holds the stored shape to the one the protocol answers."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.fakemodel import Answer, FakeModel, RunningModel
from tether_lsp.handlers.playground import identity, lsp_run, wire
from tether_lsp.handlers.playground.engine import PlaygroundEngine
from tether_lsp.handlers.playground.model import MapFile, MapPrompt, PlaygroundMap, Prompt
from tether_lsp.handlers.playground.runs import (
    MAX_LIMIT,
    Message,
    Runner,
    RunOutcome,
    RunRequest,
    StoredRun,
    Usage,
)
from tether_lsp.handlers.playground.settings import PlaygroundSettings
from tether_lsp.handlers.playground.store import MIGRATIONS, PlaygroundStore
from tether_lsp.server.errors import InvalidParams, RequestFailed, StorageError
from tether_lsp.server.json_converter import make_converter
from tether_lsp.server.settings import CORE_SECTIONS, Settings
from tether_lsp.server.storage import Database
from tether_lsp.server.syntax import parse_text
from tether_lsp.server.thread_host import ThreadHost

R = TypeVar("R")

URI = "file:///project/prompts.py"
PROMPTS = """SYSTEM_PROMPT = "You are a concise support assistant for a café."


def translation_prompt(text: str, language: str) -> str:
    return f"Translate into {language}, keeping product names: {text}"


def build_messages(question):
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Question from a customer in 東京: {question}"},
    ]
"""
TRANSLATION = "translation_prompt().return"
CONVERSATION = "build_messages()[1].content"
#: The keys of a stored run in the database, in the order the language server has always written them.
STORED_KEYS = [
    "runId",
    "promptId",
    "createdAt",
    "model",
    "prompt",
    "variables",
    "messages",
    "output",
    "finishReason",
    "durationMs",
    "usage",
    "temperature",  # these two came later: a run stored without them was sent neither
    "maxTokens",
]


@dataclass
class TasksSettings:
    """Stands in for the inline tasks' settings section (``tether.tasks``), which runs fall back on."""

    endpoint: str | None = None
    model: str | None = None
    apiKeyEnv: str | None = None


#: The hosts made by the test running, closed after it.
HOSTS: list[ThreadHost] = []


class Host(ThreadHost):
    """The host of a process with no language server, whose workers (real threads) count each job."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, Path("/project"), {})
        HOSTS.append(self)
        self.jobs = 0

    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R:
        self.jobs += 1
        return await super().run_blocking(fn, *args)


@pytest.fixture(autouse=True)
def _close_hosts() -> Iterator[None]:
    yield
    while HOSTS:
        HOSTS.pop().close()


class Library:
    """Stands in for the playground's session: its engine (real) over the documents opened here, and its store
    (real SQLite), noting the thread each use of the store came from."""

    def __init__(self, store: PlaygroundStore | None, pmap: PlaygroundMap | None = None) -> None:
        self.engine = PlaygroundEngine(
            pmap or PlaygroundMap(), exists=lambda uri: True, on_map_change=lambda entry: None
        )
        self._store = store
        self.store_threads: list[int] = []
        self.waits = 0

    async def caught_up(self) -> None:
        self.waits += 1

    def prompt(self, prompt_id: str) -> Prompt:
        return identity.prompt_of(self.engine, prompt_id)

    def store(self) -> PlaygroundStore:
        self.store_threads.append(threading.get_ident())
        if self._store is None:
            raise StorageError("the database is down")
        return self._store

    def open(self, uri: str, text: str) -> dict[str, str]:
        """Open a Python document; its prompts' ids by anchor."""
        data = text.encode()
        self.engine.update(uri, "python", "python", 1, data, parse_text("python", data), lambda version: None)
        return {found.prompt.anchor: found.prompt_id for found in self.engine.views[uri].found}


def settings_of(tasks: TasksSettings | None = None, **playground: Any) -> Settings:
    sections: dict[str, type[Any]] = {**CORE_SECTIONS, "playground": PlaygroundSettings, "tasks": TasksSettings}
    values: dict[str, Any] = {"playground": PlaygroundSettings(**playground)}
    if tasks is not None:
        values["tasks"] = tasks
    return Settings(values, sections)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[PlaygroundStore]:
    db = Database.sqlite(tmp_path / "tether.db")
    db.migrate({"playground": MIGRATIONS})
    yield PlaygroundStore(db)
    db.close()


def runner(store: PlaygroundStore | None, **playground: Any) -> tuple[Runner, Host, Library, dict[str, str]]:
    host = Host(settings_of(**playground))
    library = Library(store)
    ids = library.open(URI, PROMPTS)
    return Runner(host, library), host, library, ids


class Collected:
    """The ``on_output`` callback: every piece, in order, and whether the run had answered yet."""

    def __init__(self) -> None:
        self.pieces: list[tuple[str, str]] = []
        self.first = asyncio.Event()

    def __call__(self, run_id: str, delta: str) -> None:
        self.pieces.append((run_id, delta))
        self.first.set()


async def test_a_run_streams_each_piece_then_answers_and_is_stored_in_the_protocols_shape(
    store: PlaygroundStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    pieces = ["Traduire ", "en ", "français", " : ", "café ☕"]
    monkeypatch.setenv("TETHER_TEST_KEY", "sk-secret-123")
    with RunningModel(Answer(chunks=pieces)) as model:
        runs, host, library, ids = runner(
            store, endpoint=model.url("/v1"), model="fake-chat", apiKeyEnv="TETHER_TEST_KEY"
        )
        out = Collected()
        request = RunRequest(
            ids[TRANSLATION], {"language": "French", "text": "Un café 🚀"}, temperature=0.2, max_tokens=50
        )
        outcome = await runs.run(request, out)
    assert [delta for _, delta in out.pieces] == pieces
    assert {run_id for run_id, _ in out.pieces} == {outcome.run_id}
    assert outcome == RunOutcome(
        outcome.run_id, ids[TRANSLATION], "".join(pieces), "fake-chat", "stop", outcome.duration_ms, Usage(7, 5)
    )
    assert re.fullmatch(r"r-[0-9a-f]+-[0-9a-f]{6}", outcome.run_id) and outcome.duration_ms >= 0
    (sent,) = model.requests
    assert model.paths == ["/v1/chat/completions"]
    assert model.headers[0]["Authorization"] == "Bearer sk-secret-123"
    assert sent["messages"] == [{"role": "user", "content": "Translate into French, keeping product names: Un café 🚀"}]
    assert sent["model"] == "fake-chat" and sent["temperature"] == 0.2 and sent["max_tokens"] == 50

    (row,) = store.runs(ids[TRANSLATION], 10)  # what the database holds, as older servers wrote it
    assert list(row) == STORED_KEYS
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", row["createdAt"])
    assert row == {
        "runId": outcome.run_id,
        "promptId": ids[TRANSLATION],
        "createdAt": row["createdAt"],
        "model": "fake-chat",
        "prompt": "Translate into {language}, keeping product names: {text}",
        "variables": {"text": "Un café 🚀", "language": "French"},  # the prompt's variables, in its order
        "messages": [{"role": "user", "content": "Translate into French, keeping product names: Un café 🚀"}],
        "output": "".join(pieces),
        "finishReason": "stop",
        "durationMs": outcome.duration_ms,
        "usage": {"promptTokens": 7, "completionTokens": 5},
        "temperature": 0.2,
        "maxTokens": 50,
    }
    assert "sk-secret" not in json.dumps(row)
    (listed,) = await runs.stored_runs(ids[TRANSLATION])
    assert listed == StoredRun.from_json(row) and listed.to_json() == row
    assert listed.messages == (Message("user", sent["messages"][0]["content"]),)
    assert library.waits == 2  # each request waited for the document events that came before it
    assert host.jobs == 3  # the saved inputs read, the run written, the runs read: each in a worker
    assert library.store_threads and threading.get_ident() not in library.store_threads  # never on the loop


async def test_runs_written_by_an_older_server_are_read_back_newest_first(store: PlaygroundStore) -> None:
    runs, _, _, ids = runner(store)
    older: dict[str, Any] = {
        "runId": "r-18f0a1b2c3d-a1b2c3",
        "promptId": ids["SYSTEM_PROMPT"],
        "createdAt": "2025-03-01T09:15:02.123Z",
        "model": "llama3",
        "prompt": "You are a concise support assistant for a café.",
        "variables": {},
        "messages": [{"role": "system", "content": "You are a concise support assistant for a café."}],
        "output": "Bonjour ! 東京 🚀",
        "finishReason": None,
        "durationMs": 812,
    }
    newer: dict[str, Any] = older | {
        "runId": "r-18f0a1b2c3e-d4e5f6",
        "createdAt": "2025-03-01T09:16:00.000Z",
        "finishReason": "length",
        "usage": {"promptTokens": 12, "completionTokens": 50},
    }
    store.add_run(ids["SYSTEM_PROMPT"], older["runId"], 1.0, older, 100)
    store.add_run(ids["SYSTEM_PROMPT"], newer["runId"], 2.0, newer, 100)
    listed = await runs.stored_runs(ids["SYSTEM_PROMPT"])
    assert [r.run_id for r in listed] == [newer["runId"], older["runId"]]
    assert listed[0].usage == Usage(12, 50) and listed[0].finish_reason == "length"
    assert listed[1].usage is None and listed[1].finish_reason is None and listed[1].duration_ms == 812
    assert [r.to_json() for r in listed] == [newer, older]  # written back, nothing gained or lost
    assert [r.run_id for r in await runs.stored_runs(ids["SYSTEM_PROMPT"], 1)] == [newer["runId"]]


def test_a_stored_run_of_another_shape_is_refused() -> None:
    good = StoredRun("r", "p", "2025-03-01T09:15:02.123Z", "m", "x", {}, (), "o", None, 1).to_json()
    assert StoredRun.from_json(good).to_json() == good
    assert StoredRun.from_json(good | {"temperature": 1, "maxTokens": 9}).temperature == 1.0
    for bad in (
        good | {"durationMs": "1"},
        good | {"variables": {"a": 1}},
        good | {"usage": {"promptTokens": 1}},
        good | {"temperature": "hot"},
        good | {"maxTokens": 1.5},
        good | {"maxTokens": True},
    ):
        with pytest.raises(ValueError, match="stored run"):
            StoredRun.from_json(bad)
    with pytest.raises(ValueError, match="runId"):
        StoredRun.from_json({k: v for k, v in good.items() if k != "runId"})


async def test_saved_inputs_fill_in_what_the_request_leaves_out(store: PlaygroundStore) -> None:
    with RunningModel(Answer(chunks=["Bonjour", "!"])) as model:
        runs, _, _, ids = runner(store, endpoint=model.url("/api/chat"))
        saved = {
            "variables": {"question": "Ouvert ?", "other": 5},  # a value that is not a string is skipped
            "model": "saved-model",
            "options": {"temperature": 0.5, "maxTokens": 9},
        }
        store.set_settings(ids[CONVERSATION], saved)
        first = await runs.run(RunRequest(ids[CONVERSATION]), lambda run_id, delta: None)
        second = await runs.run(
            RunRequest(ids[CONVERSATION], {"question": "Fermé ?"}, "llama3", temperature=0.1), lambda r, d: None
        )
    assert first.output == "Bonjour!" and first.model == "saved-model" and first.usage == Usage(7, 2)
    assert model.paths == ["/api/chat", "/api/chat"]
    assert model.requests[0]["messages"] == [  # the whole conversation, the constant read, the saved value in
        {"role": "system", "content": "You are a concise support assistant for a café."},
        {"role": "user", "content": "Question from a customer in 東京: Ouvert ?"},
    ]
    assert model.requests[0]["model"] == "saved-model"
    assert model.requests[0]["options"] == {"temperature": 0.5, "num_predict": 9}
    assert second.model == "llama3" and model.requests[1]["model"] == "llama3"
    assert model.requests[1]["messages"][1]["content"].endswith("Fermé ?")
    assert model.requests[1]["options"] == {"temperature": 0.1, "num_predict": 9}  # what was not given is saved


@pytest.fixture(scope="module")
def idle_model() -> Iterator[FakeModel]:
    """A model server that no request should reach (one for all the cases that check so)."""
    with RunningModel(Answer("unused")) as model:
        yield model


@pytest.mark.parametrize(
    ("anchor", "request_of", "saved", "field", "data"),
    [
        (TRANSLATION, {"variables": {"language": "de"}}, None, "variables.text", {"missing": ["text"]}),
        (TRANSLATION, {"variables": {"language": 5, "text": "x"}}, None, "variables.language", {}),
        (TRANSLATION, {"variables": ["text"]}, None, "variables", {}),
        ("SYSTEM_PROMPT", {"temperature": 9}, None, "options.temperature", {}),
        ("SYSTEM_PROMPT", {"temperature": True}, None, "options.temperature", {}),
        ("SYSTEM_PROMPT", {"max_tokens": 0}, None, "options.maxTokens", {}),
        ("SYSTEM_PROMPT", {}, {"options": {"temperature": "hot"}}, "options.temperature", {}),
        ("SYSTEM_PROMPT", {"prompt_id": "p-nope"}, None, "promptId", {"kind": "unknownPrompt"}),
    ],
)
async def test_bad_inputs_are_refused_before_anything_is_sent(
    store: PlaygroundStore,
    idle_model: FakeModel,
    anchor: str,
    request_of: dict[str, Any],
    saved: dict[str, Any] | None,
    field: str,
    data: dict[str, Any],
) -> None:
    model = idle_model
    runs, _, _, ids = runner(store, endpoint=model.url("/v1"))
    if saved is not None:
        store.set_settings(ids[anchor], saved)
    with pytest.raises(InvalidParams) as info:
        await runs.run(RunRequest(**({"prompt_id": ids[anchor]} | request_of)), lambda r, d: None)
    assert info.value.message.startswith(f"{field}: ") and info.value.data["field"] == field
    assert data.items() <= info.value.data.items()
    assert model.requests == [] and store.runs(ids[anchor], 10) == []


async def test_where_a_run_goes_no_endpoint_a_bad_one_and_the_tasks_settings(
    store: PlaygroundStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs, _, _, ids = runner(store)
    with pytest.raises(RequestFailed) as info:
        await runs.run(RunRequest(ids["SYSTEM_PROMPT"]), lambda r, d: None)
    assert info.value.data == {"kind": "noEndpoint", "setting": "tether.playground.endpoint"}
    runs, _, _, ids = runner(store, endpoint="ftp://example.invalid/v1")
    with pytest.raises(RequestFailed) as info:
        await runs.run(RunRequest(ids["SYSTEM_PROMPT"]), lambda r, d: None)
    assert info.value.data["kind"] == "badEndpoint" and info.value.message.startswith("tether.playground.endpoint: ")
    monkeypatch.setenv("MY_KEY", "sk-secret-456")
    with RunningModel(Answer("ok")) as model:
        host = Host(settings_of(TasksSettings(model.url("/v1"), "task-model", "MY_KEY")))
        library = Library(store)
        ids = library.open(URI, PROMPTS)
        outcome = await Runner(host, library).run(RunRequest(ids["SYSTEM_PROMPT"]), lambda r, d: None)
    assert outcome.model == "task-model" and outcome.output == "ok"
    assert model.headers[0]["Authorization"] == "Bearer sk-secret-456"
    assert "sk-secret-456" not in json.dumps(store.runs(ids["SYSTEM_PROMPT"], 10))


@pytest.mark.parametrize(
    ("answer", "timeout", "words"),
    [
        (Answer(status=500), 300.0, "the model call failed: HTTP 500"),
        (Answer(chunks=["a", "b", "c", "d"], drop=True), 300.0, "the model call failed"),
        (Answer("late", delay=3), 0.3, "within 0.3 s (tether.playground.timeout)"),
    ],
)
async def test_a_failed_or_late_answer_fails_the_run_and_is_not_stored(
    store: PlaygroundStore, answer: Answer, timeout: float, words: str
) -> None:
    with RunningModel(answer) as model:
        runs, _, _, ids = runner(store, endpoint=model.url("/v1"), timeout=timeout)
        with pytest.raises(RequestFailed) as info:
            await runs.run(RunRequest(ids["SYSTEM_PROMPT"]), lambda r, d: None)
    assert info.value.data["kind"] == "modelFailed" and words in info.value.message
    assert await runs.stored_runs(ids["SYSTEM_PROMPT"]) == []


async def test_a_cancelled_run_stops_the_call_and_is_not_stored(store: PlaygroundStore) -> None:
    slow = ["tick "] * 400
    earlier = set(threading.enumerate())
    with RunningModel(Answer(chunks=slow, chunk_delay=0.02)) as model:
        runs, _, _, ids = runner(store, endpoint=model.url("/v1"))
        out = Collected()
        task = asyncio.ensure_future(runs.run(RunRequest(ids["SYSTEM_PROMPT"]), out))
        await asyncio.wait_for(out.first.wait(), 10)  # the answer is streaming
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert len(out.pieces) < len(slow)
        # The connection was closed: the server's handler fails its next write and ends, long before the 8 s
        # the whole answer takes.
        handlers = [t for t in set(threading.enumerate()) - earlier if "process_request_thread" in t.name]
        assert handlers
        for handler in handlers:
            await asyncio.to_thread(handler.join, 3)
            assert not handler.is_alive()
    assert await runs.stored_runs(ids["SYSTEM_PROMPT"]) == []


async def test_the_oldest_runs_go_and_the_limit_is_checked(store: PlaygroundStore) -> None:
    with RunningModel(Answer("first"), Answer("second"), Answer("third")) as model:
        runs, _, _, ids = runner(store, endpoint=model.url("/v1"), maxRunsPerPrompt=2)
        for _ in range(3):
            await runs.run(RunRequest(ids["SYSTEM_PROMPT"]), lambda r, d: None)
    assert [r.output for r in await runs.stored_runs(ids["SYSTEM_PROMPT"])] == ["third", "second"]
    assert [r.output for r in await runs.stored_runs(ids["SYSTEM_PROMPT"], 1)] == ["third"]
    for limit in (0, MAX_LIMIT + 1):
        with pytest.raises(InvalidParams, match="^limit: "):
            await runs.stored_runs(ids["SYSTEM_PROMPT"], limit)
    with pytest.raises(InvalidParams) as info:
        await runs.stored_runs("p-nope")
    assert info.value.data["kind"] == "unknownPrompt"


async def test_without_a_database_the_run_is_answered_but_not_kept() -> None:
    with RunningModel(Answer("still answered")) as model:
        runs, _, library, ids = runner(None, endpoint=model.url("/v1"))
        outcome = await runs.run(RunRequest(ids["SYSTEM_PROMPT"]), lambda r, d: None)
        assert outcome.output == "still answered"
        assert len(library.store_threads) == 2  # the saved inputs were asked for, then the run's write
        with pytest.raises(StorageError):  # the history itself answers the failure
            await runs.stored_runs(ids["SYSTEM_PROMPT"])


async def test_a_prompt_known_only_from_the_map_runs_as_it_was_last_seen(store: PlaygroundStore) -> None:
    content = "Summarise {ticket} in three bullet points."
    entry = MapFile("f-1", "file:///project/closed.py", 1.0, 1, [MapPrompt("p-closed", "SUMMARY", content, 0, 1.0)])
    library = Library(store, PlaygroundMap({"f-1": entry}))
    with RunningModel(Answer("• one")) as model:
        host = Host(settings_of(endpoint=model.url("/v1")))
        with pytest.raises(InvalidParams, match="variables.ticket"):
            await Runner(host, library).run(RunRequest("p-closed"), lambda r, d: None)
        outcome = await Runner(host, library).run(RunRequest("p-closed", {"ticket": "#42"}), lambda r, d: None)
    assert outcome.output == "• one"
    assert model.requests[0]["messages"] == [{"role": "user", "content": "Summarise #42 in three bullet points."}]


def test_the_stored_shape_is_the_one_tether_playground_runs_answers() -> None:
    """What older servers stored was the wire's ``StoredRun`` as the protocol's converter writes it: the
    database's shape and the answer's stay one."""
    converter = make_converter()
    plain = StoredRun(
        "r-1",
        "p-1",
        "2025-03-01T09:15:02.123Z",
        "m",
        "Hi {who}",
        {"who": "東京"},
        (Message("user", "Hi 東京"),),
        "🚀",
        None,
        5,
    )
    options = replace(plain, finish_reason="stop", usage=Usage(3, 4), temperature=0.5, max_tokens=64)
    for run in (plain, replace(plain, finish_reason="stop", usage=Usage(3, 4)), options):
        wired = converter.unstructure(lsp_run._stored(run))
        assert run.to_json() == wired and list(run.to_json()) == list(wired)
        assert StoredRun.from_json(wired) == run
        assert converter.structure(run.to_json(), wire.StoredRun) == lsp_run._stored(run)
