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
    each job is handed over: what happens on the loop while that job runs)."""

    def __init__(self) -> None:
        self.queued = asyncio.Event()
        self.open = asyncio.Event()
        self.jobs = 0
        self.before_each: Callable[[], None] | None = None

    async def run_blocking(self, fn: Callable[..., Any], *args: Any) -> Any:
        self.jobs += 1
        self.queued.set()
        if self.before_each is not None:
            self.before_each()
        await self.open.wait()
        return fn(*args)


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


async def test_a_message_during_detection_waits_for_it_and_a_stale_answer_is_dropped() -> None:
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


async def test_typing_faster_than_detection_still_gets_the_message_answered() -> None:
    server, session, gate, _ = await started(A)
    texts = iter([B + A, C + B + A, A + C])

    def typed_meanwhile() -> None:
        if gate.jobs <= MAX_WORKER_ROUNDS:
            change(server, session, gate.jobs + 2, next(texts), pause=False)

    change(server, session, 2, A + B, pause=False)
    gate.before_each = typed_meanwhile
    gate.open.set()
    await session.caught_up()
    assert gate.jobs == MAX_WORKER_ROUNDS  # every worker answer was stale; the last round ran on the loop
    version, found = prompts(session)
    assert version == MAX_WORKER_ROUNDS + 2
    assert [anchor for anchor, _ in found] == ["A_PROMPT", "C_PROMPT"]
    assert all(text == LITERALS[anchor] for anchor, text in found)
    await finished(server)


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

    def applied_then_second_arrives(results: Any) -> None:
        apply(results)
        later.append(asyncio.ensure_future(message("second")))  # starts before the first wakes up

    session.apply_detected = applied_then_second_arrives  # type: ignore[method-assign]
    gate.open.set()
    await message("first")
    await asyncio.gather(*later)
    assert order == ["first", "second"]
