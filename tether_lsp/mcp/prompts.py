"""``prompts``: the prompts of a Python or YAML file as the editors' playground finds them (the same rules, the
same settings), each with the id the playground gives it (:mod:`.prompt_ids`), its range, text, the variables a
run asks for and its role; ``run_prompt`` takes the id."""

from __future__ import annotations

from tether_lsp.server.positions import LineIndex

from .args import Json, range_of
from .context import Answer, Context
from .prompt_ids import FoundPrompt

#: Characters of a prompt's text shown in the text rendering.
PREVIEW = 100


def prompt_json(lines: LineIndex, found: FoundPrompt) -> Json:
    p = found.prompt
    return {
        "prompt_id": found.prompt_id,
        "name": p.anchor,
        "range": range_of(lines, *p.span),
        "text": found.text,
        "variables": list(found.variables),
        "role": p.role,
    }


def render(prompt: Json) -> str:
    r = prompt["range"]
    where = f"{r['start']['line']}:{r['start']['column']}-{r['end']['line']}:{r['end']['column']}"
    first = " ".join(prompt["text"].split())
    more = "…" if len(first) > PREVIEW else ""
    head = f"prompt {prompt['prompt_id']} {prompt['name']} {where}"
    if prompt["role"]:
        head += f" ({prompt['role']})"
    if prompt["variables"]:
        head += f" variables: {', '.join(prompt['variables'])}"
    return f"{head}\n  {first[:PREVIEW]}{more}"


def prompts(context: Context, *, path: str) -> Answer:
    file = context.load(path)
    parsed = context.trees.parsed(file)
    lines = context.lines(file)
    found = [prompt_json(lines, f) for f in context.prompt_maps.found(file, parsed)]
    context.shown(file)
    count = f"{len(found)} prompt{'s' if len(found) != 1 else ''}"
    return Answer(
        {"path": file.shown, "version": file.version, "prompts": found},
        "\n".join([f"{file.shown} (version {file.version}): {count}", *map(render, found)]),
    )
