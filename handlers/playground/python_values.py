"""String expressions S in Python: which expressions a prompt's text can be, and that text decoded.

S is a string literal (not bytes), an implicit concatenation, a parenthesised S, a ``+`` chain with at least
one S, ``textwrap.dedent(S)`` / ``inspect.cleandoc(S)``, ``S.format(...)`` or the bound ``S.format`` itself,
or ``sep.join([...])`` over a list or tuple with at least one S. A part that is not a string (a name, a call)
becomes ``{its source}``, so it reads as a variable of the prompt, as an f-string's interpolation does.
"""

from __future__ import annotations

from tree_sitter import Node

from . import text as decode

TRANSFORMS = {
    "textwrap.dedent": decode.dedent,
    "dedent": decode.dedent,
    "inspect.cleandoc": decode.cleandoc,
    "cleandoc": decode.cleandoc,
}


def source(node: Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", errors="replace")


def callee(call: Node) -> str:
    """``a.b.c`` of ``a.b.c(...)``, spaces removed."""
    return "".join(source(call.child_by_field_name("function")).split())


def value_of(node: Node) -> str | None:
    """The decoded text of a string expression S, or None when ``node`` is not one."""
    kind = node.type
    if kind == "string":
        literal = decode.python_literal(source(node))
        return None if literal is None else literal[0]
    if kind == "concatenated_string":
        parts = [value_of(child) for child in node.named_children]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return value_of(node.named_children[0])
    if kind == "binary_operator" and source(node.child_by_field_name("operator")) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        a, b = value_of(left), value_of(right)
        if a is None and b is None:
            return None
        return _or_slot(left, a) + _or_slot(right, b)
    if kind == "call":
        return _call_value(node)
    if kind == "attribute" and source(node.child_by_field_name("attribute")) == "format":
        target = node.child_by_field_name("object")  # `"…{x}…".format` kept to be called later: the template
        return value_of(target) if target is not None else None
    return None


def _or_slot(node: Node, value: str | None) -> str:
    return value if value is not None else "{" + source(node) + "}"


def _call_value(node: Node) -> str | None:
    args = node.child_by_field_name("arguments")
    function = node.child_by_field_name("function")
    if args is None or function is None:
        return None
    transform = TRANSFORMS.get(callee(node))
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
    if transform is not None:
        inner = value_of(positional[0]) if len(positional) == 1 else None
        return None if inner is None else transform(inner)
    if function.type != "attribute":
        return None
    method = source(function.child_by_field_name("attribute"))
    target = function.child_by_field_name("object")
    if target is None:
        return None
    if method == "format":  # the template itself: its ``{name}`` fields are the variables
        return value_of(target)
    if method == "join" and len(positional) == 1 and positional[0].type in ("list", "tuple"):
        separator = value_of(target)
        items = [c for c in positional[0].named_children if c.type != "comment"]
        values = [value_of(item) for item in items]
        if separator is None or all(v is None for v in values):
            return None
        return separator.join(_or_slot(item, v) for item, v in zip(items, values, strict=True))
    return None
