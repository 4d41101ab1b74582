"""Python rules of replacement analysis on the tree-sitter-python tree (docs/replacement.md, "What counts as the same
unit").

Only definitions are units (functions, methods, classes, with or without decorators): an expression or a
statement completion is always inserted, and there is no positional rule: a freshly typed header never replaces
the next definition because of where it stands.
"""

from __future__ import annotations

from tree_sitter import Node

from tether_lsp.server.nodes import enclosing

from .model import Candidate, Unit

LANGUAGE = "python"

STRINGS = frozenset({"string", "string_content", "comment"})
BRACKETS = frozenset(
    {
        "argument_list",
        "parameters",
        "list",
        "dictionary",
        "set",
        "tuple",
        "parenthesized_expression",
        "subscript",
        "list_comprehension",
        "dictionary_comprehension",
        "set_comprehension",
        "generator_expression",
    }
)
KINDS = {"function_definition": "python-function", "class_definition": "python-class"}


def incomplete(root: Node, cursor: int) -> str | None:
    for node in enclosing(root, cursor):
        if node.start_byte < cursor < node.end_byte:
            if node.type in STRINGS:
                return "cursor is inside a comment" if node.type == "comment" else "cursor is inside a string"
            if node.type in BRACKETS:
                return "cursor is inside brackets"
    return None


def definition(node: Node) -> tuple[Node, bool] | None:
    """The function or class a node defines, and whether it is decorated."""
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return None if inner is None or inner.type not in KINDS else (inner, True)
    return (node, False) if node.type in KINDS else None


def _name(node: Node) -> str:
    name = node.child_by_field_name("name")
    return "" if name is None or name.text is None else name.text.decode("utf-8", errors="replace")


def unit_of(root: Node, first_line: str, column: int) -> Unit | None:
    first = next((c for c in root.named_children if c.type != "comment"), None)
    if first is None or first.start_point.row != 0:
        return None
    found = definition(first)
    if found is None or not _name(found[0]):
        return None
    inner, decorated = found
    return Unit(KINDS[inner.type], _name(inner), column, decorated)


def positional(root: Node, text: bytes, cursor: int) -> Candidate | None:
    return None  # a freshly typed header must not replace the next definition


def _statement_column(block: Node) -> int:
    first = next((c for c in block.named_children if c.type != "comment"), None)
    return first.start_point.column if first is not None else block.start_point.column


def scope(root: Node, anchor: int, unit: Unit) -> Node | None:
    """The innermost block (or the module) that a line at the unit's column continues, by indentation.

    Walks out from ``anchor`` (the nearest code line above the cursor): a block or the module whose statements
    start at the unit's column holds the cursor line; so does the next block of a header the anchor is on (a blank
    line right under ``class C:`` or ``def f():`` is in that body by indentation, although tree-sitter's block
    node only starts at the first statement).
    """
    for node in enclosing(root, anchor):
        if node.type in ("block", "module"):
            if _statement_column(node) == unit.column:
                return node
        else:
            body = next((c for c in node.named_children if c.type == "block" and c.start_byte > anchor), None)
            if body is not None and _statement_column(body) == unit.column:
                return body
    return None


def candidates(scope_node: Node, unit: Unit) -> list[Candidate]:
    out = []
    for child in scope_node.named_children:
        found = definition(child)
        if found is None:
            continue
        inner = found[0]
        if KINDS[inner.type] != unit.type or _name(inner) != unit.identifier:
            continue
        # a decorated completion replaces the decorators too; a bare one keeps the old decorators
        old = child if unit.decorated else inner
        kind = "class" if unit.type == "python-class" else "function"
        out.append(Candidate(old, "sibling-definition", f"replaces the {kind} '{unit.identifier}'"))
    return out


def layout(node: Node) -> tuple[list[Node], int]:
    """The definitions of the block holding the definition ``node`` (decorated ones as their whole statement), and
    the blank lines the usual style (PEP 8 as Black and Ruff write it) puts before them: two at the top level, one
    in any block (a class body, or a function defined inside a function). Other statements (imports, constants) say
    nothing of how definitions are separated."""
    statement = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
    block = statement.parent
    if block is None:
        return [statement], 0
    definitions = [child for child in block.named_children if definition(child) is not None]
    return definitions, 2 if block.type == "module" else 1
