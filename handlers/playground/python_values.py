"""String expressions S in Python: which expressions a prompt's text can be, and that text decoded.

S is a string literal (not bytes), an implicit concatenation, a parenthesised S, a ``+`` chain with at least
one S, ``textwrap.dedent(S)`` / ``inspect.cleandoc(S)``, ``S.format(...)`` or the bound ``S.format`` itself,
or ``sep.join([...])`` over a list or tuple with at least one S. A part that is not a string (a name, a call)
becomes ``{its source}``, so it reads as a variable of the prompt, as an f-string's interpolation does. An
f-string's or a ``.format`` template's ``{{``/``}}`` are braces, as Python writes them (:func:`.text.format_braces`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class _Step:
    """An S whose value is made of the values of ``parts`` (strings or None) by ``combine``."""

    parts: list[Node]
    combine: Callable[[list[str | None]], str | None]


def value_of(node: Node) -> str | None:
    """The decoded text of a string expression S, or None when ``node`` is not one.

    Evaluated with an explicit stack: a ``+`` chain or parentheses can nest deeper than Python's recursion limit.
    """
    first = _expand(node)
    if not isinstance(first, _Step):
        return first
    stack: list[tuple[_Step, list[str | None]]] = [(first, [])]
    while True:
        step, values = stack[-1]
        if len(values) < len(step.parts):
            inner = _expand(step.parts[len(values)])
            if isinstance(inner, _Step):
                stack.append((inner, []))
            else:
                values.append(inner)
            continue
        stack.pop()
        value = step.combine(values)
        if not stack:
            return value
        stack[-1][1].append(value)


def _first(values: list[str | None]) -> str | None:
    return values[0]


def _template(values: list[str | None]) -> str | None:
    """A ``.format`` template: its ``{{``/``}}`` are braces, as ``format`` writes them."""
    return None if values[0] is None else decode.format_braces(values[0])


def _expand(node: Node) -> _Step | str | None:
    """A literal's value, None when ``node`` is not S, or the parts S is made of."""
    kind = node.type
    if kind == "string":
        literal = decode.python_literal(source(node))
        if literal is None:
            return None
        return decode.format_braces(literal[0]) if literal[1] else literal[0]
    if kind == "concatenated_string":
        return _Step(node.named_children, lambda parts: None if None in parts else "".join(p or "" for p in parts))
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _Step(node.named_children, _first)
    if _plus(node):
        return _sum(node)
    if kind == "call":
        return _call_value(node)
    if kind == "attribute" and source(node.child_by_field_name("attribute")) == "format":
        target = node.child_by_field_name("object")  # `"…{x}…".format` kept to be called later: the template
        return _Step([target], _template) if target is not None else None
    return None


def _plus(node: Node | None) -> bool:
    """A ``+`` whose two operands parsed."""
    return (
        node is not None
        and node.type == "binary_operator"
        and source(node.child_by_field_name("operator")) == "+"
        and node.child_by_field_name("left") is not None
        and node.child_by_field_name("right") is not None
    )


def _sum(node: Node) -> _Step:
    """A ``+`` chain (``a + b + c`` nests to the left) as one step over its operands, joined once: adding each
    operand to the text so far copied that text at every ``+`` (a 5,000-string chain: a second and more).
    Read as the nested sums are: a sum of two parts that are not S is not S, and reads as ``{its source}``."""
    sums = [node]  # the chain's sums, the outermost first
    while (left := sums[-1].child_by_field_name("left")) is not None and _plus(left):
        sums.append(left)
    sums.reverse()
    operands = [n for n in [sums[0].child_by_field_name("left"), *(s.child_by_field_name("right") for s in sums)] if n]

    def joined(values: list[str | None]) -> str | None:
        pieces: list[str] = []
        unread = operands[0]  # the sum so far while none of it is S
        for i, value in enumerate(values):
            if not pieces and value is None:
                unread = sums[i - 1] if i else unread
                continue
            if not pieces and i:
                pieces.append("{" + source(unread) + "}")
            pieces.append(value if value is not None else "{" + source(operands[i]) + "}")
        return "".join(pieces) if pieces else None

    return _Step(operands, joined)


def _slots(nodes: list[Node], values: list[str | None], separator: str = "") -> str:
    """The values joined, a part that is not S read as the variable ``{its source}``."""
    return separator.join(v if v is not None else "{" + source(n) + "}" for n, v in zip(nodes, values, strict=True))


def _call_value(node: Node) -> _Step | None:
    args = node.child_by_field_name("arguments")
    function = node.child_by_field_name("function")
    if args is None or function is None:
        return None
    transform = TRANSFORMS.get(callee(node))
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
    if transform is not None:
        if len(positional) != 1:
            return None
        return _Step(positional, lambda v: None if v[0] is None else transform(v[0]))
    if function.type != "attribute":
        return None
    method = source(function.child_by_field_name("attribute"))
    target = function.child_by_field_name("object")
    if target is None:
        return None
    if method == "format":  # the template itself: its ``{name}`` fields are the variables
        return _Step([target], _template)
    if method == "join" and len(positional) == 1 and positional[0].type in ("list", "tuple"):
        items = [c for c in positional[0].named_children if c.type != "comment"]

        def joined(values: list[str | None]) -> str | None:
            separator, parts = values[0], values[1:]
            if separator is None or all(v is None for v in parts):
                return None
            return _slots(items, parts, separator)

        return _Step([target, *items], joined)
    return None
