"""Detection reads again only what an edit changed: a document's units (Python top-level statements, YAML documents)
are kept from its previous version, and the prompts found are those a fresh walk finds, every field, whatever the
edits (including the ones that change what other statements read: a ``# @prompt`` mark, an import alias, a module
constant a chat message names)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.corpus import python_file, yaml_file
from tether_lsp.handlers.playground import detect_python, detect_yaml, scan
from tether_lsp.server.syntax import GrammarLimits, parse_text

from .test_detection_process import FILES, LANGUAGES, every_field, in_thread

#: Edits that change what other statements read (marks, aliases, constants, roles), and ones that break the syntax.
INSERTS = [
    '"',
    "\n",
    "é",
    ": ",
    "    ",
    "# @prompt\n",
    "  # @prompt",
    "from jinja2 import Template as T\n",
    "from jinja2 import Template as Other\n",
    "SYSTEM = 'You are a terse assistant for a café.'\n",
    "SYSTEM = 'You answer in French, briefly.'\n",
    "intro = 'Hello there, how are you'\n",
    "t = T('Write a friendly greeting for {name}')\n",
    "messages = [{'role': 'system', 'content': SYSTEM}, {'role': 'user', 'content': 'hi {q}'}]\n",
    "---\n",
    "system: Answer briefly in English\n",
    "- role: user\n  content: Summarise {text}\n",
]


@pytest.fixture(autouse=True)
def _no_memos() -> Iterator[None]:
    scan.forget_memos()
    yield
    scan.forget_memos()


def kept(language: str, text: bytes, key: str = "doc") -> Any:
    """What the worker process's job finds, reading from the units it kept of the document's previous version."""
    _pid, (found,) = scan.scan_texts([(key, language, text)], None, None, GrammarLimits())
    return every_field(found)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(FILES),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 40), st.sampled_from(INSERTS), st.booleans()), max_size=8),
)
def test_reading_only_the_changed_units_finds_what_a_fresh_walk_finds(
    path: Path, edits: list[tuple[float, int, str, bool]]
) -> None:
    language, text = LANGUAGES[path.suffix], path.read_text()
    assert kept(language, text.encode()) == in_thread(language, text.encode())
    for where, length, insert, at_line_start in edits:
        at = int(where * len(text))
        if at_line_start:
            at = text.rfind("\n", 0, at) + 1
        text = text[:at] + insert + text[at + length :]
        assert kept(language, text.encode()) == in_thread(language, text.encode())


PYTHON_CASES = {
    "a mark above an unchanged statement": [
        '# a note\nintro = "Hello there, dear user"\n',
        '# @prompt\nintro = "Hello there, dear user"\n',
        '# a note\nintro = "Hello there, dear user"\n',
    ],
    "a mark that makes a name a prompt in another statement": [
        'x = 1\n\ndef f():\n    pass\n\nintro = "Bye now, dear user"\n',
        '# @prompt\nintro = "Hello there, dear user"\n\ndef f():\n    pass\n\nintro = "Bye now, dear user"\n',
        'x = 1\n\ndef f():\n    pass\n\nintro = "Bye now, dear user"\n',
    ],
    "a trailing mark after an unchanged statement": [
        'intro = "Hello there, dear user"\nx = 1\n',
        'intro = "Hello there, dear user"  # @prompt\nx = 1\n',
    ],
    "a constant a chat message reads": [
        'SYSTEM = "Be terse."\n\nm = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi {q}"}]\n',
        'SYSTEM = "Be verbose."\n\nm = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi {q}"}]\n',
        'OTHER = "Be verbose."\n\nm = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi {q}"}]\n',
    ],
    "a broken last line that makes the whole module an ERROR": [
        'SYSTEM = "Be terse."\n\ndef f():\n    m = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi {q}"}]\n'
        "\ndef g(x):\n    return [e for e in c(m='t', input=x)]\n",
        'SYSTEM = "Be terse."\n\ndef f():\n    m = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi {q}"}]\n'
        "\ndef g(x):\n    return [e for e in c(m='t', input=t\"\n",
    ],
    "an import alias a call reads": [
        'from jinja2 import Template as T\n\nt = T("Write a friendly greeting for {name}")\n',
        'from jinja2 import Markup as T\n\nt = T("Write a friendly greeting for {name}")\n',
        'from jinja2 import Template as T\n\nt = T("Write a friendly greeting for {name}")\n',
    ],
}


@pytest.mark.parametrize("versions", PYTHON_CASES.values(), ids=PYTHON_CASES.keys())
def test_a_statement_is_read_again_when_what_it_reads_elsewhere_changed(versions: list[str]) -> None:
    fresh = [in_thread("python", v.encode()) for v in versions]
    assert len({repr(f) for f in fresh}) > 1  # the edits change what is found
    assert [kept("python", v.encode()) for v in versions] == fresh


def test_yaml_a_mark_above_a_document_and_a_new_document_before_it() -> None:
    versions = [
        "# nothing\nnote: Hello there, dear user\n",
        "# @prompt\nnote: Hello there, dear user\n",
        "a: 1\n---\nnote: Hello there, dear user\n",
        "a: 1\n# @prompt\n---\nnote: Hello there, dear user\n",
        "a: 1\n---\n# @prompt\nnote: Hello there, dear user\n",
        "system: Answer briefly in English\n---\na: 1\n---\n# @prompt\nnote: Hello there, dear user\n",
        "note: Hello there, dear user\n",
    ]
    assert [kept("yaml", v.encode()) for v in versions] == [in_thread("yaml", v.encode()) for v in versions]


class Counted:
    """Counts the statements or documents a detector's rules look at."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        for module, name in ((detect_python, "_assignment"), (detect_yaml, "key_of")):
            original = getattr(module, name)

            def counting(*args: Any, original: Any = original) -> Any:
                self.calls += 1
                return original(*args)

            monkeypatch.setattr(module, name, counting)


@pytest.mark.parametrize("language", ["python", "yaml"])
def test_after_a_one_line_edit_only_the_changed_unit_is_read_again(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a 10,000-line file, adding a prompt reads the rules over that statement (YAML: that document) alone; the
    walk over the whole file read every assignment (every key)."""
    text = python_file(10_000) if language == "python" else yaml_file(10_000)
    lines = text.split("\n")
    middle = len(lines) // 2
    if language == "python":
        while not lines[middle].startswith("class "):
            middle += 1
        added = 'ADDED_PROMPT = "Summarise {text} in one line."'
    else:
        while lines[middle] != "apiVersion: apps/v1":
            middle += 1
        added = "template: Summarise {text} in one line."
    edited = "\n".join([*lines[:middle], added, *lines[middle:]])
    counted = Counted(monkeypatch)
    first = kept(language, text.encode())
    whole = counted.calls
    counted.calls = 0
    again = kept(language, edited.encode())
    assert counted.calls <= whole / 200, (counted.calls, whole)
    assert len(again[0]) == len(first[0]) + 1
    assert again == in_thread(language, edited.encode())


def test_what_was_kept_under_other_keywords_is_not_reused() -> None:
    text = b'create(greeting="Hello there, dear user")\n'
    tree = parse_text("python", text)
    assert scan.scan("python", tree, text, None, None, "doc")[0] == []
    found, _error = scan.scan("python", tree, text, ("greeting",), None, "doc")
    assert [p.anchor for p in found] == ["create(greeting=)"]
    assert scan.scan("python", tree, text, None, None, "doc")[0] == []
