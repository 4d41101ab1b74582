"""Syntax errors an edit introduced: the error and missing nodes of the new version's tree that lie on the lines
the edit wrote, or every new one when the file had fewer errors before. Files Tether does not parse (or too
large to) report none."""

from __future__ import annotations

from tree_sitter import Node

from tether_lsp.server.errors import InvalidParams

from .args import Json, range_of
from .context import Context
from .files import FileText

#: Most errors listed.
MAX_ERRORS = 20


def error_spans(root: Node) -> list[tuple[int, int]]:
    """Byte spans of the ERROR and MISSING nodes, in document order (only subtrees with errors are walked)."""
    found: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append((node.start_byte, node.end_byte))
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    return found


def introduced_errors(
    context: Context, before: FileText, after: FileText, written: list[tuple[int, int]]
) -> list[Json]:
    """Ranges (in ``after``) of the syntax errors the write of ``written`` spans introduced."""
    if context.trees.language(after) is None:
        return []
    try:
        old, new = context.trees.parsed(before), context.trees.parsed(after)
    except InvalidParams:  # too large or too deep to parse: nothing to say
        return []
    errors = error_spans(new.tree.root_node)
    if not errors:
        return []
    lines = context.lines(after)
    touched = [(lines.line_of(s), lines.line_of(e)) for s, e in written]
    near = [
        (s, e)
        for s, e in errors
        if any(first <= lines.line_of(e) and lines.line_of(s) <= last for first, last in touched)
    ]
    if not near and len(errors) > len(error_spans(old.tree.root_node)):
        near = errors
    return [range_of(lines, s, e) for s, e in near[:MAX_ERRORS]]
