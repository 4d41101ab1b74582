"""LSP edge of playground runs: ``tether/playground/run`` sends a prompt to a chat model and streams the answer
as ``tether/playground/didRunOutput``; ``tether/playground/runs`` lists a prompt's stored runs.

The model call is asyncio I/O on the loop (no thread); the database is touched only in workers. A run is stored
once the model finished, keyed by the prompt's id, so the history follows the prompt across edits, renames and
restarts. ``$/cancelRequest`` cancels the call (the connection is closed) and answers -32800; a cancelled or
failed run is not stored. The API key is read from the environment for each run and never logged or stored.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tether_lsp.server import chat, http
from tether_lsp.server.errors import InvalidParams, RequestFailed, StorageError
from tether_lsp.server.settings import LimitSettings

from . import run as compose
from .model import Prompt
from .settings import PlaygroundSettings
from .text import variables as variables_of
from .wire import Message, PlaygroundRunParams, PlaygroundRunResult, RunOptions, RunOutput, RunsParams, StoredRun, Usage

if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer

    from .session import Session

log = logging.getLogger(__name__)

#: ``tether/playground/runs`` returns at most this many runs when no ``limit`` is given, and never more than
#: ``MAX_LIMIT``.
DEFAULT_LIMIT = 20
MAX_LIMIT = 500


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
    if not isinstance(value, dict):
        raise InvalidParams(field, f"expected an object of strings, got {type(value).__name__}")
    for name, text in value.items():
        if not isinstance(text, str):
            raise InvalidParams(f"{field}.{name}", f"expected a string, got {type(text).__name__}")
    return dict(value)


def _new_run_id() -> str:
    """Sortable by time (then random): runs of one millisecond still have distinct ids."""
    return f"r-{time.time_ns() // 1_000_000:x}-{secrets.token_hex(3)}"


class Runs:
    """The two requests over one server's playground :class:`~.session.Session`."""

    def __init__(self, server: TetherServer, session: Session) -> None:
        self.server = server
        self.session = session

    def prompt(self, prompt_id: str) -> Prompt:
        """The prompt as it is now in an open document, else as the map last saw it."""
        engine = self.session.engine
        for view in engine.views.values():
            for found in view.found:
                if found.prompt_id == prompt_id:
                    return found.prompt
        for entry in engine.pmap.files.values():
            for known in entry.prompts:
                if known.id == prompt_id:
                    return Prompt(known.anchor, known.content, (0, 0), tuple(variables_of(known.content)))
        raise InvalidParams("promptId", f"no prompt with id {prompt_id!r}", kind="unknownPrompt")

    def target(self, ls: TetherServer, model: str | None) -> Target:
        mine = ls.settings.section(PlaygroundSettings)
        tasks = ls.settings.named("tasks")  # inline tasks' endpoint, model and key, when those are not set here
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

    async def saved(self, ls: TetherServer, prompt_id: str) -> dict[str, Any]:
        """The inputs ``setSettings`` stored for the prompt (``variables``, ``model``, ``options``), or nothing."""

        def read() -> dict[str, Any] | None:
            return self.session.store().settings(prompt_id)

        try:
            return await ls.run_blocking(read) or {}
        except StorageError as exc:  # already in the log, where it happened; the run goes on without them
            log.debug("playground: no saved inputs for %s (%s)", prompt_id, exc)
            return {}
        except Exception as exc:
            log.warning("playground: could not read the saved inputs of %s (%s)", prompt_id, exc)
            return {}

    async def run(self, params: PlaygroundRunParams) -> PlaygroundRunResult:
        """Send a prompt to the model with its variables; the answer streams as `didRunOutput` first."""
        ls = self.server
        await self.session.caught_up()
        prompt = self.prompt(params.prompt_id)
        saved = await self.saved(ls, params.prompt_id)
        values = _strings_or_none(saved.get("variables")) | _strings(params.variables, "variables")
        options = params.options or RunOptions()
        saved_options = saved.get("options")
        if not isinstance(saved_options, dict):
            saved_options = {}
        temperature = options.temperature if options.temperature is not None else saved_options.get("temperature")
        max_tokens = options.max_tokens if options.max_tokens is not None else saved_options.get("maxTokens")
        if temperature is not None:
            temperature = _number(temperature, "options.temperature", 0, 2)
        if max_tokens is not None:
            max_tokens = _count(max_tokens, "options.maxTokens", 1, 1_000_000)
        conv = compose.conversation(prompt)
        absent = compose.missing(conv.variables, values)
        if absent:
            raise InvalidParams(
                f"variables.{absent[0]}",
                f"the prompt uses {', '.join(absent)} and no value was given (nor saved with setSettings)",
                kind="missingVariable",
                missing=absent,
            )
        saved_model = saved.get("model") if isinstance(saved.get("model"), str) else None
        target = self.target(ls, params.model or saved_model)
        messages = compose.messages(conv, values)
        body = target.endpoint.body(target.model, messages, temperature, max_tokens)
        run_id = _new_run_id()
        started, created = time.monotonic(), datetime.now(UTC)
        pieces: list[str] = []
        finish = chat.Finish(None, None)
        max_bytes = ls.settings.section(LimitSettings).maxResponseBytes
        try:
            async with asyncio.timeout(target.timeout):
                async for piece in chat.stream(target.endpoint, body, target.headers, max_bytes):
                    if isinstance(piece, chat.Finish):
                        finish = piece
                        break
                    pieces.append(piece)
                    ls.protocol.notify("tether/playground/didRunOutput", RunOutput(run_id, piece))
        except TimeoutError:
            raise RequestFailed(
                f"the model gave no complete answer within {target.timeout:g} s (tether.playground.timeout)",
                "modelFailed",
            ) from None
        except http.HttpError as exc:
            log.warning("playground run: %s", exc)
            raise RequestFailed(f"the model call failed: {exc}", "modelFailed", reason=str(exc)) from None
        usage = Usage(finish.usage["promptTokens"], finish.usage["completionTokens"]) if finish.usage else None
        result = PlaygroundRunResult(
            run_id,
            params.prompt_id,
            "".join(pieces),
            target.model,
            finish.reason,
            round((time.monotonic() - started) * 1000),
            usage,
        )
        stored = StoredRun(
            run_id,
            params.prompt_id,
            created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            target.model,
            prompt.content,
            {k: values[k] for k in conv.variables},
            [Message(m["role"], m["content"]) for m in messages],
            result.output,
            result.finish_reason,
            result.duration_ms,
            usage,
        )
        await self._store(ls, stored, created.timestamp())
        return result

    async def _store(self, ls: TetherServer, run: StoredRun, created_at: float) -> None:
        keep = ls.settings.section(PlaygroundSettings).maxRunsPerPrompt
        data = ls.protocol._converter.unstructure(run)  # the wire shape, camelCase, as `runs` returns it

        def write() -> None:
            self.session.store().add_run(run.prompt_id, run.run_id, created_at, data, keep)

        try:
            await ls.run_blocking(write)
        except StorageError as exc:  # already in the log, where it happened; the answer is still given
            log.debug("playground: run %s is not stored (%s)", run.run_id, exc)
        except Exception as exc:  # the answer is still given; only the history misses it
            log.warning("playground: could not store run %s (%s)", run.run_id, exc)

    async def runs(self, params: RunsParams) -> list[StoredRun]:
        """The prompt's latest runs, newest first (they follow the prompt's id across edits and renames)."""
        ls = self.server
        await self.session.caught_up()
        self.prompt(params.prompt_id)
        limit = DEFAULT_LIMIT if params.limit is None else _count(params.limit, "limit", 1, MAX_LIMIT)

        def read() -> list[dict[str, Any]]:
            return self.session.store().runs(params.prompt_id, limit)

        converter = ls.protocol._converter
        return [converter.structure(data, StoredRun) for data in await ls.run_blocking(read)]


def _strings_or_none(value: Any) -> dict[str, str]:
    """Saved variables as strings (a saved value of another type is skipped: the client wrote it, not us)."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}
