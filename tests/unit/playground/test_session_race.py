"""The playground session when a worker's prompt detection races the loop.

Once typing pauses, prompts are found in a worker and applied back on the loop. Meanwhile a playground
message may have caught up already, or the user may have typed again. The worker's answer must then be
dropped, never applied to a newer text. The real server object and the real session are used here, with
one change: the worker pool is replaced by a gate that the test opens, so each interleaving is exact.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from tether_lsp.handlers.playground.lsp import Session
from tether_lsp.handlers.playground.model import PlaygroundMap
from tether_lsp.handlers.playground.settings import PlaygroundSettings
from tether_lsp.server.app import TetherServer, did_change, did_open

URI = "file:///race/prompts.py"
A = 'A_PROMPT = "Summarise {text} in one line."\n'
B = 'B_PROMPT = "Translate {text} into French."\n'
C = 'C_PROMPT = "List the risks in {plan}, most serious first."\n'
#: Each prompt's anchor and the text of its span (the string expression).
LITERALS = {line.split(" = ")[0]: line.split(" = ")[1].strip() for line in (A, B, C)}


class Gate:
    """Stands in for the worker pool: each job waits until the test opens the gate."""

    def __init__(self) -> None:
        self.queued = asyncio.Event()
        self.open = asyncio.Event()

    async def run_blocking(self, fn: Callable[..., Any], *args: Any) -> Any:
        self.queued.set()
        await self.open.wait()
        return fn(*args)


def change(server: TetherServer, session: Session, version: int, text: str, *, pause: bool = True) -> None:
    """An edit; then typing pauses (the debounce timer's callback runs now) or, with ``pause=False``, the
    timer has not fired yet when the test goes on (it is cancelled, so it never does)."""
    did_change(
        server,
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=URI),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        ),
    )
    session.later(URI, "change")  # what the playground's document listener does
    handle = session._catch_up_handle
    assert handle is not None  # later() scheduled the catch-up
    handle.cancel()
    if pause:
        session.catch_up_in_background()


def prompts(session: Session) -> tuple[int, list[tuple[str, str]]]:
    """The version the session holds for the file, and each prompt's anchor with the text its span covers."""
    view = session.engine.views[URI]
    return view.version, [
        (found.prompt.anchor, view.text[found.prompt.span[0] : found.prompt.span[1]].decode()) for found in view.found
    ]


async def started(text: str) -> tuple[TetherServer, Session, Gate, list[Any]]:
    server = TetherServer("tether-test", "0")
    server.register_settings("playground", PlaygroundSettings)
    gate = Gate()
    server.run_blocking = gate.run_blocking  # type: ignore[method-assign]
    sent: list[Any] = []
    server.protocol.notify = lambda method, params=None: sent.append((method, params))  # type: ignore[method-assign]
    session = Session(server)
    session._loaded = PlaygroundMap()  # no database in this test
    did_open(server, types.DidOpenTextDocumentParams(types.TextDocumentItem(URI, "python", 1, text)))
    session.catch_up()
    return server, session, gate, sent


async def finished(server: TetherServer) -> None:
    await asyncio.gather(*server._background)


async def test_a_message_during_detection_catches_up_and_the_worker_s_answer_is_dropped() -> None:
    server, session, gate, _ = await started(A)
    change(server, session, 2, A + B)
    await gate.queued.wait()  # the worker has the version-2 tree
    session.catch_up()  # a playground message arrives: it catches up at once
    assert prompts(session)[0] == 2
    change(server, session, 3, C + A + B, pause=False)  # more typing: C lands above, moving their bytes
    gate.open.set()
    await finished(server)
    version, found = prompts(session)
    assert version == 2  # the worker's version-2 prompts were not applied to version 3's text
    assert [anchor for anchor, _ in found] == ["A_PROMPT", "B_PROMPT"]
    assert all(text == LITERALS[anchor] for anchor, text in found)
    session.catch_up()
    version, found = prompts(session)
    assert version == 3
    assert [anchor for anchor, _ in found] == ["C_PROMPT", "A_PROMPT", "B_PROMPT"]
    assert all(text == LITERALS[anchor] for anchor, text in found)


async def test_the_worker_s_answer_applies_when_nothing_came_in_between() -> None:
    server, session, gate, _ = await started(A)
    change(server, session, 2, C + A)
    gate.open.set()
    await finished(server)
    version, found = prompts(session)
    assert version == 2
    assert [anchor for anchor, _ in found] == ["C_PROMPT", "A_PROMPT"]
    assert all(text == LITERALS[anchor] for anchor, text in found)
    assert URI not in session.pending


async def test_an_answer_for_a_version_typed_over_is_dropped_and_the_next_pause_finds_the_prompts() -> None:
    server, session, gate, _ = await started(A)
    change(server, session, 2, A + B)
    await gate.queued.wait()
    change(server, session, 3, C + A + B)  # typed again before the worker answered: a second job
    gate.open.set()
    await finished(server)
    version, found = prompts(session)
    assert version == 3  # the second job's answer, not the first one's applied late
    assert [anchor for anchor, _ in found] == ["C_PROMPT", "A_PROMPT", "B_PROMPT"]
    assert all(text == LITERALS[anchor] for anchor, text in found)
