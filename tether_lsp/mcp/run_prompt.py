"""``run_prompt``: a prompt, named by the id ``prompts`` or ``outline`` gave, sent to the chat model with its
variables by the playground's runs service (``handlers/playground/runs.py`` ``Runner``): the same messages, the
same endpoint settings (``tether.playground.*``, else ``tether.tasks.*``), the same inputs an editor saved for
the prompt, and the run stored in the prompt's history where the editors' playground lists it.

The prompt is taken from its file as it is now (read again, its ids resolved as :mod:`.prompt_ids` does; a
file gone from disk: as the map last saw it, as the editors' playground runs it) and run on the host of its
database, by the same :meth:`~tether_lsp.handlers.playground.runs.Runner.run` an editor's run goes through; a
prompt of a file outside the roots is refused. The answer streams nothing: each piece of it is told to
``progress`` (MCP progress notifications, when the client asked for them) and the whole answer comes at the end.
The model call holds no lock: other tools answer while it runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from tether_lsp.handlers.playground.identity import OnePrompt, prompt_now
from tether_lsp.handlers.playground.runs import Runner, RunOutcome, RunRequest
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.files import uri_to_path

from .args import Json
from .context import Answer, Context

#: Told how many characters of the answer arrived so far, and the newest piece.
Progress = Callable[[float, str], Awaitable[None]]


def find(context: Context, prompt_id: str) -> OnePrompt:
    """The prompt named ``prompt_id``, in its file as it is now (worker thread, under the context's lock)."""
    for ids in context.prompt_maps.each():
        entry = ids.holding(prompt_id)
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
        found = None
        shown = str(real)
        if real.exists():
            file = context.load(str(real), "prompt_id")
            found = context.prompt_maps.found(file, context.trees.parsed(file, "prompt_id"))
            context.shown(file)
            shown = file.shown
        prompt = prompt_now(entry, prompt_id, found)
        if prompt is None:
            raise InvalidParams(
                "prompt_id",
                f"{shown} no longer holds prompt {prompt_id} (its text changed past recognition or it "
                "was removed): list its prompts again",
                kind="unknownPrompt",
            )
        return OnePrompt(prompt_id, prompt, ids)
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


async def run_prompt(
    context: Context,
    progress: Progress | None,
    *,
    prompt_id: str,
    variables: Mapping[str, Any] | None = None,
    model: str | None = None,
) -> Answer:

    def locked() -> OnePrompt:
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
        outcome = await Runner(found.ids.host, found).run(
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
