"""Whether an expression needs parentheses in a given place: what ``unwrap`` asks before it drops a pair of
parentheses, or before it puts a call's argument where the call was.

Python's precedence, lowest first (the language reference's table): ``lambda``, ``x if c else y``, ``or``,
``and``, ``not``, comparisons, ``|``, ``^``, ``&``, shifts, ``+ -``, ``* / // % @``, unary ``- + ~``, ``**``,
``await``, then primaries (names, literals, calls, attributes, subscripts, displays). A place asks for a least
level; ``(a + b) * c`` keeps its parentheses because ``*``'s left operand asks for level 11 and ``+`` is 10.
``x := y`` and ``yield`` are allowed only in the few places that take them bare. An expression spread over
lines also needs brackets around it unless the place is already inside some (or its line breaks are inside its
own). Conservative by design: when in doubt the answer is "needs them", which keeps code correct.
"""

from __future__ import annotations

from tree_sitter import Node

LAMBDA, CONDITIONAL, OR, AND, NOT, COMPARISON = 0, 1, 2, 3, 4, 5
BIT_OR, BIT_XOR, BIT_AND, SHIFT, ADD, MUL, UNARY, POWER, AWAIT, PRIMARY = 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
_BINARY = {"|": BIT_OR, "^": BIT_XOR, "&": BIT_AND, "<<": SHIFT, ">>": SHIFT, "+": ADD, "-": ADD}
_BINARY |= {op: MUL for op in ("*", "/", "//", "%", "@")} | {"**": POWER}
#: A level no place accepts bare: ``x := y`` and ``yield``, allowed only where :func:`_bare_ok` says.
_SPECIAL = -1
#: Nodes that open brackets: a line break inside them needs no backslash.
BRACKETED = frozenset(
    {
        "argument_list", "parameters", "parenthesized_expression", "tuple", "list", "set", "dictionary",
        "subscript", "generator_expression", "list_comprehension", "set_comprehension", "dictionary_comprehension",
        "tuple_pattern", "list_pattern", "string", "type_parameter",
    }
)  # fmt: skip


def level(node: Node) -> int:
    """``node``'s precedence level (``PRIMARY`` for anything that binds as tightly as a name)."""
    kind = node.type
    if kind == "binary_operator":
        op = node.child_by_field_name("operator")
        return _BINARY.get(op.type if op is not None else "", ADD)
    fixed = {
        "lambda": LAMBDA, "conditional_expression": CONDITIONAL, "not_operator": NOT,
        "comparison_operator": COMPARISON, "unary_operator": UNARY, "await": AWAIT,
        "named_expression": _SPECIAL, "yield": _SPECIAL, "list_splat": _SPECIAL, "dictionary_splat": _SPECIAL,
    }  # fmt: skip
    if kind == "boolean_operator":
        op = node.child_by_field_name("operator")
        return AND if op is not None and op.type == "and" else OR
    return fixed.get(kind, PRIMARY)


def needs_parentheses(inner: Node, place: Node) -> bool:
    """Whether ``inner``'s text, standing where ``place`` stands now, would need parentheses to mean the same
    (``place`` is the node being replaced: the parentheses or the call)."""
    parent = place.parent
    if parent is None:
        return True
    wanted = _least_level(place, parent)
    have = level(inner)
    if have == _SPECIAL:
        if not _bare_ok(inner, place, parent):
            return True
    elif have < wanted:
        return True
    if wanted == PRIMARY and parent.type == "attribute" and inner.type in ("integer", "float"):
        return True  # ``(1).real``: ``1.real`` reads as a malformed number
    return _breaks_lines(inner) and not _inside_brackets(place)


def _least_level(place: Node, parent: Node) -> int:
    """The least precedence level an expression may have to stand bare where ``place`` is."""
    kind, field = parent.type, _field_of(place, parent)
    if kind in ("call", "attribute", "subscript") and field in ("function", "object", "value"):
        return PRIMARY
    if kind == "await":
        return PRIMARY
    if kind == "unary_operator":
        return UNARY
    if kind == "binary_operator":
        own = level(parent)
        if own == POWER:
            return AWAIT if field == "left" else UNARY
        return own if field == "left" else own + 1
    if kind == "boolean_operator":
        # ``(a and b) and c`` keeps its parentheses (dropping them gives Python another tree, if the same
        # meaning); a call's argument put back on the left reads as the left-nested tree it came from.
        return level(parent) + (0 if field == "left" and place.type == "call" else 1)
    if kind == "not_operator":
        return NOT
    if kind == "comparison_operator":
        return BIT_OR
    if kind == "conditional_expression":
        return LAMBDA if place == parent.named_children[-1] else OR
    if kind in ("for_in_clause", "if_clause"):
        return OR
    if kind in ("list_splat", "dictionary_splat"):
        return BIT_OR
    return LAMBDA


def _bare_ok(inner: Node, place: Node, parent: Node) -> bool:
    """Where ``yield`` and ``x := y`` stand without parentheses (a cautious subset of the grammar's places)."""
    if inner.type == "yield":
        return parent.type == "expression_statement" or (
            parent.type in ("assignment", "augmented_assignment") and _field_of(place, parent) == "right"
        )
    if inner.type == "named_expression":
        return parent.type == "argument_list" or (
            parent.type in ("if_statement", "elif_clause", "while_statement")
            and _field_of(place, parent) == "condition"
        )
    return False


def _field_of(child: Node, parent: Node) -> str | None:
    for i, c in enumerate(parent.children):
        if c == child:
            return parent.field_name_for_child(i)
    return None


def _breaks_lines(node: Node) -> bool:
    """Whether ``node`` has a line break that is not inside brackets of its own or after a backslash."""
    if node.start_point.row == node.end_point.row:
        return False
    text = node.text or b""
    at = text.find(b"\n")
    while at >= 0:
        if not text[:at].rstrip(b"\r").endswith(b"\\"):
            deepest = node.descendant_for_byte_range(node.start_byte + at, node.start_byte + at + 1)
            if not _bracketed_between(deepest, node):
                return True
        at = text.find(b"\n", at + 1)
    return False


def _bracketed_between(node: Node | None, top: Node) -> bool:
    """Whether ``node`` or an ancestor up to ``top`` (included) opens brackets around it."""
    while node is not None:
        if node.type in BRACKETED:
            return True
        if node == top:
            return False
        node = node.parent
    return False


def _inside_brackets(node: Node) -> bool:
    """Whether some enclosing node of the same statement opens brackets around ``node``."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in ("block", "module"):
        if parent.type in BRACKETED and not (parent.type == "subscript" and _field_of(child, parent) == "value"):
            return True
        child, parent = parent, parent.parent
    return False
