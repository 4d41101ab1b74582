"""``run_prompt``: a prompt, named by the id ``prompts`` or ``outline`` gave, sent to the chat model with its
variables by the playground's runs service (``handlers/playground/runs.py`` ``Runner``): the same messages, the
same endpoint settings (``tether.playground.*``, else ``tether.tasks.*``), the same inputs an editor saved for
the prompt, and the run stored in the prompt's history where the editors' playground lists it.

The prompt is taken from its file as it is now (read again, its ids resolved as :mod:`.prompt_ids` does); a
prompt of a file outside the roots is refused. The answer streams nothing: each piece of it is told to
``progress`` (MCP progress notifications, when the client asked for them) and the whole answer comes at the end.
The model call holds no lock: other tools answer while it runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tether_lsp.handlers.playground.engine import FileView, Found, Playground
from tether_lsp.handlers.playground.model import PlaygroundMap
from tether_lsp.handlers.playground.runs import Runner, RunOutcome, RunRequest
from tether_lsp.handlers.playground.settings import PlaygroundSettings
from tether_lsp.server.errors import InvalidParams, StorageError
from tether_lsp.server.files import file_exists, uri_to_path
from tether_lsp.server.settings import Settings

from .args import Json, obj, only, string
from .context import Answer, Context

if TYPE_CHECKING:
    from tether_lsp.handlers.playground.store import PlaygroundStore

R = TypeVar("R")

#: Told how many characters of the answer arrived so far, and the newest piece.
Progress = Callable[[float, str], Awaitable[None]]


class Host:
    """What the runs service needs of this front: its settings, and worker threads for the database."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    @property
    def settings(self) -> Settings:
        return self._settings

    async def run_blocking(self, fn: Callable[..., R], *args: Any) -> R:
        return await asyncio.to_thread(fn, *args)


class FoundIn:
    """The playground as a run sees it (the runs service's ``Prompts``): the prompt's file as it is now and the
    database that keeps its saved inputs and runs."""

    def __init__(self, engine: Playground, store: PlaygroundStore | None) -> None:
        self._engine = engine
        self._store = store

    @property
    def engine(self) -> Playground:
        return self._engine

    async def caught_up(self) -> None:
        """Nothing to wait for: the file was read when the prompt was found."""

    def store(self) -> PlaygroundStore:
        if self._store is None:
            raise StorageError("no database could be opened for this prompt's root")
        return self._store


def find(context: Context, prompt_id: str) -> FoundIn:
    """The prompt named ``prompt_id``, in its file as it is now (worker thread, under the context's lock)."""
    settings = context.settings.section(PlaygroundSettings)
    for _root, pmap, store in context.prompt_maps.maps():
        entry = next((e for e in pmap.files.values() if any(p.id == prompt_id for p in e.prompts)), None)
        if entry is None:
            continue
        path = uri_to_path(entry.uri)
        try:
            real, _ = context.files.roots.resolve(str(path or entry.uri), "prompt_id")
        except InvalidParams:
            raise InvalidParams(
                "prompt_id",
                f"{prompt_id} is a prompt of {path or entry.uri}, outside the roots "
                f"({context.files.roots.describe()}): refused",
                kind="outsideRoots",
            ) from None
        engine = Playground(
            PlaygroundMap({entry.id: entry}),
            exists=file_exists,
            on_map_change=lambda _entry: None,
            keywords=settings.keywords or None,
            yaml_keys=settings.yamlKeys or None,
        )
        if real.exists():
            file = context.load(str(real), "prompt_id")
            parsed = context.trees.parsed(file, "prompt_id")
            found = context.prompt_maps.found(file, parsed)
            context.shown(file)
            if not any(f.prompt_id == prompt_id for f in found):
                raise InvalidParams(
                    "prompt_id",
                    f"{file.shown} no longer holds prompt {prompt_id} (its text changed past recognition or it "
                    "was removed): list its prompts again",
                    kind="unknownPrompt",
                )
            uri = Path(real).as_uri()
            engine.views[uri] = FileView(
                uri, parsed.language, 0, file.text, [Found(entry.id, f.prompt_id, f.prompt) for f in found], None
            )
        # a file gone from disk: the prompt as the map last saw it (as the editors' playground runs it)
        return FoundIn(engine, store)
    raise InvalidParams(
        "prompt_id", f"no prompt with id {prompt_id!r} (prompts or outline give the ids)", kind="unknownPrompt"
    )


def answer(outcome: RunOutcome) -> Answer:
    structured: Json = {"output": outcome.output, "model": outcome.model, "finish_reason": outcome.finish_reason}
    tail = f"(model {outcome.model}, finish_reason {outcome.finish_reason}"
    if outcome.usage is not None:
        usage = outcome.usage
        structured["usage"] = {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}
        tail += f", {usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens"
    return Answer(structured, f"{outcome.output}\n{tail})")


async def run_prompt(context: Context, arguments: Mapping[str, Any], progress: Progress | None = None) -> Answer:
    only(arguments, ("prompt_id", "variables", "model"))
    prompt_id = string(arguments, "prompt_id") or ""
    variables = arguments.get("variables")
    if variables is not None:
        obj(variables, "variables")
    model = string(arguments, "model", required=False)

    def locked() -> FoundIn:
        with context.lock:
            return find(context, prompt_id)

    found = await asyncio.to_thread(locked)
    pieces: asyncio.Queue[str | None] = asyncio.Queue()

    async def tell() -> None:
        received = 0
        while (piece := await pieces.get()) is not None:
            received += len(piece)
            if progress is not None:
                await progress(received, piece)

    teller = asyncio.ensure_future(tell())
    try:
        outcome = await Runner(Host(context.settings), found).run(
            RunRequest(prompt_id, variables, model), lambda _run_id, piece: pieces.put_nowait(piece)
        )
    except InvalidParams as exc:
        if exc.data.get("kind") != "missingVariable":
            raise
        absent = list(exc.data.get("missing", []))
        raise InvalidParams(  # an agent gives values in `variables`, not in a playground's form
            exc.data.get("field"),
            f"no value for {', '.join(absent)}: give each in variables",
            kind="missingVariable",
            missing=absent,
        ) from None
    finally:
        pieces.put_nowait(None)
        await teller
    return answer(outcome)
