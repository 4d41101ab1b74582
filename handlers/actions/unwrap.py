"""Unwrap: keep the body, drop the wrapper (the way back from ``wrap.py``).

The wrapper is the target itself or the nearest ``if``/``with``/``try``/``for``/``while`` statement, call or
pair of parentheses around it (never past a ``def``, ``class`` or ``lambda``), like an editor's "unwrap"
from the cursor. What is kept:

- ``with``: its body. ``for``/``while``: the body, then an ``else:`` body (it runs when the loop ends without
  ``break``); refused when the body has a ``break``/``continue`` of this loop, which would be left dangling.
- ``try``: the body, then the ``else:`` body, then the ``finally:`` body — the code as it runs when nothing
  raises; the handlers go. Refused when the target is inside an ``except`` clause (unwrapping would delete
  the very code pointed at).
- ``if``: its body when it has no ``elif``/``else``. With branches, the branch the target is in (a
  statement of the ``else:`` body keeps the ``else:`` body); the ``if`` statement itself or its condition is
  ambiguous and refused, saying so.
- A call with one positional argument: the argument (``f(*a)``, ``f(k=v)`` and ``f(a, b)`` are refused),
  put in parentheses when the call's place needs them (``f(a + b) * c`` gives ``(a + b) * c``).
- Parentheses: dropped, unless the expression needs them where it stands (``(a + b) * c``, a line break
  outside brackets, ``(1).real``): then refused, saying why.

Bodies are de-indented to the statement's indentation line by line: the lines of a multi-line string are its
content and keep their bytes; comments and blank lines stay; CRLF stays CRLF. A comment inside a call's or a
pair of parentheses' brackets would be lost, so that is refused too.
"""

from __future__ import annotations

from tree_sitter import Node, Tree

from tether_lsp.handlers.actions.model import ActionRefused, Outcome, Replace
from tether_lsp.handlers.actions.wrap_precedence import needs_parentheses
from tether_lsp.handlers.actions.wrap_text import (
    indentation,
    inside_string,
    is_word_byte,
    line_end,
    line_start,
    line_starts,
    newline_of,
    shifted_span,
)

_STATEMENTS = ("if_statement", "with_statement", "try_statement", "for_statement", "while_statement")
_WRAPPERS = frozenset(_STATEMENTS) | {"call", "parenthesized_expression"}
_SCOPES = frozenset({"function_definition", "class_definition", "lambda", "module", "decorated_definition"})
_LOOPS = ("for_statement", "while_statement")
_FIELD = "targets[0]"


def unwrap(source: bytes, tree: Tree, node: Node) -> Outcome:
    """Drop the wrapper at or around ``node`` and keep what it wraps."""
    wrapper, came = _wrapper_of(node)
    if wrapper.type == "call":
        return _unwrap_call(source, wrapper)
    if wrapper.type == "parenthesized_expression":
        return _unwrap_parentheses(source, wrapper)
    return _unwrap_statement(source, tree.root_node, wrapper, _kept_blocks(wrapper, came))


def _wrapper_of(node: Node) -> tuple[Node, Node | None]:
    """The wrapper at or around ``node`` and its child the climb came through (None for ``node`` itself)."""
    current, came = node, None
    while current.type not in _WRAPPERS:
        if current.type in _SCOPES or current.parent is None:
            raise ActionRefused(
                _FIELD,
                f"there is no if, with, try, for, while, call or parentheses around this {node.type.replace('_', ' ')}",
            )
        current, came = current.parent, current
    return current, came


def _kept_blocks(statement: Node, came: Node | None) -> list[Node]:
    """The blocks that stay, in order, as the module docstring says."""
    kind = statement.type
    body = statement.child_by_field_name("consequence" if kind == "if_statement" else "body")
    if body is None:
        raise ActionRefused(_FIELD, "this statement has no body")
    clauses = [child for child in statement.named_children if child.type.endswith("_clause")]
    if kind == "if_statement":
        branches = [c for c in clauses if c.type in ("elif_clause", "else_clause")]
        if not branches or came == body:
            return [body]
        if came in branches and came is not None:
            return [_block_of(came)]
        raise ActionRefused(
            _FIELD, "this if has elif/else branches; point inside the branch to keep and unwrap from there"
        )
    if kind == "try_statement":
        if came is not None and came.type in ("except_clause", "except_group_clause"):
            raise ActionRefused(_FIELD, "unwrapping the try drops its except clauses, this target among them")
        return [body] + [_block_of(c) for c in clauses if c.type in ("else_clause", "finally_clause")]
    if kind in _LOOPS:
        jump = _loop_jump(body)
        if jump is not None:
            raise ActionRefused(
                _FIELD, f"its body has a `{jump.type.split('_')[0]}` of this loop, which would be left without one"
            )
        return [body] + [_block_of(c) for c in clauses if c.type == "else_clause"]
    return [body]


def _block_of(clause: Node) -> Node:
    for child in reversed(clause.named_children):
        if child.type == "block":
            return child
    raise ActionRefused(_FIELD, f"this {clause.type.replace('_', ' ')} has no body")


def _loop_jump(body: Node) -> Node | None:
    """A ``break``/``continue`` in ``body`` that belongs to the loop owning it (not to a nested loop or
    function); a nested loop's ``else:`` body still belongs to the outer loop."""
    pending = list(body.named_children)
    while pending:
        node = pending.pop()
        if node.type in ("break_statement", "continue_statement"):
            return node
        if node.type in ("function_definition", "class_definition", "lambda"):
            continue
        if node.type in _LOOPS:
            pending += [c for c in node.named_children if c.type == "else_clause"]
            continue
        pending += node.named_children
    return None


def _unwrap_statement(source: bytes, root: Node, statement: Node, blocks: list[Node]) -> Outcome:
    own = indentation(source, statement.start_byte)
    start, end = line_start(source, statement.start_byte), line_end(source, statement.end_byte - 1)
    parts = [_dedented(source, root, block, own) for block in blocks]
    text = newline_of(source).join(parts)
    return Outcome((Replace(start, end, text),), ((start + len(own), start + len(text)),))


def _dedented(source: bytes, root: Node, block: Node, own: bytes) -> bytes:
    """``block``'s lines at indentation ``own`` (a block on its header's line becomes one line)."""
    first = line_start(source, block.start_byte)
    end = line_end(source, block.end_byte - 1)
    if source[first : block.start_byte].strip():
        return own + source[block.start_byte : end]
    inner = indentation(source, block.start_byte)
    out = []
    for at in line_starts(source, first, end):
        stop = source.find(b"\n", at)
        line = source[at : end if stop < 0 or stop >= end else stop + 1]
        if not inside_string(root, at) and line.startswith(inner):
            line = own + line[len(inner) :]
        out.append(line)
    return b"".join(out)


def _unwrap_call(source: bytes, call: Node) -> Outcome:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        raise ActionRefused(_FIELD, "this call has no arguments to keep")
    if arguments.type == "generator_expression":
        return _kept(source, call, arguments, parenthesize=False)
    named = arguments.named_children
    if any(child.type == "comment" for child in named):
        raise ActionRefused(_FIELD, "a comment inside the call's parentheses would be lost")
    if len(named) != 1:
        raise ActionRefused(_FIELD, f"the call has {len(named)} arguments; unwrap keeps a single one")
    argument = named[0]
    if argument.type in ("keyword_argument", "list_splat", "dictionary_splat"):
        raise ActionRefused(_FIELD, "the call's argument is not a plain value (a keyword or an unpacking)")
    return _kept(source, call, argument, parenthesize=needs_parentheses(argument, call))


def _unwrap_parentheses(source: bytes, parentheses: Node) -> Outcome:
    named = parentheses.named_children
    if any(child.type == "comment" for child in named):
        raise ActionRefused(_FIELD, "a comment inside the parentheses would be lost")
    if len(named) != 1:
        raise ActionRefused(_FIELD, "these parentheses do not hold one expression")
    inner = named[0]
    if needs_parentheses(inner, parentheses):
        raise ActionRefused(_FIELD, "the parentheses are needed: without them the code would read differently")
    return _kept(source, parentheses, inner, parenthesize=False)


def _kept(source: bytes, outer: Node, inner: Node, parenthesize: bool) -> Outcome:
    """Replace ``outer`` by ``inner``'s bytes (left as they are), in parentheses when asked, with a space where
    the neighbours would otherwise run into it (``return(x)`` gives ``return x``)."""
    opening, closing = (b"(", b")") if parenthesize else (b"", b"")
    first = opening or source[inner.start_byte : inner.start_byte + 1]
    last = closing or source[inner.end_byte - 1 : inner.end_byte]
    if outer.start_byte > 0 and is_word_byte(source[outer.start_byte - 1]) and is_word_byte(first[0]):
        opening = b" " + opening
    if outer.end_byte < len(source) and is_word_byte(source[outer.end_byte]) and is_word_byte(last[0]):
        closing += b" "
    replaces = (Replace(outer.start_byte, inner.start_byte, opening), Replace(inner.end_byte, outer.end_byte, closing))
    return Outcome(replaces, (shifted_span(replaces, inner.start_byte, inner.end_byte),))
