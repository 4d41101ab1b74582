"""``read``: parts of a file (nodes by id, ranges) or the whole of it, with the version they were read at."""

from __future__ import annotations

from typing import Any

from tether_lsp.server.errors import InvalidParams

from .args import Json, integer, range_of, span
from .context import Answer, Context
from .files import FileText
from .trees import Parsed

#: Most targets in one call.
MAX_TARGETS = 1000


def node_span(context: Context, file: FileText, node_id: Any, field: str) -> tuple[int, int]:
    """The byte span of a node of this version, refused when the id names no node of it."""
    parsed: Parsed = context.trees.parsed(file, field)
    row = parsed.row(integer(node_id, field, 0))
    if row is None:
        raise InvalidParams(
            field,
            f"node {node_id} is not a node of {file.shown} at version {file.version} (node ids name the nodes of "
            "one version: outline or select again)",
            kind="staleNode",
        )
    return parsed.index.span(row)


def read(context: Context, *, path: str, targets: list[Any] | None = None) -> Answer:
    file = context.load(path)
    lines = context.lines(file)
    if targets is not None and len(targets) > MAX_TARGETS:
        raise InvalidParams("targets", f"{len(targets)} targets, more than {MAX_TARGETS} in one call")
    parts: list[Json] = []
    whole = not targets
    for k, target in enumerate([None] if whole else targets or []):
        field = f"targets[{k}]"
        if whole:
            start, end = 0, len(file.text)
        elif isinstance(target, dict):
            start, end = span(lines, target, field)
        else:
            start, end = node_span(context, file, target, field)
        text = file.text[start:end].decode("utf-8")
        parts.append({"target": target, "range": range_of(lines, start, end), "text": text})
    context.shown(file)
    rendered = [f"{file.shown} (version {file.version})"]
    for part in parts:
        r = part["range"]
        where = f"{r['start']['line']}:{r['start']['column']}-{r['end']['line']}:{r['end']['column']}"
        target = part["target"]
        name = "whole file" if target is None else "range" if isinstance(target, dict) else f"node {target}"
        rendered += [f"--- {name} {where}", part["text"]]
    return Answer({"path": file.shown, "version": file.version, "parts": parts}, "\n".join(rendered))
