"""``outline``: a file's classes, functions and methods (Python) or documents and keys (YAML), nested, each with
its node id and range — found by the selector engine's kinds (``selectFunctions``, ``selectClasses``,
``selectDocuments``, ``selectPairs``, then ``selectName`` / ``selectKey`` for the names: :mod:`.outline_items`) —
and its prompts, as items of kind ``prompt`` with their ``prompt_id`` (:mod:`.prompt_ids`), where they sit.

A file of :data:`PROCESS_MIN_BYTES` or more is outlined in a worker process when the front has one
(``Context.in_process``: attached mode, the language server's own): the parse, the walk and the prompts' detection
hold the interpreter for hundreds of milliseconds on a large file, which in attached mode is the editor's
language server's. This process only gives the items their node ids and the prompts their ids.
"""

from __future__ import annotations

from tether_lsp.handlers.playground.settings import PlaygroundSettings

from .args import Json
from .context import Answer, Context
from .files import FileText
from .outline_items import Place, Structural, outline_rows, places, structural
from .prompt_ids import FoundPrompt

#: Files this large (bytes) are outlined in a worker process when there is one (as the playground's detection).
PROCESS_MIN_BYTES = 8 * 1024


def nest(items: list[Structural], prompts: list[tuple[Place, FoundPrompt]], base: int) -> list[Json]:
    """The items (and prompts, as items of kind ``prompt``) nested by containment, parents first; ``base``: the
    node id of row 0 in this version."""
    placed: list[tuple[int, int, int, Json]] = []  # start, end, order (rows in pre-order, then prompts), item
    for start, end, row, kind, name, where in items:
        placed.append((start, end, len(placed), {"node_id": base + row, "kind": kind, "name": name, "range": where}))
    for (start, end, row, where), found in prompts:
        item = {"node_id": base + row, "kind": "prompt", "name": found.prompt.anchor, "range": where}
        placed.append((start, end, len(placed), {**item, "prompt_id": found.prompt_id}))
    placed.sort(key=lambda p: (p[0], -p[1], p[2]))
    out: list[Json] = []
    stack: list[tuple[int, int, Json]] = []
    for start, end, _, item in placed:
        while stack and not (stack[-1][0] <= start and end <= stack[-1][1]):
            stack.pop()
        if stack:
            stack[-1][2].setdefault("children", []).append(item)
        else:
            out.append(item)
        stack.append((start, end, item))
    return out


def render(items: list[Json], depth: int = 0) -> list[str]:
    lines = []
    for item in items:
        r = item["range"]
        where = f"{r['start']['line']}-{r['end']['line']}"
        title = item["name"] if item["kind"] == "document" else f"{item['kind']} {item['name']}"
        prompt = f", prompt {item['prompt_id']}" if "prompt_id" in item else ""
        lines.append(f"{'  ' * depth}{title}  (lines {where}, node {item['node_id']}{prompt})")
        lines += render(item.get("children", []), depth + 1)
    return lines


def in_this_process(context: Context, file: FileText) -> tuple[str, list[Json]]:
    """The file's language and outline, parsed and walked here."""
    parsed = context.trees.parsed(file)
    lines = context.lines(file)
    found = context.prompt_maps.found(file, parsed)
    spots = places(parsed.tree, lines, [f.prompt for f in found])
    items = structural(parsed, lines)
    return parsed.language, nest(items, list(zip(spots, found, strict=True)), parsed.ids.base)


def in_a_worker(context: Context, file: FileText) -> tuple[str, list[Json]]:
    """The file's language and outline, parsed and walked in a worker process (:data:`PROCESS_MIN_BYTES`)."""
    assert context.in_process is not None
    language = context.trees.parsable(file)
    playground = context.prompt_maps.settings.section(PlaygroundSettings)
    key = f"agents:{file.path.as_uri()}"  # not the playground's own key: its memo follows the editor's settings
    rows = context.in_process(
        outline_rows,
        key,
        language,
        file.text,
        context.trees.limits,
        playground.keywords or None,
        playground.yamlKeys or None,
    )
    if rows is None:  # the limits changed between the check and the job: refused as a parse would be
        context.trees.parsed(file)
        raise AssertionError("unreachable")  # pragma: no cover
    context.outlined_in, count, items, prompts, spots = rows
    ids = context.trees.ids_of(file, count)
    found = context.prompt_maps.named(file, prompts)
    return language, nest(items, list(zip(spots, found, strict=True)), ids.base)


def outline(context: Context, *, path: str) -> Answer:
    file = context.load(path)
    large = context.in_process is not None and len(file.text) >= PROCESS_MIN_BYTES
    language, found = in_a_worker(context, file) if large else in_this_process(context, file)
    context.shown(file)
    head = f"{file.shown} (version {file.version}, {language})"
    return Answer(
        {"path": file.shown, "version": file.version, "language": language, "items": found},
        "\n".join([head, *render(found)] if found else [head, "(nothing to outline)"]),
    )
