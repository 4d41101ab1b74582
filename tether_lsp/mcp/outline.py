"""``outline``: a file's classes, functions and methods (Python) or documents and keys (YAML), nested, each with
its node id and range — found by the selector engine's kinds (``selectFunctions``, ``selectClasses``,
``selectDocuments``, ``selectPairs``, then ``selectName`` / ``selectKey`` for the names) — and its prompts, as
items of kind ``prompt`` with their ``prompt_id`` (:mod:`.prompt_ids`), where they sit."""

from __future__ import annotations

from tether_lsp.handlers.selectors.engine import run, validate
from tether_lsp.server.positions import Encoding, LineIndex, Pos

from .args import Json, range_of
from .context import Answer, Context
from .prompt_ids import FoundPrompt
from .trees import Parsed

#: The selectors that find the outline's items, and those that find their names, per language.
ITEMS = {"python": ("selectClasses", "selectFunctions"), "yaml": ("selectDocuments", "selectPairs")}
NAMES = {"python": "selectName", "yaml": "selectKey"}


def _select(parsed: Parsed, lines: LineIndex, name: str, cursors: list[int]) -> list[int]:
    return run(
        validate(name, []),
        parsed.index,
        parsed.table,
        parsed.tree,
        cursors,
        lambda line, ch: lines.offset_of(Pos(line, ch), Encoding.UTF32),
    )


def _kind(parsed: Parsed, row: int) -> str:
    table, index = parsed.table, parsed.index
    if parsed.language == "yaml":
        return "document" if table.matches("document", index, row) else "key"
    if table.matches("class", index, row):
        return "class"
    return "method" if table.matches("method", index, row) else "function"


def prompt_item(parsed: Parsed, lines: LineIndex, found: FoundPrompt) -> Json:
    """A prompt as an outline item: the node of its whole expression, its playground anchor as the name."""
    start, end = found.prompt.span
    node = parsed.tree.root_node.descendant_for_byte_range(start, end) or parsed.tree.root_node
    return {
        "node_id": parsed.ids.id_of(parsed.tree, node),
        "kind": "prompt",
        "name": found.prompt.anchor,
        "range": range_of(lines, start, end),
        "prompt_id": found.prompt_id,
    }


def items(parsed: Parsed, lines: LineIndex, prompts: list[FoundPrompt] | None = None) -> list[Json]:
    """The outline's items (and prompts, as items of kind ``prompt``), nested by containment (pre-order, so
    parents come first)."""
    index = parsed.index
    rows = sorted({r for name in ITEMS[parsed.language] for r in _select(parsed, lines, name, [0])})
    names: dict[int, str] = {}
    for name_row in _select(parsed, lines, NAMES[parsed.language], rows):
        owner = next((a for a in index.ancestors(name_row) if a in names or a in rows), None)
        if owner is not None and owner not in names:
            names[owner] = index.node_text(name_row)
    placed: list[tuple[int, int, int, Json]] = []  # start, end, order (rows in pre-order, then prompts), item
    documents = 0
    for row in rows:
        kind = _kind(parsed, row)
        if kind == "document":
            documents += 1
        start, end = index.span(row)
        item: Json = {
            "node_id": parsed.node_id(row),
            "kind": kind,
            "name": names.get(row, f"document {documents}" if kind == "document" else ""),
            "range": range_of(lines, start, end),
        }
        placed.append((start, end, len(placed), item))
    for found in prompts or []:
        placed.append((*found.prompt.span, len(placed), prompt_item(parsed, lines, found)))
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


def outline(context: Context, *, path: str) -> Answer:
    file = context.load(path)
    parsed = context.trees.parsed(file)
    lines = context.lines(file)
    found = items(parsed, lines, context.prompt_maps.found(file, parsed))
    context.shown(file)
    head = f"{file.shown} (version {file.version}, {parsed.language})"
    return Answer(
        {"path": file.shown, "version": file.version, "language": parsed.language, "items": found},
        "\n".join([head, *render(found)] if found else [head, "(nothing to outline)"]),
    )
