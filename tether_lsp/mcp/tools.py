"""The tool table: every tool the agents' front serves is one row — its name, description (at most 300
characters), arguments, result shape, adapter and where the adapter runs. ``tools/list`` and the generated tool
list of ``docs/agents.md`` both read it; a later tool is one more row and one more adapter.

Each argument is declared once (:class:`~.args.Arg`): the input schema agents see is made from the declarations,
and the table checks what an agent sends against them before the adapter runs, so an adapter is called with
``(context, **arguments)`` of the declared types (see :func:`~.args.checked`)."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from tether_lsp.handlers.markers.kinds import DEFAULT_KIND, KINDS

from .args import RANGE, Arg, Array, Flag, Json, NodeOrRange, Strings, Text, checked, schema

if TYPE_CHECKING:
    from tether_lsp.server.settings import LimitSettings

    from .context import Answer, Context

#: Longest tool description: agents read every one before their first call.
MAX_DESCRIPTION = 300

#: Where a tool's adapter runs, named as the LSP method table names it (``server/methods.py``). ``worker``: a
#: plain function ``run(context, **arguments)``, run whole in a worker thread holding the context's lock (tools
#: read and write files). ``async``: a coroutine ``run(context, progress, **arguments)`` on the server's event
#: loop (``run_prompt``, which waits on a model), which takes the context's lock itself for its work on files
#: and may report progress.
Runs = Literal["worker", "async"]

PATH = Text("relative to a root, or absolute inside one")
VERSION = Text("the version an earlier answer gave for this file")
KIND = Text(f"default: {DEFAULT_KIND}", enum=KINDS)
NOTE_ID = Text("a note's id, from notes", blank="notes gives each note's id")
NOTE_TEXT = Text(bounded=True)  # kept in the notes' database, shown in editors
EDIT: Json = {
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
}

#: The structural actions and wrappers (``handlers/actions/service.py``'s ``ACTIONS``, ``wrap.py``'s ``WRAPPERS``:
#: written again here so that listing the tools loads no engine; a test keeps them equal).
ACTIONS = ("remove", "clone", "swap", "move", "bring", "moveUp", "moveDown", "insert", "wrap", "unwrap")
WRAPPERS = ("try", "with", "if", "call")


class Tool(NamedTuple):
    """One tool: what ``tools/list`` shows and what ``tools/call`` runs (a named tuple: a row of the table, cheap to
    declare at start-up)."""

    name: str
    description: str
    args: tuple[Arg, ...]
    result: str  # the answer's shape, as docs/agents.md shows it (TypeScript notation)
    run: Callable[..., Any]
    runs: Runs = "worker"
    writes: bool = False  # changes files, or overwrites or deletes records (MCP's destructive hint)
    read_only: bool = True  # changes nothing outside Tether's own records (MCP's read-only hint)
    open_world: bool = False  # reaches a service outside the roots (MCP's open-world hint)

    @property
    def properties(self) -> Mapping[str, Json]:
        return {arg.name: arg.shape.schema() for arg in self.args}

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(arg.name for arg in self.args if arg.required)

    def input_schema(self) -> Json:
        return schema(self.args)

    def arguments(self, given: Mapping[str, Any], limits: LimitSettings) -> dict[str, Any]:
        """The adapter's keyword arguments, checked against the declarations (InvalidParams naming the first
        argument that is wrong)."""
        return checked(self.args, given, limits)

    def answer(self, context: Context, given: Mapping[str, Any]) -> Answer:
        """A worker tool's call, its arguments checked, run in this thread (the front runs it in a worker that
        holds the context's lock; benchmarks call it directly)."""
        assert self.runs == "worker", f"{self.name} is a coroutine: the front awaits it on its loop"
        answer: Answer = self.run(context, **self.arguments(given, context.limits))
        return answer

    def problem(self) -> str | None:
        """Why the row contradicts its adapter (its signature or where it runs), or None."""
        adapter = self.run.adapter() if isinstance(self.run, Lazy) else self.run
        is_coroutine = inspect.iscoroutinefunction(adapter)
        if self.runs == "async" and not is_coroutine:
            return "runs 'async' but its adapter is not a coroutine function"
        if self.runs == "worker" and is_coroutine:
            return "runs in a worker but its adapter is a coroutine function (declare runs='async')"
        parameters = list(inspect.signature(adapter).parameters.values())
        leading = 2 if self.runs == "async" else 1  # (context) or (context, progress)
        if len(parameters) < leading or any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in parameters[:leading]):
            return f"its adapter must take {leading} leading positional parameter(s) before the arguments"
        wanted = {arg.keyword: arg.required for arg in self.args}
        taken = {p.name: p.default is p.empty for p in parameters[leading:] if p.kind is p.KEYWORD_ONLY}
        if len(taken) != len(parameters) - leading or taken != wanted:
            return f"its adapter takes keyword-only {taken} (True: required), the row declares {wanted}"
        return None


class Lazy:
    """An adapter imported at its first call: listing the tools loads no engine (:mod:`.handshake` answers
    ``tools/list`` before the SDK loads, the SDK after it, both from this table)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        self._adapter: Callable[..., Any] | None = None

    def adapter(self) -> Callable[..., Any]:
        if self._adapter is None:
            self._adapter = getattr(importlib.import_module(f"{__package__}.{self.module}"), self.name)
        return self._adapter

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.adapter()(*args, **kwargs)  # a coroutine adapter's call returns its coroutine


TOOLS: tuple[Tool, ...] = (
    Tool(
        "outline",
        "A Python or YAML file's structure: classes, functions and methods (YAML: documents and keys), nested, "
        "each with its node id and range, and the file's version. Start here, then read or edit by node id.",
        (Arg("path", PATH, required=True),),
        "{path, version, language, items: {node_id, kind, name, range, children?}[]}",
        Lazy("outline", "outline"),
    ),
    Tool(
        "select",
        'Run a chain of structural selectors (e.g. ["selectClasses", "selectMethods", ["filterText", '
        '"^def get"]]) left to right from the nodes in `from` or the whole file; returns each match\'s node id, '
        "range and text.",
        (
            Arg("path", PATH, required=True),
            Arg(
                "selectors",
                Array(
                    {"anyOf": [{"type": "string"}, {"type": "array", "minItems": 1}]},
                    "selector names, or [name, ...arguments]",
                    min_items=1,
                ),
                required=True,
            ),
            Arg(
                "from",
                Array({"type": "integer"}, "node ids to start from", order=("type", "items", "description")),
                null_refused=True,
            ),
        ),
        "{path, version, matches: {node_id, range, text}[]}",
        Lazy("select", "select"),
    ),
    Tool(
        "read",
        "Read a file, or parts of it: nodes by id (from outline or select) and ranges (1-based line and "
        "column). Returns the texts and the file's version, which edit takes as base_version.",
        (
            Arg("path", PATH, required=True),
            Arg("targets", Array({"anyOf": [{"type": "integer"}, RANGE]}, "node ids or ranges; none: the whole file")),
        ),
        "{path, version, parts: {target, range, text}[]}",
        Lazy("read", "read"),
    ),
    Tool(
        "edit",
        "Replace text named by node_id, old_text (+ line if it repeats) or range, as seen in base_version. If the "
        "file changed since, edits are rebased; conflicts or ambiguity write nothing. All or none, one write.",
        (
            Arg("path", PATH, required=True),
            Arg("base_version", VERSION, required=True),
            Arg("edits", Array(EDIT, min_items=1, order=("type", "minItems", "items")), required=True),
        ),
        "{path, version, written, unsaved?, results: {status, range?, current_text?, candidates?}[], syntax_errors?}",
        Lazy("edit", "edit"),
        writes=True,
        read_only=False,
    ),
    Tool(
        "act",
        "A structural action on node ids (outline, select) or ranges of base_version: remove, clone, swap, move, "
        "bring, moveUp, moveDown, insert, wrap, unwrap, with commas, blank lines and indentation fixed. Written "
        "like edit (rebased, all or none); answers the produced ranges.",
        (
            Arg("path", PATH, required=True),
            Arg("base_version", VERSION, required=True),
            Arg("action", Text(enum=ACTIONS), required=True),
            Arg(
                "targets",
                Array({"anyOf": [{"type": "integer"}, RANGE]}, "node ids or ranges, in base_version", min_items=1),
                required=True,
            ),
            Arg("destination", NodeOrRange()),
            Arg("destination_path", Text("bring into another file (a move there is refused)")),
            Arg("destination_version", Text("destination_path's version the destination is in (default: now)")),
            Arg("after", Flag("clone, move, bring, insert: after (default) or before")),
            Arg("wrapper", Text(enum=WRAPPERS)),
            Arg("placeholder", Text("wrap: the text to type over (default: the wrapper's)")),
        ),
        "{path, version, written, unsaved?, results: {status, range?, current_text?}[], produced: Range[], "
        "syntax_errors?}",
        Lazy("act", "act"),
        writes=True,
        read_only=False,
    ),
    Tool(
        "notes",
        "The notes on a file, or on every file under a folder (none: all roots): the markers people see in their "
        "editors and agents add here. Each with its id, kind, text, author, range now and state: fresh, moved, "
        "changed (its code was edited) or missing.",
        (Arg("path", PATH), Arg("under", Text("a folder relative to a root, or absolute"))),
        "{notes: {id, path, kind, text, author, created_at, state, range?, missing_reason?}[]}",
        Lazy("notes", "notes"),
    ),
    Tool(
        "note_add",
        "Pin a note to code: a node id (outline, select) or a range, as seen in base_version (default: the file "
        "now). It follows the code as the file changes and shows in the editors' marker lists and gutters.",
        (
            Arg("path", PATH, required=True),
            Arg("target", NodeOrRange(), required=True),
            Arg("text", NOTE_TEXT, required=True),
            Arg("kind", KIND),
            Arg("base_version", VERSION),
        ),
        "{id, path, kind, text, author, created_at, state, range?, missing_reason?}",
        Lazy("notes", "note_add"),
        read_only=False,
    ),
    Tool(
        "note_update",
        "Change a note's text or kind (a note of yours or a person's, by the id notes gave).",
        (Arg("id", NOTE_ID, required=True), Arg("text", NOTE_TEXT), Arg("kind", KIND)),
        "{id, path, kind, text, author, created_at, state, range?, missing_reason?}",
        Lazy("notes", "note_update"),
        writes=True,
        read_only=False,
    ),
    Tool(
        "note_delete",
        "Delete a note (by the id notes gave): it is gone from the editors' marker lists too.",
        (Arg("id", NOTE_ID, required=True),),
        "{deleted: true}",
        Lazy("notes", "note_delete"),
        writes=True,
        read_only=False,
    ),
    Tool(
        "prompts",
        "The LLM prompts in a Python or YAML file, as the editors' prompt playground finds them: each with its "
        "prompt_id (the same id the editors use), name, range, text, the variables a run needs and its role.",
        (Arg("path", PATH, required=True),),
        "{path, version, prompts: {prompt_id, name, range, text, variables, role}[]}",
        Lazy("prompts", "prompts"),
    ),
    Tool(
        "run_prompt",
        "Send a prompt (by prompt_id, from prompts or outline) to the configured chat model with its variables, "
        "as the editors' playground runs it, and return the whole answer. The run is kept in the prompt's history.",
        (
            Arg("prompt_id", Text("from prompts or outline"), required=True),
            Arg("variables", Strings("a string value for each variable the prompt uses")),
            Arg("model", Text("a model name (default: the settings')")),
        ),
        "{output, model, finish_reason, usage?: {prompt_tokens, completion_tokens}}",
        Lazy("run_prompt", "run_prompt"),
        runs="async",
        read_only=False,
        open_world=True,
    ),
)


def table() -> dict[str, Tool]:
    """The tools by name."""
    return {tool.name: tool for tool in TOOLS}
