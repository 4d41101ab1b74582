"""What an answer from the open documents' cache checks afterwards (renames into the file, a moved HEAD): at most
once per document every ``CHECK_EVERY_S``, however many cached answers an editor asks for while the user types."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tether_lsp.handlers.markers import checks
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.server.documents import Document
from tether_lsp.server.thread_host import ThreadHost

from .test_state_service import SOURCE, TOTAL, placing


def test_cached_answers_check_renames_once_a_second(
    served: tuple[Path, MarkersState, ThreadHost], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state, host = served
    uri = (root / "calc.py").as_uri()
    state.create(placing(uri, TOTAL), "why not len?", "question")
    document = Document(uri, "python", 1, SOURCE)
    state.open_document = lambda u: document if u == uri else None
    checked: list[str] = []
    real = state.poll

    def spy(u: str) -> bool:
        checked.append(u)
        return real(u)

    monkeypatch.setattr(state, "poll", spy)
    clock = [1000.0]
    state.checks.clock = lambda: clock[0]

    async def answers(count: int) -> list[int]:
        """``count`` answers in a row, each after the check the one before started (if any) has ended."""
        sizes = []
        for _ in range(count):
            _text, located = await state.located(uri)
            sizes.append(len(located))
            running = state.checks.running.get(uri)
            if running is not None:
                await running
        return sizes

    def on_loop(count: int) -> list[int]:
        return asyncio.run_coroutine_threadsafe(answers(count), host._loop).result(60)

    assert on_loop(1) == [1]  # computed, and cached: no check after it
    assert checked == []
    assert on_loop(30) == [1] * 30  # every one from the cache
    assert checked == [uri]
    clock[0] += checks.CHECK_EVERY_S
    assert on_loop(5) == [1] * 5
    assert checked == [uri, uri]
