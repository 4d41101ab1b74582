"""The wire types of the prompt playground (``tether/playground/*``, ``tether/editor/*``): the params and results of
its methods and notifications, camelCase on the wire (``server/protocol.py`` converts them). Only the glue and its
method table use them; engines and services never do."""

from __future__ import annotations

from typing import Any

import attrs
from lsprotocol import types


@attrs.define
class DocumentRef:
    uri: str


@attrs.define
class ActiveEditorParams:
    text_document: DocumentRef | None = None
    position: types.Position | None = None


@attrs.define
class CursorParams:
    text_document: DocumentRef
    position: types.Position


@attrs.define
class Empty:
    pass


@attrs.define
class PinParams:
    file_id: str
    prompt_id: str


@attrs.define
class SetSettingsParams:
    prompt_id: str
    settings: Any


@attrs.define
class GetSettingsParams:
    prompt_id: str


@attrs.define
class FileInfo:
    uri: str
    file_id: str
    language_id: str


@attrs.define
class PromptItem:
    file_id: str
    prompt_id: str
    preview: str
    range: types.Range
    anchor: str


@attrs.define
class SelectedPrompt:
    file_id: str
    prompt_id: str
    preview: str
    range: types.Range
    anchor: str
    content: str
    reason: str
    variables: list[str] = attrs.field(factory=list)  # what `tether/playground/run` needs values for
    role: str | None = None  # system, user, assistant; null: a template (sent as the user message)


@attrs.define
class Pin:
    file_id: str
    prompt_id: str


@attrs.define
class PlaygroundState:
    """What a playground view shows; sent only when it changes."""

    file: FileInfo | None
    prompt: SelectedPrompt | None
    prompts: list[PromptItem]
    pin: Pin | None
    parse_error: str | None


@attrs.define
class RunOptions:
    temperature: float | None = None
    max_tokens: int | None = None


@attrs.define
class PlaygroundRunParams:
    prompt_id: str
    variables: dict[str, Any] | None = None
    model: str | None = None
    options: RunOptions | None = None


@attrs.define
class Usage:
    prompt_tokens: int
    completion_tokens: int


@attrs.define
class PlaygroundRunResult:
    run_id: str
    prompt_id: str
    output: str
    model: str
    finish_reason: str | None
    duration_ms: int
    usage: Usage | None = attrs.field(default=None, metadata={"omit_none": True})


@attrs.define
class RunOutput:
    """A piece of a run's answer, sent as it arrives (before the ``run`` request is answered)."""

    run_id: str
    delta: str


@attrs.define
class RunsParams:
    prompt_id: str
    limit: int | None = None


@attrs.define
class Message:
    role: str
    content: str


@attrs.define
class StoredRun:
    """A run as stored: what was sent (the prompt text, its variables, the messages, the options), to which model,
    the answer. ``temperature`` and ``max_tokens`` are left out when none was sent (the model's default), as in
    the database."""

    run_id: str
    prompt_id: str
    created_at: str  # ISO 8601, UTC
    model: str
    prompt: str
    variables: dict[str, str]
    messages: list[Message]
    output: str
    finish_reason: str | None
    duration_ms: int
    usage: Usage | None = attrs.field(default=None, metadata={"omit_none": True})
    temperature: float | None = attrs.field(default=None, metadata={"omit_none": True})
    max_tokens: int | None = attrs.field(default=None, metadata={"omit_none": True})
