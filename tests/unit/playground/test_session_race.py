"""The playground session when a worker's prompt detection races the loop.

Once typing pauses, prompts are found in a worker and applied back on the loop. Meanwhile a playground
message may have caught up already, or the user may have typed again. The worker's answer must then be
dropped, never applied to a newer text. The real server object and the real session are used here, with
one change: the worker pool is replaced by a gate that the test opens, so each interleaving is exact.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from lsprotocol import types

from tether_lsp.handlers.playground import scan
from tether_lsp.handlers.playground.map_writes import MapWrites
from tether_lsp.handlers.playground.model import PlaygroundMap
from tether_lsp.handlers.playground.session import MAX_WORKER_ROUNDS, Session
from tether_lsp.handlers.playground.settings import PlaygroundSettings
from tether_lsp.server.app import TetherServer
from tether_lsp.server.arrival import ARRIVAL
from tether_lsp.server.document_sync import did_change, did_open

URI = "file:///race/prompts.py"
A = 'A_PROMPT = "Summarise {text} in one line."\n'
B = 'B_PROMPT = "Translate {text} into French."\n'
C = 'C_PROMPT = "List the risks in {plan}, most serious first."\n'
#: Each prompt's anchor and the text of its span (the string expression).
LITERALS = {line.split(" = ")[0]: line.split(" = ")[1].strip() for line in (A, B, C)}


class Gate:
    """Stands in for the worker pool: each job waits until the test opens the gate (``before_each`` runs as
    each job is handed over: what happens on the loop while that job runs). ``jobs`` counts those of detection
    (the map's writes, timed after its changes, are left out)."""

    def __init__(self) -> None:
        self.queued = asyncio.Event()
        self.open = asyncio.Event()
        self.jobs = 0
        self.before_each: Callable[[], None] | None = None
        self.threaded = False  # jobs run in a thread of their own (else on the loop, once the gate opens)

    async def run_blocking(self, fn: Callable[..., Any], *args: Any) -> Any:
        if not isinstance(getattr(fn, "__self__", None), MapWrites):  # the map written after a change: not counted
            self.jobs += 1
            self.queued.set()
            if self.before_each is not None:
                self.before_each()
        await self.open.wait()
        return await asyncio.to_thread(fn, *args) if self.threaded else fn(*args)


def change(server: TetherServer, session: Session, version: int, text: str, *, pause: bool = True) -> None:
    """An edit; then typing pauses (what the debounce timer calls runs now) or, with ``pause=False``, typing
    has not paused yet when the test goes on (the session's pause is an hour: its timer never fires here)."""
    did_change(
        server,
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=URI),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        ),
    )
    session.later(URI, "change")  # what the playground's document listener does
    assert URI in session.pending  # to be processed when typing pauses (the session's pause is an hour here)
    if pause:
        session.catch_up_in_background()


def current(server: TetherServer) -> int:
    """The document's current version."""
    doc = server.document(URI)
    assert doc is not None
    return doc.version


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
    session = Session(server, debounce_s=3600, stored_map=PlaygroundMap())  # no database in this test
    did_open(server, types.DidOpenTextDocumentParams(types.TextDocumentItem(URI, "python", 1, text)))
    session.later(URI, "open")
    session.catch_up()  # version 1 read at once (on the loop: no worker job counted)
    return server, session, gate, sent


async def finished(server: TetherServer) -> None:
    await server.workers.settled()


async def test_a_message_during_detection_waits_for_it_and_for_a_round_that_reads_the_changes_before_it() -> None:
    server, session, gate, _ = await started(A)
    change(server, session, 2, A + B)
    await gate.queued.wait()  # the worker has the version-2 tree
    message = asyncio.ensure_future(session.caught_up())  # a playground message arrives meanwhile
    # One turn of the loop, no time: the message runs up to its first wait. Nothing else is ready to run
    # (the worker's job waits for the gate), so this orders steps; it does not guess at durations.
    await asyncio.sleep(0)
    assert gate.jobs == 1  # it waits for the running detection rather than starting another
    change(server, session, 3, C + A + B, pause=False)  # more typing: C lands above, moving their bytes
    gate.open.set()
    await message
    assert gate.jobs == 2  # version 2's answer was stale: the message had version 3's prompts found in a worker
    version, found = prompts(session)
    assert version == 3
    assert [anchor for anchor, _ in found] == ["C_PROMPT", "A_PROMPT", "B_PROMPT"]
    assert all(text == LITERALS[anchor] for anchor, text in found)  # not version 2's spans on version 3's text
    await finished(server)


async def test_a_message_before_the_pause_finds_the_prompts_in_a_worker() -> None:
    server, session, gate, _ = await started(A)
    gate.open.set()
    change(server, session, 2, B + A, pause=False)
    await session.caught_up()
    assert gate.jobs == 1  # not on the loop
    version, found = prompts(session)
    assert version == 2
    assert [anchor for anchor, _ in found] == ["B_PROMPT", "A_PROMPT"]
    assert all(text == LITERALS[anchor] for anchor, text in found)


def detections_by_thread(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The thread each detection of a whole document runs in from now on (on the loop or in a worker)."""
    threads: list[str] = []
    detect = scan.detect

    def counted(*args: Any, **kwargs: Any) -> Any:
        threads.append("loop" if threading.current_thread() is loop_thread else "worker")
        return detect(*args, **kwargs)

    loop_thread = threading.current_thread()
    monkeypatch.setattr(scan, "detect", counted)
    return threads


async def test_typing_faster_than_detection_never_reads_the_document_on_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A typist changes the file each time a worker is handed a version, more times than ``MAX_WORKER_ROUNDS``:
    every worker answer is for a version typed over. The message is answered from them without the loop reading
    the document, lists the prompt typed before it, and the pause after the typing lists the rest."""
    server, session, gate, _ = await started(A)
    gate.threaded = True
    threads = detections_by_thread(monkeypatch)
    typed = C.rstrip("\n")
    arrival = iter(range(1, 100))  # each message's arrival number, in the order they came
    version = iter(range(2, 100))
    keystrokes = iter(range(1, len(typed) + 1))

    def typing() -> None:
        ARRIVAL.set(next(arrival))
        change(server, session, next(version), A + B + typed[: next(keystrokes)], pause=False)

    def typed_meanwhile() -> None:
        if gate.jobs <= 2 * MAX_WORKER_ROUNDS + 2:
            typing()

    ARRIVAL.set(next(arrival))
    change(server, session, next(version), A)  # a pause: a worker reads this version (no prompt was added)
    await gate.queued.wait()
    ARRIVAL.set(next(arrival))
    change(server, session, next(version), A + B, pause=False)  # B typed while the worker reads
    gate.before_each = typed_meanwhile
    ARRIVAL.set(next(arrival))
    message = asyncio.ensure_future(session.caught_up())  # getState, say, while the typing goes on
    ARRIVAL.set(next(arrival))
    typing()
    gate.open.set()
    await message
    assert threads and "loop" not in threads  # every detection ran in a worker thread
    held, found = prompts(session)
    assert held < current(server)  # a version typed over since: the state as of the worker's answer
    assert [anchor for anchor, _ in found] == ["A_PROMPT", "B_PROMPT"]  # B was typed before the message
    assert all(text == LITERALS[anchor] for anchor, text in found)  # spans in the text of the version held
    assert URI in session.pending  # what was typed after the message waits for the next pause
    while gate.jobs <= 2 * MAX_WORKER_ROUNDS + 2:  # the typist goes on, each pause's answer typed over
        ARRIVAL.set(next(arrival))
        await session.caught_up()
        typing()
        session.catch_up_in_background()
    gate.before_each = None
    ARRIVAL.set(next(arrival))
    change(server, session, next(version), A + B + C)  # the rest of C, then a pause: a worker reads it
    await finished(server)
    assert "loop" not in threads
    held, found = prompts(session)
    assert held == current(server) and URI not in session.pending
    assert [anchor for anchor, _ in found] == ["A_PROMPT", "B_PROMPT", "C_PROMPT"]
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


async def test_a_cancelled_message_does_not_cancel_the_detection() -> None:
    server, session, gate, _ = await started(A)
    change(server, session, 2, B + A)
    message = asyncio.ensure_future(session.caught_up())
    await asyncio.sleep(0)  # one turn of the loop, no time: the message reaches its wait
    message.cancel()  # $/cancelRequest, say
    gate.open.set()
    await finished(server)
    assert message.cancelled()
    version, found = prompts(session)
    assert version == 2
    assert [anchor for anchor, _ in found] == ["B_PROMPT", "A_PROMPT"]


async def test_a_document_opened_after_a_message_waits_for_after_it() -> None:
    """A rename, then the renamed file's didOpen (read before the rename's handler ran): the message must not
    process the open, or the file would be read as a new one before the rename is known."""
    server, session, gate, _ = await started(A)
    gate.open.set()
    ARRIVAL.set(10)
    message = asyncio.ensure_future(session.caught_up())  # the message's task keeps arrival 10
    ARRIVAL.set(11)
    change(server, session, 2, B + A, pause=False)  # arrived after it, handled before its task started
    await message
    assert gate.jobs == 0 and URI in session.pending  # left for after the message
    assert prompts(session)[0] == 1
    ARRIVAL.set(12)
    await session.caught_up()  # the next message processes it
    assert gate.jobs == 1 and prompts(session)[0] == 2


async def test_messages_apply_their_effects_in_the_order_they_arrived() -> None:
    """The first message waits for a detection; the second arrives just as that detection is applied, before
    the first has resumed (its wake-up is still queued): the second must still come second."""
    server, session, gate, _ = await started(A)
    change(server, session, 2, B + A, pause=False)
    order: list[str] = []
    later: list[asyncio.Future[None]] = []

    async def message(name: str) -> None:
        await session.caught_up()
        order.append(name)

    apply = session.apply_detected

    def applied_then_second_arrives(results: Any, texts: Any = None) -> None:
        apply(results, texts)
        later.append(asyncio.ensure_future(message("second")))  # starts before the first wakes up

    session.apply_detected = applied_then_second_arrives  # type: ignore[method-assign]
    gate.open.set()
    await message("first")
    await asyncio.gather(*later)
    assert order == ["first", "second"]
