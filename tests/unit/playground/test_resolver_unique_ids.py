"""The ids one resolve gives a file's prompts are always distinct, whatever was done to the file before: prompts
added, deleted, restored by undo, duplicated, renamed, reordered and edited, in Python and in YAML."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether_lsp.handlers.playground.engine import detect
from tether_lsp.handlers.playground.model import PlaygroundMap
from tether_lsp.handlers.playground.resolver import resolve_file_prompts
from tether_lsp.server.syntax import parse_text

TEXTS = (
    "You are a helpful assistant that answers questions about the menu of the café.",
    "Summarize the following support ticket in three short bullet points for the team.",
    "Translate the customer's message into French, keeping product names unchanged.",
    "Reply in English to the customer, politely.",
    "Reply in German to the customer, politely.",
    "Classify the review as positive or negative.",
)
NAMES = ("greeting", "summary", "translate", "reply", "classify", "review")


@dataclass
class File:
    """A file as a list of (name, text) prompts, rendered as Python constants or YAML keys; undo restores
    the most recent deletion where it was."""

    language: str
    prompts: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[tuple[int, tuple[str, str]]] = field(default_factory=list)

    def source(self) -> bytes:
        if self.language == "python":
            lines = [f'{name.upper()}_PROMPT = "{text}"\n' for name, text in self.prompts]
        else:
            lines = ["agent:\n  templates:\n"] + [f'    {name}_template: "{text}"\n' for name, text in self.prompts]
        return "".join(lines).encode()

    def apply(self, operation: tuple[str, int, int]) -> None:
        kind, a, b = operation
        count = len(self.prompts)
        if kind == "add":
            self.prompts.insert(a % (count + 1), (NAMES[b % len(NAMES)], TEXTS[b % len(TEXTS)]))
        elif kind == "undo":
            if self.deleted:
                at, prompt = self.deleted.pop()
                self.prompts.insert(min(at, count), prompt)
        elif not count:
            return
        elif kind == "delete":
            self.deleted.append((a % count, self.prompts.pop(a % count)))
        elif kind == "duplicate":
            name, text = self.prompts[a % count]
            self.prompts.insert(a % count + 1, (name if b % 2 else name + "_copy", text))
        elif kind == "rename":
            name, text = self.prompts[a % count]
            self.prompts[a % count] = (NAMES[b % len(NAMES)] + "_v2", text)
        elif kind == "reorder":
            self.prompts.insert(b % count, self.prompts.pop(a % count))
        elif kind == "edit":
            name, text = self.prompts[a % count]
            self.prompts[a % count] = (name, text.replace(".", f", item {b}.", 1))


def resolve(pmap: PlaygroundMap, file: File, now: float) -> list[str]:
    data = file.source()
    parsed = detect(file.language, parse_text(file.language, data), data)
    assert len(parsed) == len(file.prompts)
    uri = "file:///prompts." + file.language[:2]
    _entry, ids, _changed = resolve_file_prompts(pmap, uri, parsed, exists=lambda _u: True, now=now)
    return ids


OPERATIONS = st.tuples(
    st.sampled_from(("add", "delete", "undo", "duplicate", "rename", "reorder", "edit")),
    st.integers(0, 11),
    st.integers(0, 11),
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(("python", "yaml")), st.lists(OPERATIONS, min_size=1, max_size=25))
def test_the_ids_of_one_resolve_are_distinct(language: str, operations: list[tuple[str, int, int]]) -> None:
    file = File(language, [(NAMES[k], TEXTS[k]) for k in range(3)])
    pmap = PlaygroundMap()
    ids = resolve(pmap, file, 0.0)
    assert len(set(ids)) == len(ids)
    for step, operation in enumerate(operations, start=1):
        file.apply(operation)
        ids = resolve(pmap, file, float(step))
        assert len(set(ids)) == len(ids), (operation, file.prompts, ids)


@pytest.mark.parametrize("language", ["python", "yaml"])
def test_delete_undo_then_duplicate_gives_the_copy_a_new_id(language: str) -> None:
    file = File(language, [(NAMES[k], TEXTS[k]) for k in range(3)])
    pmap = PlaygroundMap()
    first = resolve(pmap, file, 0.0)
    file.apply(("delete", 1, 0))
    assert resolve(pmap, file, 1.0) == [first[0], first[2]]
    file.apply(("undo", 0, 0))
    assert resolve(pmap, file, 2.0) == first  # the deleted prompt's id is back
    file.apply(("duplicate", 1, 1))  # the copy has the same name and text
    ids = resolve(pmap, file, 3.0)
    assert ids[:2] == first[:2] and ids[3] == first[2]
    assert ids[2] not in first
