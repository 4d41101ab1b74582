"""Prompts of a large document found in a worker process: the same prompts as the worker thread finds on the
server's tree (every field, after crossing the process boundary), on every example file and after any edits; an
editor's session sends a large document there and a small one, or any with ``tether.limits.processes`` 0, to a
thread; a worker process killed under the session is replaced and the next change read."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from benchmarks.corpus import python_file
from benchmarks.prompt_detection import CORPUS
from tests.unit.server.process_probe import pid_and_modules
from tether_lsp.handlers.playground import lsp as playground_lsp
from tether_lsp.handlers.playground import tracker
from tether_lsp.handlers.playground.detection import PROCESS_MIN_BYTES
from tether_lsp.handlers.playground.model import Prompt
from tether_lsp.handlers.playground.scan import Detected, scan, scan_texts
from tether_lsp.handlers.playground.session import Session
from tether_lsp.server import process_trees
from tether_lsp.server.app import TetherServer
from tether_lsp.server.document_sync import did_change, did_open
from tether_lsp.server.processes import Processes
from tether_lsp.server.syntax import GrammarLimits, parse_text

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
LANGUAGES = {".py": "python", ".yml": "yaml", ".yaml": "yaml"}
FILES = sorted(p for folder in (CORPUS, EXAMPLES) for p in folder.rglob("*") if p.suffix in LANGUAGES)


def every_field(detected: Detected | None) -> Any:
    """What was found, every field of every prompt (``Prompt.__eq__`` leaves some out)."""
    assert detected is not None
    prompts, error = detected
    return [_fields(p) for p in prompts], error


#: The number of a function's n-th ``return``: the detector numbers them in the order tree-sitter's query hands them
#: over, which is not document order and differs from one parse of the same text to the next (in any process).
RETURN_NUMBER = re.compile(r"return\[\d+\]")


def _fields(p: Prompt) -> tuple[Any, ...]:
    anchor = RETURN_NUMBER.sub("return[n]", p.anchor)
    return (anchor, p.content, p.span, p.variables, p.role, p.chat, p.reach, p.norm)


def in_thread(language: str, text: bytes) -> Any:
    """What the worker thread finds: the walk over a tree the server parsed."""
    return every_field(scan(language, parse_text(language, text), text))


def test_the_examples_hold_prompts_of_both_languages() -> None:
    found = {LANGUAGES[p.suffix]: 0 for p in FILES}
    for path in FILES:
        found[LANGUAGES[path.suffix]] += len(in_thread(LANGUAGES[path.suffix], path.read_bytes())[0])
    assert found["python"] > 10 and found["yaml"] > 10


async def test_a_worker_process_finds_what_the_thread_finds_on_every_example() -> None:
    jobs = [(str(p), LANGUAGES[p.suffix], p.read_bytes()) for p in FILES]
    processes = Processes(lambda: 1, asyncio.to_thread)
    try:
        pid, found = await processes.run(scan_texts, jobs, None, None, GrammarLimits())
        _pid, modules = await processes.run(pid_and_modules)
    finally:
        await asyncio.to_thread(processes.close)
    assert pid != os.getpid()
    # the child imported the detectors, not the engine, the map's resolver or the database
    assert "tether_lsp.handlers.playground.detect_python" in modules
    assert {"tether_lsp.handlers.playground.engine", "rapidfuzz", "sqlalchemy"}.isdisjoint(modules)
    assert [every_field(d) for d in found] == [in_thread(language, text) for _key, language, text in jobs]


@given(
    st.sampled_from(FILES),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 80), st.sampled_from(['"', "\n", "x = '{y}'\n", ": ", "é"]))),
)
def test_parsing_from_the_tree_kept_of_the_last_version_finds_what_a_fresh_parse_finds(
    path: Path, edits: list[tuple[float, int, str]]
) -> None:
    """Each version is parsed from the tree the process kept of the one before (the change found by comparing
    the texts), including edits that break the syntax and multi-byte characters."""
    language, text = LANGUAGES[path.suffix], path.read_text()
    process_trees.forget()
    versions = [text]
    for where, length, insert in edits:
        at = int(where * len(text))
        text = text[:at] + insert + text[at + length :]
        versions.append(text)
    for version in versions:
        data = version.encode()
        _pid, (found,) = scan_texts([("the-document", language, data)], None, None, GrammarLimits())
        assert every_field(found) == in_thread(language, data)


def test_a_text_the_limits_keep_as_text_only_is_not_parsed() -> None:
    text = b"x = 1\n" * 100
    _pid, found = scan_texts([("big", "python", text)], None, None, GrammarLimits(max_tree_bytes=len(text) - 1))
    assert found == [None]


# --- an editor's session ------------------------------------------------------------------------------------------

PROMPTS = 'SYSTEM_PROMPT = "You are a concise support assistant for a café."\n\n'
#: A document large enough for a worker process: prompts, then plain code.
LARGE = PROMPTS + python_file(2_000)
ADDED = 'ADDED_PROMPT = "Summarise {text} in one line."\n'


@asynccontextmanager
async def language_server(
    root: Path, processes: int = 1, **playground: Any
) -> AsyncIterator[tuple[TetherServer, Session]]:
    """A language server in this process with the playground feature, ``tether.limits.processes`` given (and
    ``tether.playground`` settings)."""
    server = TetherServer("tether-lsp", "test")
    glue: playground_lsp.PlaygroundFront = server.router.install(playground_lsp.FEATURE)
    server.workspace_root = root
    server.workers.bind_loop(asyncio.get_running_loop())
    server.settings = server.settings_schema.parse({"limits": {"processes": processes}, "playground": playground})[0]
    server.protocol.notify = lambda method, params=None: None  # type: ignore[method-assign]
    try:
        yield server, glue.session
    finally:
        await asyncio.to_thread(server.close_down)


def opened(server: TetherServer, uri: str, text: str) -> None:
    did_open(server, types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))


def changed(server: TetherServer, uri: str, version: int, text: str) -> None:
    did_change(
        server,
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        ),
    )


async def anchors(session: Session, uri: str) -> list[str]:
    await session.active_editor(uri, None)
    return [item.anchor for item in (await session.state()).prompts]


async def test_a_large_documents_prompts_are_found_in_a_worker_process_and_not_parsed_on_the_loop(
    tmp_path: Path,
) -> None:
    assert len(LARGE.encode()) >= PROCESS_MIN_BYTES
    uri = (tmp_path / "large.py").as_uri()
    async with language_server(tmp_path) as (server, session):
        opened(server, uri, LARGE)
        assert await anchors(session, uri) == ["SYSTEM_PROMPT"]
        assert session.detected_in in server.processes.pids() and session.detected_in != os.getpid()
        assert server.syntax.parse_counts.get(uri, 0) == 0  # the loop never parsed it for the playground
        changed(server, uri, 2, ADDED + LARGE)
        assert await anchors(session, uri) == ["ADDED_PROMPT", "SYSTEM_PROMPT"]
        assert session.detected_in in server.processes.pids()


@pytest.mark.parametrize(("processes", "text"), [(0, LARGE), (1, PROMPTS)], ids=["processes-0", "small-document"])
async def test_with_no_processes_or_for_a_small_document_the_prompts_are_found_in_a_thread(
    tmp_path: Path, processes: int, text: str
) -> None:
    uri = (tmp_path / "prompts.py").as_uri()
    async with language_server(tmp_path, processes) as (server, session):
        opened(server, uri, text)
        assert await anchors(session, uri) == ["SYSTEM_PROMPT"]
        assert session.detected_in == os.getpid()
        assert server.processes.pids() == []  # no process was started for it


@pytest.mark.parametrize(
    ("least", "text", "in_a_process"),
    [(0, PROMPTS, True), (len(LARGE.encode()) + 1, LARGE, False)],
    ids=["a-small-document-when-the-least-is-0", "a-large-document-under-a-larger-least"],
)
async def test_the_size_from_which_a_document_goes_to_a_process_is_the_playground_setting(
    tmp_path: Path, least: int, text: str, in_a_process: bool
) -> None:
    uri = (tmp_path / "prompts.py").as_uri()
    async with language_server(tmp_path, processMinBytes=least) as (server, session):
        opened(server, uri, text)
        assert await anchors(session, uri) == ["SYSTEM_PROMPT"]
        assert (session.detected_in != os.getpid()) is in_a_process
        assert (session.detected_in in server.processes.pids()) is in_a_process


async def test_a_killed_worker_process_is_replaced_and_the_next_change_is_read(tmp_path: Path) -> None:
    uri = (tmp_path / "large.py").as_uri()
    async with language_server(tmp_path) as (server, session):
        opened(server, uri, LARGE)
        assert await anchors(session, uri) == ["SYSTEM_PROMPT"]
        (killed,) = server.processes.pids()
        os.kill(killed, signal.SIGKILL)
        changed(server, uri, 2, ADDED + LARGE)
        assert await anchors(session, uri) == ["ADDED_PROMPT", "SYSTEM_PROMPT"]
        assert session.detected_in in server.processes.pids() and session.detected_in != killed


async def test_whether_the_maps_files_exist_is_looked_at_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file new to the map may be one renamed from a file gone from disk: the resolver asks whether each map file
    exists, a stat each, which is file work the loop must not do."""
    looked: list[tuple[str, bool]] = []  # (uri, on the loop's thread)
    exists = tracker._exists

    def spy(uri: str) -> bool:
        looked.append((uri, threading.current_thread() is threading.main_thread()))
        return exists(uri)

    monkeypatch.setattr(tracker, "_exists", spy)
    gone, fresh = (tmp_path / "gone.py").as_uri(), (tmp_path / "new.py").as_uri()  # neither is on disk
    async with language_server(tmp_path) as (server, session):
        opened(server, gone, PROMPTS)
        assert await anchors(session, gone) == ["SYSTEM_PROMPT"]
        opened(server, fresh, 'OTHER_PROMPT = "Write a limerick about {topic}, in French."\n')
        assert await anchors(session, fresh) == ["OTHER_PROMPT"]
    assert (gone, False) in looked
    assert [uri for uri, on_loop in looked if on_loop] == []


#: Run in a fresh interpreter: which thread first imports rapidfuzz while an editor's session finds and matches
#: its first prompts.
FIRST_IMPORT = """
import asyncio, sys, threading
from pathlib import Path
first = []

class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "rapidfuzz" and not first:
            first.append(threading.current_thread() is threading.main_thread())

sys.meta_path.insert(0, Spy())
from tests.unit.playground.test_detection_process import PROMPTS, anchors, changed, language_server, opened

async def main():
    root = Path(sys.argv[1])
    async with language_server(root) as (server, session):
        uri = (root / "a.py").as_uri()
        opened(server, uri, PROMPTS)
        assert await anchors(session, uri) == ["SYSTEM_PROMPT"]
        changed(server, uri, 2, PROMPTS.replace("concise", "terse"))  # matched to the prompt it was: fuzzily
        assert await anchors(session, uri) == ["SYSTEM_PROMPT"]

asyncio.run(main())
print("on the loop" if first == [True] else "in a worker" if first == [False] else "never")
"""


def test_the_matchers_library_is_imported_in_a_worker_not_on_the_loop(tmp_path: Path) -> None:
    """rapidfuzz (10-50 ms to import) loads on first use: a worker loads it with the map, before the loop matches."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORT, str(tmp_path)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "in a worker"
