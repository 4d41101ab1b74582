"""Playground runs as a service, in plain Python values: a prompt sent to a chat model with its variables (the
answer streamed piece by piece to a callback), and each prompt's stored runs.

The model call is asyncio I/O on the loop (no thread); the database is touched only in workers (the host's
``run_blocking``). A run is stored once the model finished, keyed by the prompt's id, so the history follows
the prompt across edits, renames and restarts. Cancelling :meth:`Runner.run` cancels the call (the connection
is closed); a cancelled or failed run is not stored. The API key is read from the environment for each run
and never logged or stored.

What it needs of the process it runs in is the :class:`~tether_lsp.server.host.Host` (the settings and the
workers); where it finds the prompt and keeps its history is any :class:`Prompts`: an editor's session
(:class:`~.session.Session`), or one prompt found as its file reads now (:class:`~.identity.OnePrompt`). Both
fronts run a prompt through :meth:`Runner.run`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from tether_lsp.server import chat, http
from tether_lsp.server.errors import InvalidParams, RequestFailed, StorageError
from tether_lsp.server.settings import LimitSettings

from . import run as compose
from .settings import PlaygroundSettings
from .stored_run import Message as Message
from .stored_run import StoredRun as StoredRun
from .stored_run import Usage as Usage
from .text import shown

if TYPE_CHECKING:
    from tether_lsp.server.host import Host

    from .model import Prompt
    from .store import PlaygroundStore

log = logging.getLogger(__name__)

#: :meth:`Runner.stored_runs` returns at most this many runs when no ``limit`` is given, and never more than
#: ``MAX_LIMIT``.
DEFAULT_LIMIT = 20
MAX_LIMIT = 500


class Prompts(Protocol):
    """Where runs find prompts and keep their history."""

    async def caught_up(self) -> None:
        """Wait until the document events that arrived before the request are processed."""

    def prompt(self, prompt_id: str) -> Prompt:
        """The prompt as it is now; InvalidParams (``unknownPrompt``) when there is no such prompt."""

    def store(self) -> PlaygroundStore:
        """The playground's tables (workers only); StorageError when the database cannot be opened."""


#: Told each piece of a run's answer as it arrives: ``(run_id, text)``.
OnOutput = Callable[[str, str], None]


@dataclass(frozen=True)
class RunRequest:
    """A run as asked for. ``variables`` are checked here (each value must be a string); what is not given
    (variables, model, options) comes from the prompt's saved inputs, then the settings."""

    prompt_id: str
    variables: Mapping[str, Any] | None = None
    model: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None


@dataclass(frozen=True)
class RunOutcome:
    """A run's answer, once the model finished."""

    run_id: str
    prompt_id: str
    output: str
    model: str
    finish_reason: str | None
    duration_ms: int
    usage: Usage | None = None


@dataclass(frozen=True)
class Target:
    """Where a run goes: the endpoint, the model, the request headers (the API key, never logged)."""

    endpoint: chat.ChatEndpoint
    model: str
    headers: dict[str, str]
    timeout: float


def _number(value: Any, field: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise InvalidParams(field, f"expected a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _count(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidParams(field, f"expected an integer from {low} to {high}, got {value!r}")
    return value


def _strings(value: Any, field: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidParams(field, f"expected an object of strings, got {type(value).__name__}")
    for name, text in value.items():
        if not isinstance(text, str):
            raise InvalidParams(f"{field}.{name}", f"expected a string, got {type(text).__name__}")
    return dict(value)


def _strings_or_none(value: Any) -> dict[str, str]:
    """Saved variables as strings (a saved value of another type is skipped: the client wrote it, not us)."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def missing_message(names: list[str]) -> str:
    """What a user reads when variables have no value: which ones, and how to give them (the clients add their
    editor's key)."""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if len(names) == 1:
        return f"no value for the variable {listed}: set it in the playground (e.g. its variables form) before running"
    return f"no value for the variables {listed}: set them in the playground (e.g. its variables form) before running"


def _new_run_id() -> str:
    """Sortable by time (then random): runs of one millisecond still have distinct ids."""
    return f"r-{time.time_ns() // 1_000_000:x}-{secrets.token_hex(3)}"


class Runner:
    """The playground's runs over one host and one place that finds prompts (:class:`Prompts`)."""

    def __init__(self, host: Host, prompts: Prompts) -> None:
        self.host = host
        self.prompts = prompts

    def target(self, model: str | None) -> Target:
        settings = self.host.settings
        mine = settings.section(PlaygroundSettings)
        tasks = settings.named("tasks")  # inline tasks' endpoint, model and key, when those are not set here
        url = mine.endpoint or getattr(tasks, "endpoint", None)
        if not url:
            raise RequestFailed(
                "no model endpoint: set tether.playground.endpoint (or tether.tasks.endpoint) to an "
                "OpenAI-compatible chat completions URL or an Ollama server",
                "noEndpoint",
                setting="tether.playground.endpoint",
            )
        try:
            endpoint = chat.ChatEndpoint.parse(url)
        except http.HttpError as exc:
            setting = "tether.playground.endpoint" if mine.endpoint else "tether.tasks.endpoint"
            raise RequestFailed(f"{setting}: {exc}", "badEndpoint", setting=setting) from None
        key_env = mine.apiKeyEnv or getattr(tasks, "apiKeyEnv", None)
        key = os.environ.get(key_env) if key_env else None
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        name = model or mine.model or getattr(tasks, "model", None) or "default"
        return Target(endpoint, name, headers, mine.timeout)

    async def saved(self, prompt_id: str) -> dict[str, Any]:
        """The inputs saved for the prompt (``variables``, ``model``, ``options``), or nothing."""

        def read() -> dict[str, Any] | None:
            return self.prompts.store().settings(prompt_id)

        try:
            return await self.host.run_blocking(read) or {}
        except StorageError as exc:  # already in the log, where it happened; the run goes on without them
            log.debug("playground: no saved inputs for %s (%s)", prompt_id, exc)
            return {}
        except Exception as exc:
            log.warning("playground: could not read the saved inputs of %s (%s)", prompt_id, exc)
            return {}

    async def run(self, request: RunRequest, on_output: OnOutput) -> RunOutcome:
        """Send a prompt to the model with its variables; each piece of the answer goes to ``on_output`` as it
        arrives, before the outcome is returned."""
        await self.prompts.caught_up()
        prompt = self.prompts.prompt(request.prompt_id)
        saved = await self.saved(request.prompt_id)
        values = _strings_or_none(saved.get("variables")) | _strings(request.variables, "variables")
        saved_options = saved.get("options")
        if not isinstance(saved_options, dict):
            saved_options = {}
        temperature = request.temperature if request.temperature is not None else saved_options.get("temperature")
        max_tokens = request.max_tokens if request.max_tokens is not None else saved_options.get("maxTokens")
        if temperature is not None:
            temperature = _number(temperature, "options.temperature", 0, 2)
        if max_tokens is not None:
            max_tokens = _count(max_tokens, "options.maxTokens", 1, 1_000_000)
        conv = compose.conversation(prompt)
        absent = compose.missing(conv.variables, values)
        if absent:
            raise InvalidParams(
                f"variables.{absent[0]}", missing_message(absent), kind="missingVariable", missing=absent
            )
        saved_model = saved.get("model") if isinstance(saved.get("model"), str) else None
        target = self.target(request.model or saved_model)
        messages = compose.messages(conv, values)
        body = target.endpoint.body(target.model, messages, temperature, max_tokens)
        run_id = _new_run_id()
        started, created = time.monotonic(), datetime.now(UTC)
        pieces: list[str] = []
        finish = chat.Finish(None, None)
        max_bytes = self.host.settings.section(LimitSettings).maxResponseBytes
        try:
            async with asyncio.timeout(target.timeout):
                async for piece in chat.stream(target.endpoint, body, target.headers, max_bytes):
                    if isinstance(piece, chat.Finish):
                        finish = piece
                        break
                    pieces.append(piece)
                    on_output(run_id, piece)
        except TimeoutError:
            raise RequestFailed(
                f"the model gave no complete answer within {target.timeout:g} s (tether.playground.timeout)",
                "modelFailed",
            ) from None
        except http.HttpError as exc:
            log.warning("playground run: %s", exc)
            raise RequestFailed(f"the model call failed: {exc}", "modelFailed", reason=str(exc)) from None
        usage = Usage(finish.usage["promptTokens"], finish.usage["completionTokens"]) if finish.usage else None
        outcome = RunOutcome(
            run_id,
            request.prompt_id,
            "".join(pieces),
            target.model,
            finish.reason,
            round((time.monotonic() - started) * 1000),
            usage,
        )
        stored = StoredRun(
            run_id,
            request.prompt_id,
            created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            target.model,
            shown(prompt.content),
            {k: values[k] for k in conv.variables},
            tuple(Message(m["role"], m["content"]) for m in messages),
            outcome.output,
            outcome.finish_reason,
            outcome.duration_ms,
            usage,
            temperature,
            max_tokens,
        )
        await self._store(stored, created.timestamp())
        return outcome

    async def _store(self, run: StoredRun, created_at: float) -> None:
        keep = self.host.settings.section(PlaygroundSettings).maxRunsPerPrompt
        data = run.to_json()

        def write() -> None:
            self.prompts.store().add_run(run.prompt_id, run.run_id, created_at, data, keep)

        try:
            await self.host.run_blocking(write)
        except StorageError as exc:  # already in the log, where it happened; the answer is still given
            log.debug("playground: run %s is not stored (%s)", run.run_id, exc)
        except Exception as exc:  # the answer is still given; only the history misses it
            log.warning("playground: could not store run %s (%s)", run.run_id, exc)

    async def stored_runs(self, prompt_id: str, limit: int | None = None) -> list[StoredRun]:
        """The prompt's latest runs, newest first (they follow the prompt's id across edits and renames);
        ``limit``: at most that many (``DEFAULT_LIMIT`` when None), from 1 to ``MAX_LIMIT``."""
        await self.prompts.caught_up()
        self.prompts.prompt(prompt_id)
        count = DEFAULT_LIMIT if limit is None else _count(limit, "limit", 1, MAX_LIMIT)

        def read() -> list[dict[str, Any]]:
            return self.prompts.store().runs(prompt_id, count)

        return [StoredRun.from_json(data) for data in await self.host.run_blocking(read)]
