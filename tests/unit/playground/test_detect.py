"""Prompt detection, table-driven: every pattern of PLAYGROUND.md, and what must not be a prompt."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.playground.engine import detect
from tether_lsp.server.syntax import parse_text


def found(language: str, source: str) -> list[tuple[str, str]]:
    data = source.encode("utf-8")
    return [(p.anchor, p.content) for p in detect(language, parse_text(language, data), data)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('SYSTEM_PROMPT = "You are terse."\n', [("SYSTEM_PROMPT", "You are terse.")]),
        ('system_prompt: str = "Typed and annotated."\n', [("system_prompt", "Typed and annotated.")]),
        (  # P1: attribute in a method, an f-string with a variable
            'class Bot:\n    def run(self, name):\n        self.user_prompt = f"Hello {name}, how are you?"\n',
            [("Bot.run().user_prompt", "Hello {name}, how are you?")],
        ),
        ('PROMPT = ("Part one, " "part two.")\n', [("PROMPT", "Part one, part two.")]),  # parens + implicit concat
        ('PROMPT = "Dear " + name + ", welcome."\n', [("PROMPT", "Dear {name}, welcome.")]),  # a + chain
        (
            'import textwrap\nPROMPT = textwrap.dedent("""\n    Line one.\n      Indented.\n""")\n',
            [("PROMPT", "\nLine one.\n  Indented.\n")],
        ),
        ('from inspect import cleandoc\nPROMPT = cleandoc("""\n    A.\n    B.\n""")\n', [("PROMPT", "A.\nB.")]),
        ('PROMPT = r"raw \\n stays"\n', [("PROMPT", "raw \\n stays")]),
        ('PROMPT = "escape\\tdecoded \\u00e9"\n', [("PROMPT", "escape\tdecoded é")]),
        (  # P2: a comment marks the name; blank lines allowed; the name stays a prompt in its scope
            '# @prompt\n\nintro = "Hello " "world"\nintro = "Later, again"\nother = "not one"\n',
            [("intro", "Hello world"), ("intro", "Later, again")],
        ),
        ('greeting = "Trailing mark works"  # @prompt\n', [("greeting", "Trailing mark works")]),
        (  # P3: keyword arguments
            'client.messages.create(system="Be terse.", max_tokens=5)\n',
            [("client.messages.create(system=)", "Be terse.")],
        ),
        (  # P4: role/content dicts; role values are not prompts
            'messages = [{"role": "system", "content": "Sys text"}, {"role": "user", "content": f"Q: {q}"}]\n',
            [("messages[0].content", "Sys text"), ("messages[1].content", "Q: {q}")],
        ),
        (  # P5: dict keys from the keyword list or matching /prompt/i; dict keys themselves are not prompts
            'cfg = {"system_prompt": "Answer well.", "myPrompt": "Another one", "name": "not a prompt"}\n',
            [("cfg.system_prompt", "Answer well."), ("cfg.myPrompt", "Another one")],
        ),
    ],
)
def test_python_patterns(source: str, expected: list[tuple[str, str]]) -> None:
    assert found("python", source) == expected


@pytest.mark.parametrize(
    "source",
    [
        '"""Module docstring about the prompt."""\n',
        'def f():\n    """A docstring, prompt-like."""\n',
        'PROMPT = b"bytes are never prompts"\n',
        'PROMPT = "ab"\n',  # under 3 non-space characters
        "PROMPT = 42\n",
        'x = {"prompt": 5}\n',
        'messages = [{"role": "user"}]\n',
        'name = "not marked"\n',
    ],
)
def test_python_non_prompts(source: str) -> None:
    assert found("python", source) == []


YAML = """summarize:
  system: |
    You are {{ role }}.
    Be brief.
  temperature: 0.2
  user_prompt: >-
    Folded
    text here
messages:
  - role: system
    content: "Quoted \\"text\\" with escape"
  - role: user
    content: 'It''s single quoted'
# @prompt

note: Marked by a comment
ratio: 3
enabled_prompt: true
base: &b
  template: Shared template text
copy: *b
"""


def test_yaml_patterns() -> None:
    assert found("yaml", YAML) == [
        ("summarize.system", "You are {{ role }}.\nBe brief.\n"),
        ("summarize.user_prompt", "Folded text here"),
        ("messages[0].content", 'Quoted "text" with escape'),
        ("messages[1].content", "It's single quoted"),
        ("note", "Marked by a comment"),
        ("base.template", "Shared template text"),  # the alias `copy: *b` is not a second prompt
    ]


def test_yaml_multi_document_streams_prefix_the_document() -> None:
    source = "system: First document prompt\n---\nsystem: Second document prompt\n"
    assert found("yaml", source) == [("0:system", "First document prompt"), ("1:system", "Second document prompt")]


def test_yaml_flow_mappings() -> None:
    assert found("yaml", "x: {user: flow value here, n: 1}\n") == [("x.user", "flow value here")]


def test_variables() -> None:
    data = b'P_PROMPT = f"Hi {name}, {{literal}} ${other} $third {name}"\n'
    (prompt,) = detect("python", parse_text("python", data), data)
    assert prompt.variables == ("name", "literal", "other", "third")
