"""The tool table: every tool the agents' front serves is one row — its name, description (at most 300
characters), argument schema, result shape and adapter. ``tools/list`` and the generated tool list of
``docs/agents.md`` both read it; a later tool (notes) is one more row and one more adapter. An adapter is a plain
function run in a worker thread, or (``run_async``: ``run_prompt``, which waits on a model) a coroutine run on the
server's event loop that takes the context's lock itself for its work on files."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .context import Answer, Context
from .edit import edit
from .notes import note_add, note_delete, note_update, notes
from .outline import outline
from .prompts import prompts
from .read import read
from .run_prompt import Progress, run_prompt
from .select import select

#: Longest tool description: agents read every one before their first call.
MAX_DESCRIPTION = 300

POSITION = {
    "type": "object",
    "properties": {"line": {"type": "integer", "minimum": 1}, "column": {"type": "integer", "minimum": 1}},
    "required": ["line", "column"],
    "additionalProperties": False,
}
RANGE = {
    "type": "object",
    "description": "1-based line and column (characters); end exclusive",
    "properties": {"start": POSITION, "end": POSITION},
    "required": ["start", "end"],
    "additionalProperties": False,
}
PATH = {"type": "string", "description": "relative to a root, or absolute inside one"}
VERSION = {"type": "string", "description": "the version an earlier answer gave for this file"}
KIND = {"type": "string", "enum": ["comment", "question", "issue", "bookmark"], "description": "default: comment"}
NOTE_ID = {"type": "string", "description": "a note's id, from notes"}


@dataclass(frozen=True)
class Tool:
    """One tool: what ``tools/list`` shows and what ``tools/call`` runs."""

    name: str
    description: str
    properties: Mapping[str, Any]
    required: tuple[str, ...]
    result: str  # the answer's shape, as docs/agents.md shows it (TypeScript notation)
    run: Callable[[Context, Mapping[str, Any]], Answer] | None
    writes: bool = False  # changes files, or overwrites or deletes records (MCP's destructive hint)
    run_async: Callable[[Context, Mapping[str, Any], Progress | None], Awaitable[Answer]] | None = None
    read_only: bool = True  # changes nothing outside Tether's own records (MCP's read-only hint)
    open_world: bool = False  # reaches a service outside the roots (MCP's open-world hint)

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": dict(self.properties),
            "required": list(self.required),
            "additionalProperties": False,
        }


TOOLS: tuple[Tool, ...] = (
    Tool(
        "outline",
        "A Python or YAML file's structure: classes, functions and methods (YAML: documents and keys), nested, "
        "each with its node id and range, and the file's version. Start here, then read or edit by node id.",
        {"path": PATH},
        ("path",),
        "{path, version, language, items: {node_id, kind, name, range, children?}[]}",
        outline,
    ),
    Tool(
        "select",
        'Run a chain of structural selectors (e.g. ["selectClasses", "selectMethods", ["filterText", '
        '"^def get"]]) left to right from the nodes in `from` or the whole file; returns each match\'s node id, '
        "range and text.",
        {
            "path": PATH,
            "selectors": {
                "type": "array",
                "description": "selector names, or [name, ...arguments]",
                "items": {"anyOf": [{"type": "string"}, {"type": "array", "minItems": 1}]},
                "minItems": 1,
            },
            "from": {"type": "array", "items": {"type": "integer"}, "description": "node ids to start from"},
        },
        ("path", "selectors"),
        "{path, version, matches: {node_id, range, text}[]}",
        select,
    ),
    Tool(
        "read",
        "Read a file, or parts of it: nodes by id (from outline or select) and ranges (1-based line and "
        "column). Returns the texts and the file's version, which edit takes as base_version.",
        {
            "path": PATH,
            "targets": {
                "type": "array",
                "description": "node ids or ranges; none: the whole file",
                "items": {"anyOf": [{"type": "integer"}, RANGE]},
            },
        },
        ("path",),
        "{path, version, parts: {target, range, text}[]}",
        read,
    ),
    Tool(
        "edit",
        "Replace text named by node_id, old_text (+ line if it repeats) or range, as seen in base_version. If the "
        "file changed since, edits are rebased; conflicts or ambiguity write nothing. All or none, one write.",
        {
            "path": PATH,
            "base_version": VERSION,
            "edits": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "new_text": {"type": "string"},
                        "node_id": {"type": "integer"},
                        "old_text": {"type": "string"},
                        "line": {"type": "integer", "minimum": 1, "description": "about where old_text is"},
                        "range": RANGE,
                    },
                    "required": ["new_text"],
                    "additionalProperties": False,
                },
            },
        },
        ("path", "base_version", "edits"),
        "{path, version, written, unsaved?, results: {status, range?, current_text?, candidates?}[], syntax_errors?}",
        edit,
        writes=True,
        read_only=False,
    ),
    Tool(
        "notes",
        "The notes on a file, or on every file under a folder (none: all roots): the markers people see in their "
        "editors and agents add here. Each with its id, kind, text, author, range now and state: fresh, moved, "
        "changed (its code was edited) or missing.",
        {"path": PATH, "under": {"type": "string", "description": "a folder relative to a root, or absolute"}},
        (),
        "{notes: {id, path, kind, text, author, created_at, state, range?, missing_reason?}[]}",
        notes,
    ),
    Tool(
        "note_add",
        "Pin a note to code: a node id (outline, select) or a range, as seen in base_version (default: the file "
        "now). It follows the code as the file changes and shows in the editors' marker lists and gutters.",
        {
            "path": PATH,
            "target": {"anyOf": [{"type": "integer", "description": "a node id"}, RANGE]},
            "text": {"type": "string"},
            "kind": KIND,
            "base_version": VERSION,
        },
        ("path", "target", "text"),
        "{id, path, kind, text, author, created_at, state, range?, missing_reason?}",
        note_add,
        read_only=False,
    ),
    Tool(
        "note_update",
        "Change a note's text or kind (a note of yours or a person's, by the id notes gave).",
        {"id": NOTE_ID, "text": {"type": "string"}, "kind": KIND},
        ("id",),
        "{id, path, kind, text, author, created_at, state, range?, missing_reason?}",
        note_update,
        writes=True,
        read_only=False,
    ),
    Tool(
        "note_delete",
        "Delete a note (by the id notes gave): it is gone from the editors' marker lists too.",
        {"id": NOTE_ID},
        ("id",),
        "{deleted: true}",
        note_delete,
        writes=True,
        read_only=False,
    ),
    Tool(
        "prompts",
        "The LLM prompts in a Python or YAML file, as the editors' prompt playground finds them: each with its "
        "prompt_id (the same id the editors use), name, range, text, the variables a run needs and its role.",
        {"path": PATH},
        ("path",),
        "{path, version, prompts: {prompt_id, name, range, text, variables, role}[]}",
        prompts,
    ),
    Tool(
        "run_prompt",
        "Send a prompt (by prompt_id, from prompts or outline) to the configured chat model with its variables, "
        "as the editors' playground runs it, and return the whole answer. The run is kept in the prompt's history.",
        {
            "prompt_id": {"type": "string", "description": "from prompts or outline"},
            "variables": {
                "type": "object",
                "description": "a string value for each variable the prompt uses",
                "additionalProperties": {"type": "string"},
            },
            "model": {"type": "string", "description": "a model name (default: the settings')"},
        },
        ("prompt_id",),
        "{output, model, finish_reason, usage?: {prompt_tokens, completion_tokens}}",
        None,
        run_async=run_prompt,
        read_only=False,
        open_world=True,
    ),
)


def table() -> dict[str, Tool]:
    """The tools by name."""
    return {tool.name: tool for tool in TOOLS}
