"""A document the user edits while a worker locates its markers: the answer is for the text the document has when
the answer is sent (the locations carried through the edits typed meanwhile), never silently for the text the
worker read; -32801 ContentModified when they cannot be carried."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.server.byte_edits import ContentChange
from tether_lsp.server.documents import Document
from tether_lsp.server.errors import ContentModified
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.thread_host import ThreadHost

from .test_state_service import SOURCE, TOTAL, placing

LINE_ON_TOP = ContentChange("# typed meanwhile\n", (Pos(0, 0), Pos(0, 0)))


def locate_then(state: MarkersState, monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], object]) -> None:
    """The worker locates in the text it was given, and the user's edit arrives before the answer is built."""
    real = state.locate_now

    def locate(uri: str, open_text: str | None, **kw: bool) -> MarkersState.Found:
        found = real(uri, open_text, **kw)
        meanwhile()
        return found

    monkeypatch.setattr(state, "locate_now", locate)


def answer(state: MarkersState, host: ThreadHost, uri: str) -> tuple[str | None, list[int | None]]:
    async def located() -> tuple[str | None, list[int | None]]:
        text, found = await state.located(uri)
        return text, [m.location.line_start if m.location else None for m in found]

    return asyncio.run_coroutine_threadsafe(located(), host._loop).result(60)


def test_an_edit_while_a_worker_locates_is_carried_into_the_answer(
    served: tuple[Path, MarkersState, ThreadHost], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state, host = served
    uri = (root / "calc.py").as_uri()
    state.create(placing(uri, TOTAL), "why not len?", "question")
    document = Document(uri, "python", 1, SOURCE)
    state.open_document = lambda u: document if u == uri else None
    locate_then(state, monkeypatch, lambda: document.apply(2, [LINE_ON_TOP], Encoding.UTF16))
    text, lines = answer(state, host, uri)
    assert text == "# typed meanwhile\n" + SOURCE  # the text now, not the one the worker read
    assert lines == [TOTAL.line_start + 1]  # and the marker where its code is in it


def test_an_edit_that_cannot_be_carried_answers_content_modified(
    served: tuple[Path, MarkersState, ThreadHost], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state, host = served
    uri = (root / "calc.py").as_uri()
    state.create(placing(uri, TOTAL), "why not len?", "question")
    opened = [Document(uri, "python", 1, SOURCE)]
    state.open_document = lambda u: opened[-1] if u == uri else None
    # closed and opened again meanwhile: the version the worker read is not kept, nothing to carry through
    locate_then(state, monkeypatch, lambda: opened.append(Document(uri, "python", 7, "x = 1\n" + SOURCE)))
    with pytest.raises(ContentModified) as refused:
        answer(state, host, uri)
    assert refused.value.data["requested"] == 1 and refused.value.data["current"] == 7
