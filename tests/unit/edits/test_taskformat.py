"""The task output parser, fed token by token: partial closing tags are never content."""

from __future__ import annotations

import random

from tether_lsp.handlers.edits.taskformat import Event, TaskOutputParser

OUTPUT = """I will change two files.
<description>Use sum() and add a test</description>
<change><path>src/calc.py</path>
<range-to-replace>
    s = 0
    for i in items:
        s += i
    return s
</range-to-replace>
<replacement>
    return sum(items)
</replacement></change>
<change><path>tests/test_calc.py</path>
<range-to-replace>
</range-to-replace>
<replacement>
def test_total():
    assert total([1, 2]) == 3  # a < b and </repl is text here
</replacement></change>
<terminal-command>pytest -q</terminal-command>
"""


def finals(events: list[Event]) -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in events if e.final or e.kind in ("change-start", "change-end")]


def run(chunks: list[str]) -> list[Event]:
    parser = TaskOutputParser()
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events


def test_the_whole_output_at_once() -> None:
    assert finals(run([OUTPUT])) == [
        ("description", "Use sum() and add a test"),
        ("change-start", ""),
        ("path", "src/calc.py"),
        ("old", "    s = 0\n    for i in items:\n        s += i\n    return s\n"),
        ("new", "    return sum(items)\n"),
        ("change-end", ""),
        ("change-start", ""),
        ("path", "tests/test_calc.py"),
        ("old", ""),
        ("new", "def test_total():\n    assert total([1, 2]) == 3  # a < b and </repl is text here\n"),
        ("change-end", ""),
        ("terminal-command", "pytest -q"),
    ]


def test_token_by_token_gives_the_same_and_never_shows_a_partial_tag() -> None:
    rnd = random.Random(3)
    for _ in range(20):
        chunks, at = [], 0
        while at < len(OUTPUT):
            size = rnd.randint(1, 6)
            chunks.append(OUTPUT[at : at + size])
            at += size
        events = run(chunks)
        assert finals(events) == finals(run([OUTPUT]))
        for event in events:
            assert "</replacement" not in event.text
            assert "</range-to-replace" not in event.text
        news: list[str] = []
        for event in events:
            if event.kind == "change-start":
                news = []
            elif event.kind == "new":
                assert not news or event.text.startswith(news[-1])  # cumulative within a change
                news.append(event.text)
