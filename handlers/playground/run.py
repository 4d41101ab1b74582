"""What a playground run sends: the prompt made into chat messages, its variables filled in.

Messages are built from what the prompt is: a message of a conversation (a ``{"role", "content"}`` list, a
LangChain ``from_messages``, a ``.prompt.yml`` ``messages:``) sends the whole conversation as written; a system
prompt is sent alone as the system message; anything else (a template, a user prompt) is the user message.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .model import Prompt
from .text import FIELDS, shown
from .text import variables as variables_of

#: Roles a chat endpoint takes; anything else (a LangChain ``placeholder``) is not sent.
CHAT_ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class Conversation:
    """The messages of a run and the variables they need, in first-seen order."""

    messages: tuple[tuple[str, str], ...]
    variables: tuple[str, ...]


def conversation(prompt: Prompt) -> Conversation:
    if prompt.chat:
        messages = tuple((role, text) for role, text in prompt.chat if role in CHAT_ROLES)
    elif prompt.role == "system":
        messages = (("system", prompt.content),)
    else:
        messages = (("user", prompt.content),)
    names: list[str] = list(prompt.variables) if not prompt.chat else []
    for _role, text in messages:
        names += [n for n in variables_of(text) if n not in names]
    return Conversation(messages, tuple(names))


def missing(needed: tuple[str, ...], given: Mapping[str, str]) -> list[str]:
    return [name for name in needed if name not in given]


def fill(text: str, values: Mapping[str, str]) -> str:
    """Each variable field (``{x}``, ``{x!r:>5}``, ``{{ x | f }}``, ``{{$x}}``, ``${x}``, ``$x``: the fields
    :func:`.text.variables` finds) replaced by its value; a field whose variable has no value stays as written."""

    def value(match: re.Match[str]) -> str:
        name = next(g for g in match.groups() if g)
        return values.get(name, match.group(0))

    return FIELDS.sub(value, text)


def messages(conv: Conversation, values: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"role": role, "content": shown(fill(text, values))} for role, text in conv.messages]
