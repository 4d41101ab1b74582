"""Loop stalls while the playground finds prompts: again after each typing pause in 10,000-line files, and in a
dict nested 5,000 deep.

Prompts after a pause: detection runs in a worker process once typing pauses (the text parsed there, the changed
statements read again). Each round adds one prompt line to the middle of the file in view and waits for the state
that lists it, while a cheap request (``tether/documentInfo``, which waits for that version's parse) goes out every
5 ms. Printed: the worst loop stall, those requests' latency (p50/p99: what a user's next keystroke would wait; the
faster the rounds, the fewer requests, so p99 nears the slowest), and how long each new prompt took to be listed
(the pause included).

Deep dict: ``PROMPT = {"prompt": {"prompt": ... "tell the user hello" ...}}`` 5,000 levels deep on one line, open
and in view, while the typist types into another open file. Each round replaces the innermost string and asks
``tether/playground/getState`` (answered once the edit is scanned). Printed: the worst loop stall, the typing
latency, and the first detection (open -> state) and each detection after an edit.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from benchmarks.corpus import python_file, yaml_file
from benchmarks.stall_common import Typist, ask, open_file, reset_stall, start_watched, stop_server, worst_stall_ms
from benchmarks.syntax import pct
from tether_lsp.server.lspclient import make_client, plain

DEPTH = 5_000
INNER = '"tell the user hello"'


def prompt_lines(language: str, text: str) -> tuple[int, Any]:
    """Where a new top-level prompt goes in the middle of ``text``, and the line that adds prompt ``k``."""
    lines = text.split("\n")
    line = len(lines) // 2
    if language == "python":
        while not lines[line].startswith(("def ", "class ")):
            line += 1
        return line, lambda k: f'PROMPT_{k} = "Summarise {{text}} for round {k}."\n'
    while lines[line] != "apiVersion: apps/v1":
        line += 1
    return line + 1, lambda k: f'template: "Summarise {{text}} for round {k}."\n'


def in_view(client: Any, uri: str) -> None:
    client.protocol.notify(
        "tether/editor/didChangeActiveEditor", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
    )


def replace(client: Any, uri: str, version: int, line: int, start: int, end: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, start), types.Position(line, end)), text=text
                )
            ],
        )
    )


async def prompts(language: str, rounds: int = 10) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        client = make_client("loop-stall-playground")
        states: list[dict[str, Any]] = []
        arrived = asyncio.Event()

        @client.feature("tether/playground/didChangeState")
        def state(params: Any) -> None:
            states.append(plain(params))
            arrived.set()

        await start_watched(root, client)
        try:
            text = python_file(10_000) if language == "python" else yaml_file(10_000)
            uri = (root / ("big.py" if language == "python" else "big.yaml")).as_uri()
            open_file(client, uri, language, text)
            in_view(client, uri)
            first = await ask(client, "tether/playground/getState", {})
            base = len(first["prompts"])
            line, prompt_line = prompt_lines(language, text)
            await reset_stall(client)
            requests, appeared = [], []
            for k in range(1, rounds + 1):
                started = time.perf_counter()
                replace(client, uri, k + 1, line, 0, 0, prompt_line(k))
                while not any(len(s["prompts"]) == base + k for s in states):
                    arrived.clear()
                    t = time.perf_counter()
                    await ask(client, "tether/documentInfo", {"textDocument": {"uri": uri}})
                    requests.append((time.perf_counter() - t) * 1000)
                    with contextlib.suppress(TimeoutError):  # a request every 5 ms until the state arrives
                        await asyncio.wait_for(arrived.wait(), 0.005)
                appeared.append((time.perf_counter() - started) * 1000)
            stall = await worst_stall_ms(client)
        finally:
            await stop_server(client)
    return {
        "worst_stall_ms": stall,
        "typing_p50_ms": pct(requests, 50),
        "typing_p99_ms": pct(requests, 99),
        "slowest_request_ms": max(requests),
        "appeared_p50_ms": pct(appeared, 50),
        "appeared_max_ms": max(appeared),
    }


async def deep_dict(rounds: int = 3) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        client = await start_watched(root)
        try:
            typist = Typist.on_new_file(client, root)
            await ask(client, "tether/documentInfo", {"textDocument": {"uri": typist.uri}})
            head = "PROMPT = " + '{"prompt": ' * DEPTH
            text = head + INNER + "}" * DEPTH + "\n"
            uri = (root / "deep.py").as_uri()
            await reset_stall(client)
            typist.start()
            started = time.perf_counter()
            open_file(client, uri, "python", text)
            in_view(client, uri)
            await ask(client, "tether/playground/getState", {})
            first = (time.perf_counter() - started) * 1000
            again, current = [], INNER
            for k in range(rounds):
                started = time.perf_counter()
                inner = f'"tell the user hello {k}"'
                replace(client, uri, k + 2, 0, len(head), len(head) + len(current), inner)
                current = inner
                await ask(client, "tether/playground/getState", {})
                again.append((time.perf_counter() - started) * 1000)
            await typist.stop()
            stall = await worst_stall_ms(client)
        finally:
            await stop_server(client)
    return {
        **typist.figures(),
        "worst_stall_ms": stall,
        "first_detection_ms": first,
        "detection_after_edit_p50_ms": pct(again, 50),
    }
