"""The playground engine in-process, on real parses: ids given by the map and kept through edits, a syntax error
and a rename; the state a client shows following the active editor and cursor, or a pin."""

from __future__ import annotations

from collections.abc import Sequence

from tether_lsp.handlers.playground.engine import PlaygroundEngine
from tether_lsp.handlers.playground.model import MapFile, PlaygroundMap
from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.syntax import parse_text

URI = "file:///project/prompts.py"
GREETING = 'GREETING_PROMPT = "Say hello to {name} in French."\n'
SUMMARY = 'SUMMARY_PROMPT = "Summarise {ticket} in three bullet points."\n'


class Engine:
    """A real engine over an empty map, noting each map entry it says changed."""

    def __init__(self) -> None:
        self.changed: list[str] = []
        self.engine = PlaygroundEngine(PlaygroundMap(), exists=lambda uri: True, on_map_change=self.note)

    def note(self, entry: MapFile) -> None:
        self.changed.append(entry.id)

    def update(self, text: str, version: int, edits: Sequence[ByteEdit] = (), uri: str = URI) -> dict[str, str]:
        """The document's version ``version``; each prompt's id by anchor."""
        data = text.encode()
        self.engine.update(uri, "python", "python", version, data, parse_text("python", data), lambda v: list(edits))
        return {found.prompt.anchor: found.prompt_id for found in self.engine.views[uri].found}


def inserted(at: int, text: bytes) -> ByteEdit:
    return ByteEdit(at, at, at + len(text), (0, at), (0, at), (1, 0), text)


def test_each_prompt_gets_an_id_that_edits_around_it_keep() -> None:
    engine = Engine()
    first = engine.update(GREETING + SUMMARY, 1)
    assert list(first) == ["GREETING_PROMPT", "SUMMARY_PROMPT"] and len(set(first.values())) == 2
    (entry,) = engine.engine.pmap.files.values()
    assert engine.changed == [entry.id] and entry.uri == URI
    reworded = SUMMARY.replace("three bullet points", "three short bullet points")
    assert engine.update("import os\n\n" + reworded + GREETING, 2) == first  # moved, reordered, reworded
    assert engine.update(GREETING + SUMMARY, 3) == first
    assert engine.update(SUMMARY, 4) == {"SUMMARY_PROMPT": first["SUMMARY_PROMPT"]}
    assert engine.update(GREETING + SUMMARY, 5) == first  # deleted then restored (undo): the same id again


def test_a_syntax_error_keeps_the_prompts_it_hides_where_the_edits_moved_them() -> None:
    engine = Engine()
    ids = engine.update(GREETING + SUMMARY, 1)
    opened = b"x = (\n"
    found = engine.update(opened.decode() + GREETING + SUMMARY, 2, [inserted(0, opened)])
    assert found == ids  # GREETING_PROMPT is not parsed in this version, but kept
    view = engine.engine.views[URI]
    assert view.parse_error == "syntax error at line 1, column 3"
    kept = next(f.prompt for f in view.found if f.prompt.anchor == "GREETING_PROMPT")
    assert view.text[kept.span[0] : kept.span[1]] == b'"Say hello to {name} in French."'


def test_a_rename_keeps_ids_and_moves_the_active_editor_and_cursor() -> None:
    engine = Engine()
    ids = engine.update(GREETING, 1)
    engine.engine.active, engine.engine.cursors[URI] = URI, 20
    new = "file:///project/renamed.py"
    engine.engine.renamed(URI, new)
    assert {f.prompt.anchor: f.prompt_id for f in engine.engine.views[new].found} == ids
    assert URI not in engine.engine.views and engine.engine.pmap.by_uri(new) is not None
    assert (engine.engine.active, engine.engine.cursors) == (new, {new: 20})


def test_the_state_follows_the_cursor_until_a_prompt_is_pinned() -> None:
    engine = Engine()
    ids = engine.update(GREETING + SUMMARY, 1)
    playground = engine.engine
    assert playground.state().uri is None  # no active editor
    playground.active = URI
    playground.cursors[URI] = len(GREETING) + 20  # inside the summary's string
    state = playground.state()
    assert state.prompt is not None and (state.prompt.prompt_id, state.reason) == (ids["SUMMARY_PROMPT"], "cursor")
    assert (state.content, state.variables) == ("Summarise {ticket} in three bullet points.", ("ticket",))
    assert playground.changed_state() == state and playground.changed_state() is None  # told once
    file_id = state.file_id
    assert file_id is not None
    playground.pin = (file_id, ids["GREETING_PROMPT"])
    pinned = playground.state()
    assert pinned.prompt is not None and (pinned.prompt.prompt_id, pinned.reason) == (ids["GREETING_PROMPT"], "pinned")
    playground.cursors[URI] = 0  # on the pinned prompt's statement: it is also the cursor's
    assert playground.state().reason == "cursor"
    engine.update(SUMMARY, 2)  # the pinned prompt is gone: the pin goes, the cursor's prompt is shown again
    after = engine.engine.state()
    assert after.pin is None and engine.engine.pin is None
    assert after.prompt is not None and (after.prompt.prompt_id, after.reason) == (ids["SUMMARY_PROMPT"], "cursor")
