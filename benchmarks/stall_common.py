"""What every loop-stall scenario shares: a Tether server over stdio with its loop watch on, a typist who keeps
typing into an open file while the heavy work runs, and the figures (worst stall, typing latency).

The typist sends one character every 10 ms wherever it types (a comment line in the middle of a 10,000-line
Python file, unless told otherwise), and after every 10th character a request (``tether/documentInfo`` unless
told otherwise) whose answer it waits for before typing on, as the first loop-stall benchmark did (so figures
compare with those taken before). A typing latency is the time from that character sent to that request's answer
(the server reads in order, so the answer comes after the character was applied). With ``OPEN_LOOP`` set
(``--open-loop``) the typist does not wait: 100 characters a second whatever the server does, which shows
whether the server keeps up or falls behind.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from benchmarks.corpus import python_file
from benchmarks.syntax import pct
from tether_lsp.server.lspclient import make_client, raw_request

KEYSTROKE_S = 0.01
ASK_EVERY = 10
#: Type on without waiting for the answers (see the module's docstring).
OPEN_LOOP = False


ROOT = Path(__file__).resolve().parent.parent
#: The servers' data folder for workspaces outside git (the user's data folder otherwise): one per benchmark run,
#: so a run never inherits an earlier run's prompt ids or markers (a scenario's file would be taken for a rename).
DATA_HOME = tempfile.mkdtemp(prefix="tether-bench-data-")
atexit.register(shutil.rmtree, DATA_HOME, True)


def this_checkout() -> dict[str, str]:
    """The environment's PYTHONPATH with this checkout first: a server started from anywhere (an editor's folder, a
    console script) runs the code being measured, not whichever copy is installed."""
    rest = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": os.pathsep.join([str(ROOT), rest] if rest else [str(ROOT)])}


def stall_env(**extra: str) -> dict[str, str]:
    return {
        **os.environ,
        **this_checkout(),
        "XDG_DATA_HOME": DATA_HOME,
        "TETHER_LOOP_WATCH": "1",
        "TETHER_TEST_HOOKS": "1",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


async def start_watched(
    root: Path,
    client: LanguageClient | None = None,
    env: dict[str, str] | None = None,
    init: dict[str, Any] | None = None,
    capabilities: dict[str, Any] | None = None,
) -> LanguageClient:
    """A server with its loop watch on, initialized on ``root`` (``client``: one with handlers registered)."""
    client = client or make_client("loop-stall")
    await client.start_io(sys.executable, "-m", "tether_lsp", "--log-level", "warning", env=env or stall_env())
    params: dict[str, Any] = {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities or {}}
    if init is not None:
        params["initializationOptions"] = init
    await ask(client, "initialize", params)
    client.initialized(types.InitializedParams())
    return client


async def stop_server(client: LanguageClient) -> None:
    """Shut the server down; one that does not answer within the deadline is killed (a scenario never hangs)."""
    try:
        await asyncio.wait_for(client.shutdown_async(None), 30)
        client.exit(None)
    except TimeoutError:
        print("  (the server did not answer shutdown within 30 s: killed)", file=sys.stderr)
        if client._server is not None:
            client._server.kill()
    await asyncio.wait_for(client.stop(), 30)  # type: ignore[no-untyped-call]


ANSWER_S = 120


async def ask(client: LanguageClient, method: str, params: Any, seconds: float = ANSWER_S) -> Any:
    """A request's answer; a server that never answers is an error naming the request, not a benchmark that
    hangs."""
    try:
        return await asyncio.wait_for(raw_request(client, method, params), seconds)
    except TimeoutError:
        raise TimeoutError(f"{method} unanswered after {seconds:.0f} s") from None


async def reset_stall(client: LanguageClient) -> None:
    await ask(client, "tether/debug/loopStats", {"reset": True})


async def worst_stall_ms(client: LanguageClient) -> float:
    return float((await ask(client, "tether/debug/loopStats", {}))["worstStallMs"])


def open_file(client: LanguageClient, uri: str, language: str, text: str) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text)))


def typing_file() -> tuple[str, int]:
    """A 10,000-line Python file with an empty comment line opened in its middle, and that line's number."""
    lines = python_file(10_000).split("\n")
    middle = len(lines) // 2
    lines.insert(middle, "# ")
    return "\n".join(lines), middle


@dataclass
class Typist:
    """Types into ``uri`` at ``line`` (after ``column``) until stopped; see the module's docstring."""

    client: LanguageClient
    uri: str
    line: int
    column: int = 2
    method: str = "tether/documentInfo"
    version: int = 1
    latencies_ms: list[float] = field(default_factory=list)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None
    _asking: set[asyncio.Task[None]] = field(default_factory=set)

    @classmethod
    def on_new_file(cls, client: LanguageClient, root: Path, method: str = "tether/documentInfo") -> Typist:
        """Opens ``typed.py`` (10,000 lines, not on disk) and types in its middle."""
        text, line = typing_file()
        uri = (root / "typed.py").as_uri()
        open_file(client, uri, "python", text)
        return cls(client, uri, line, method=method)

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task
        if self._asking:
            await asyncio.wait(set(self._asking))

    def keystroke(self) -> None:
        self.version += 1
        where = types.Position(line=self.line, character=self.column)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.version, uri=self.uri),
                [types.TextDocumentContentChangePartial(range=types.Range(where, where), text="x")],
            )
        )
        self.column += 1

    async def _ask(self, sent: float) -> None:
        await ask(self.client, self.method, {"textDocument": {"uri": self.uri}})
        self.latencies_ms.append((time.perf_counter() - sent) * 1000)

    async def _run(self) -> None:
        count = 0
        while not self._stop.is_set():
            sent = time.perf_counter()
            self.keystroke()
            count += 1
            if count % ASK_EVERY == 0 and not OPEN_LOOP:
                await self._ask(sent)
            elif count % ASK_EVERY == 0:
                task = asyncio.ensure_future(self._ask(sent))
                self._asking.add(task)
                task.add_done_callback(self._asking.discard)
            await asyncio.sleep(KEYSTROKE_S)

    @property
    def keystrokes(self) -> int:
        return self.version - 1

    def figures(self) -> dict[str, float]:
        samples = self.latencies_ms or [float("nan")]
        return {
            "keystrokes": self.keystrokes,
            "typing_p50_ms": pct(samples, 50),
            "typing_p99_ms": pct(samples, 99),
            "typing_max_ms": max(samples),
        }


def typing_said(figures: dict[str, Any]) -> str:
    return (
        f"typing p50 {figures['typing_p50_ms']:6.1f} ms, p99 {figures['typing_p99_ms']:6.1f} ms "
        f"({figures['keystrokes']:.0f} keystrokes)"
    )
