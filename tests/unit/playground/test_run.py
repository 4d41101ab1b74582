"""What a run sends: conversations, system prompts and templates as messages, variables filled in."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.playground.model import Prompt
from tether_lsp.handlers.playground.run import conversation, fill, messages, missing


def prompt(
    content: str, role: str | None = None, chat: tuple[tuple[str, str], ...] = (), vars_: tuple[str, ...] = ()
) -> Prompt:
    return Prompt("a", content, (0, len(content)), vars_, role, chat)


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        ("Hi {name}!", {"name": "Zoé"}, "Hi Zoé!"),
        ("{a}{b}", {"a": "1", "b": "2"}, "12"),
        ("Pad {n:>5} and {n!r}", {"n": "x"}, "Pad x and x"),  # format specs and conversions are whole fields
        ("Jinja {{ user | upper }} and {{user}}", {"user": "東京"}, "Jinja 東京 and 東京"),
        ("Kernel {{$input}}", {"input": "🚀"}, "Kernel 🚀"),
        ("Shell ${x} and $x.", {"x": "v"}, "Shell v and v."),
        ("Kept {other} as written", {"name": "n"}, "Kept {other} as written"),
        ("A value with braces {x}", {"x": "{y}"}, "A value with braces {y}"),  # values are not re-filled
    ],
)
def test_fill(text: str, values: dict[str, str], expected: str) -> None:
    assert fill(text, values) == expected


def test_a_template_is_the_user_message_and_its_variables_come_first() -> None:
    conv = conversation(prompt("Translate {text} into {language}", vars_=("language", "text")))
    assert conv.variables == ("language", "text")  # a prompt function's parameter order
    assert messages(conv, {"text": "bonjour", "language": "English"}) == [
        {"role": "user", "content": "Translate bonjour into English"}
    ]


def test_a_system_prompt_is_sent_alone_as_the_system_message() -> None:
    conv = conversation(prompt("Be terse.", role="system"))
    assert messages(conv, {}) == [{"role": "system", "content": "Be terse."}]
    assert conversation(prompt("Reply as {who}", role="assistant")).messages == (("user", "Reply as {who}"),)


def test_a_message_sends_its_whole_conversation_and_needs_every_variable_of_it() -> None:
    chat = (("system", "You help {team}."), ("placeholder", "{history}"), ("user", "Q: {q}"))
    conv = conversation(prompt("Q: {q}", role="user", chat=chat, vars_=("q",)))
    assert conv.variables == ("team", "q")  # the placeholder is not sent, so {history} is not asked for
    assert messages(conv, {"team": "ops", "q": "why?"}) == [
        {"role": "system", "content": "You help ops."},
        {"role": "user", "content": "Q: why?"},
    ]
    assert missing(conv.variables, {"q": "x"}) == ["team"]
    assert missing(conv.variables, {"q": "x", "team": ""}) == []  # an empty value is a value
