"""Judge one action's result against the expected ``ast``.

For speed the result is judged on the smallest piece of text that holds every replacement and parses on its
own, tried in order:

1. *fragment*: for a list, tuple, set or dict of more than 6 members, the target's members and two on each side,
   parsed inside ``[...]`` (``{...}`` for a dict; ``[...] = _`` for assignment targets);
2. *container*: the call, parameter list, list, tuple, set or dict, parsed alone (``def _(...): pass``,
   ``class _(...): pass``, ``lambda ...: 0``, ``... = _``, ``del ...``);
3. *statements*: the target statement and its two neighbours (or the statement enclosing a delimited target),
   their lines with the blank and comment lines beside them, indented code parsed under ``if 1:``; when a
   replacement falls outside, the enclosing statement, up to the whole module.

A piece that differs is always judged again on the whole file, and the whole file's verdict is the one
counted: a narrow piece can only speed up a pass, never invent a failure. ``--verify-every`` judges some passes
on the whole file too and counts any disagreement.
"""

from __future__ import annotations

import ast
import difflib
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node, Parser, Tree

from benchmarks.actions_corpus_expect import NotPython, dumps, edited, expected, items_of
from benchmarks.actions_corpus_targets import FileIndex, Target, line_starts_of
from tether_lsp.handlers.actions.model import Replace, applied


@dataclass
class Verdict:
    """``kind`` is "equal", "differs" (from a piece: to be judged on the whole file), "unequal", "invalid" or
    "notPython"; ``piece`` is the text the judgement parsed (None: the whole file), for tree-sitter's check."""

    kind: str
    detail: str = ""
    piece: bytes | None = None


FRAGMENT_OVER = 6
_STORE = ("pattern_list", "tuple_pattern", "list_pattern")


def _dump(index: FileIndex, node: object) -> str:
    """A node's dump, kept: only nodes the expectation does not change are asked for."""
    if node is None:
        return "None"
    key = id(node)
    found = index.dumps.get(key)
    if found is None:
        found = index.dumps[key] = ast.dump(node, include_attributes=False)  # type: ignore[arg-type]
    return found


def _item_dump(index: FileIndex, item: object) -> str:
    if isinstance(item, tuple):
        return "(" + ", ".join(x if isinstance(x, str) else _dump(index, x) for x in item) + ")"
    return _dump(index, item)


def _fresh_dump(item: object) -> str:
    """A parsed node's dump, in the same form as :func:`_item_dump` (never kept: its id is reused)."""
    if isinstance(item, tuple):
        return "(" + ", ".join("None" if x is None else ast.dump(x, include_attributes=False) for x in item) + ")"
    return ast.dump(item, include_attributes=False)  # type: ignore[arg-type]


def _inside(replaces: Sequence[Replace], lo: int, hi: int) -> bool:
    return all(lo <= r.start and r.end <= hi for r in replaces)


def _piece(index: FileIndex, replaces: Sequence[Replace], lo: int, hi: int) -> bytes:
    return applied(index.source[lo:hi], [Replace(r.start - lo, r.end - lo, r.text) for r in replaces])


def _parse(text: bytes) -> ast.Module | str:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return f"{type(error).__name__}: {getattr(error, 'msg', error)}"


def fragment(index: FileIndex, target: Target, action: str, replaces: Sequence[Replace]) -> Verdict | None:
    container = target.node.parent
    n = len(target.siblings)
    if target.family not in ("seq", "dict") or n <= FRAGMENT_OVER or container is None:
        return None
    if container.parent is not None and container.parent.type == "delete_statement":
        return None
    first, last = max(0, target.index - 2), min(n, target.index + 3)
    lo, hi = target.siblings[first].start_byte, target.siblings[last - 1].end_byte
    if not _inside(replaces, lo, hi):
        return None
    items = items_of(target.family, target.owner, "")
    try:
        want = edited(items[first:last], action, target.index - first)
    except IndexError:
        return None
    text = _piece(index, replaces, lo, hi)
    store = container.type in _STORE
    wrapped = (b"{" + text + b"}") if target.family == "dict" else (b"[" + text + b"]" + (b" = _" if store else b""))
    module = _parse(wrapped)
    if isinstance(module, str) or not module.body:
        return Verdict("differs", "fragment")
    node = module.body[0]
    value = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "value", None)
    if target.family == "dict" and isinstance(value, ast.Dict):
        got = [_fresh_dump(pair) for pair in zip(value.keys, value.values, strict=True)]
    elif target.family == "seq" and isinstance(value, ast.List):
        got = [_fresh_dump(e) for e in value.elts]
    else:
        return Verdict("differs", "fragment")
    return Verdict("equal", piece=wrapped) if got == [_item_dump(index, i) for i in want] else Verdict("differs")


_BARE = ("expression_list", "pattern_list", "lambda_parameters")


def _container_text(target: Target) -> tuple[Node, int, int, bytes, bytes] | None:
    """The node parsed alone, the bytes every replacement must fall in, and what goes before and after."""
    container = target.node.parent
    if container is None or container.parent is None:
        return None
    outer = container.parent
    lo, hi = (container.start_byte, container.end_byte)
    if container.type not in _BARE:
        lo, hi = lo + 1, hi - 1  # inside the brackets
    if container.type == "argument_list":
        if outer.type == "call":
            return outer, lo, hi, b"(", b")"
        return container, lo, hi, b"class _", b": pass"
    if container.type == "parameters":
        return container, lo, hi, b"def _", b": pass"
    if container.type == "lambda_parameters":
        return container, lo, hi, b"lambda ", b": 0"
    if container.type in _STORE:
        return container, lo, hi, b"", b" = _"
    if container.type == "expression_list" and outer.type == "delete_statement":
        return container, lo, hi, b"del ", b""
    return container, lo, hi, b"(", b")"


def _parsed_owner(module: ast.Module, target: Target) -> ast.AST | None:
    node: ast.AST = module.body[0]
    if isinstance(node, ast.Expr):
        node = node.value
        if target.family == "call" and isinstance(node, ast.Call):
            return node
    if target.family == "params":
        return node.args if isinstance(node, ast.FunctionDef | ast.Lambda) else None
    if target.family == "call":
        return node if isinstance(node, ast.ClassDef) else None
    if isinstance(node, ast.Assign):
        return node.targets[0]
    return node


def _owner_dump(owner: ast.AST) -> str:
    if isinstance(owner, ast.ClassDef):
        return ast.dump(ast.Tuple(elts=[*owner.bases, *owner.keywords]), include_attributes=False)  # type: ignore[list-item]
    return ast.dump(owner, include_attributes=False)


def container(index: FileIndex, target: Target, action: str, replaces: Sequence[Replace]) -> Verdict | None:
    if target.family == "stmts":
        return None
    found = _container_text(target)
    if found is None:
        return None
    node, inside_lo, inside_hi, before, after = found
    if not _inside(replaces, inside_lo, inside_hi):
        return None
    lo, hi = node.start_byte, node.end_byte
    try:
        with expected(target.family, target.owner, "", action, target.index, _bare_loop_target(target)):
            want = _owner_dump(target.owner)
    except NotPython as why:
        return Verdict("notPython", str(why))
    text = before + _piece(index, replaces, lo, hi) + after
    module = _parse(text)
    if isinstance(module, str) or len(module.body) != 1:
        return Verdict("differs")
    got = _parsed_owner(module, target)
    return Verdict("equal", piece=text) if got is not None and _owner_dump(got) == want else Verdict("differs")


@dataclass
class Window:
    owner: ast.AST
    field: str
    first: int
    last: int  # exclusive
    lo: int
    hi: int
    indented: bool


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def _blank_or_comment(index: FileIndex, line: int) -> bool:
    start = index.line_starts[line]
    end = index.line_starts[line + 1] if line + 1 < len(index.line_starts) else len(index.source)
    return not index.source[start:end].strip() or line in index.comment_lines


def window(index: FileIndex, target: Target, replaces: Sequence[Replace]) -> Window | None:
    """The smallest run of sibling statements holding every replacement, or None for the whole file."""
    if target.family == "stmts":
        owner, field, i = target.owner, target.field, target.index
        first, last = max(0, i - 1), min(len(getattr(owner, field)), i + 2)
    else:
        assert target.stmt is not None
        owner, field, i = index.parent_list[id(target.stmt)]
        first, last = i, i + 1
    lo_edit = min((r.start for r in replaces), default=len(index.source))
    hi_edit = max((r.end for r in replaces), default=0)
    while True:
        stmts = getattr(owner, field)
        if isinstance(owner, ast.Module) and first == 0 and last == len(stmts):
            return None
        while first > 0 and stmts[first - 1].end_lineno >= _first_line(stmts[first]):
            first -= 1
        while last < len(stmts) and _first_line(stmts[last]) <= stmts[last - 1].end_lineno:
            last += 1
        top, bottom = _first_line(stmts[first]) - 1, stmts[last - 1].end_lineno - 1
        lo = index.line_starts[top]
        if index.source[lo : index.start_of(stmts[first])].strip() in (b"", b"@"):
            while top > 0 and _blank_or_comment(index, top - 1):
                top -= 1
            while bottom + 1 < len(index.line_starts) and _blank_or_comment(index, bottom + 1):
                bottom += 1
            lo = index.line_starts[top]
            hi = index.line_starts[bottom + 1] if bottom + 1 < len(index.line_starts) else len(index.source)
            if lo <= lo_edit and hi_edit <= hi:
                return Window(owner, field, first, last, lo, hi, stmts[first].col_offset > 0)
        if isinstance(owner, ast.Module):
            first, last = max(0, first - 1), min(len(stmts), last + 1)
        else:
            holder = owner if isinstance(owner, ast.stmt) else index.holders[id(owner)]
            owner, field, i = index.parent_list[id(holder)]
            first, last = i, i + 1


def _statement_dump(index: FileIndex, stmt: ast.stmt, text: bytes, starts: list[int]) -> str:
    """A statement's dump, kept by its text (from its first decorator to its end): the same text is the same
    ``ast`` wherever it stands, so a statement the action only moved is not dumped again."""
    first = min([stmt, *getattr(stmt, "decorator_list", [])], key=lambda n: (n.lineno, n.col_offset))
    key = text[starts[first.lineno - 1] + first.col_offset : starts[stmt.end_lineno - 1] + stmt.end_col_offset]  # type: ignore[operator]
    found = index.text_dumps.get(key)
    if found is None:
        found = index.text_dumps[key] = ast.dump(stmt, include_attributes=False)
    return found


def _expected_statements(index: FileIndex, target: Target, action: str, win: Window | None) -> list[str]:
    """The window's (or module's) statements as the action should leave them, dumped; raises NotPython."""
    owner, field = (index.module, "body") if win is None else (win.owner, win.field)
    stmts = getattr(owner, field)
    first, last = (0, len(stmts)) if win is None else (win.first, win.last)
    if target.family == "stmts" and target.owner is owner and target.field == field:
        items = edited(stmts[first:last], action, target.index - first)
        if not items and first == 0 and last == len(stmts) and not isinstance(owner, ast.Module):
            return [ast.dump(ast.Pass())]
        return [_statement_dump(index, s, index.source, index.line_starts) for s in items]  # type: ignore[arg-type]
    with expected(target.family, target.owner, target.field, action, target.index, _bare_loop_target(target)):
        return dumps(stmts[first:last])


def _bare_loop_target(target: Target) -> bool:
    """``for k, v in``: the engine leaves ``for v in`` (see actions_corpus_expect)."""
    container = target.node.parent
    outer = container.parent if container is not None else None
    return (
        container is not None
        and container.type == "pattern_list"
        and outer is not None
        and (outer.type in ("for_statement", "for_in_clause"))
    )


def expectation_is_python(index: FileIndex, target: Target, action: str) -> bool:
    try:
        with expected(target.family, target.owner, target.field, action, target.index, _bare_loop_target(target)):
            return True
    except NotPython:
        return False


def statements(
    index: FileIndex, target: Target, action: str, replaces: Sequence[Replace], new: bytes, full: bool
) -> Verdict:
    """A verdict on a window of statements or on the whole file."""
    win = None if full else window(index, target, replaces)
    try:
        want = _expected_statements(index, target, action, win)
    except NotPython as why:
        return Verdict("notPython", str(why))
    text = new if win is None else _piece(index, replaces, win.lo, win.hi)
    indented = win is not None and win.indented
    if indented:
        text = b"if 1:\n" + text
    module = _parse(text)
    if isinstance(module, str):
        return Verdict("invalid", module, None if win is None else text)
    body = module.body
    if indented:
        if len(body) != 1 or not isinstance(body[0], ast.If):
            return Verdict("differs", "the window's indentation changed")
        body = body[0].body
    starts = line_starts_of(text)
    got = [_statement_dump(index, s, text, starts) for s in body]
    if got == want:
        return Verdict("equal", piece=None if win is None else text)
    return Verdict("differs", _first_difference(got, want))


def ast_verdict(
    index: FileIndex, target: Target, action: str, replaces: Sequence[Replace], new: bytes, full: bool = False
) -> Verdict:
    """The narrowest piece that says "equal" (or that no Python text is expected) is believed; anything else is
    judged on the whole file."""
    if not full:
        for judge in (fragment, container):
            verdict = judge(index, target, action, replaces)
            if verdict is not None:
                if verdict.kind != "differs":
                    return verdict
                break
        else:
            verdict = statements(index, target, action, replaces, new, False)
            if verdict.kind in ("equal", "notPython"):
                return verdict
    verdict = statements(index, target, action, replaces, new, True)
    if verdict.kind == "differs":
        verdict.kind = "unequal"
    return verdict


def _first_difference(got: list[str], want: list[str]) -> str:
    for g, w in zip(got, want, strict=False):
        if g != w:
            at = next((k for k in range(min(len(g), len(w))) if g[k] != w[k]), min(len(g), len(w)))
            return f"ast: …{g[max(0, at - 70) : at + 50]}… expected …{w[max(0, at - 70) : at + 50]}…"
    return f"{len(got)} statements, expected {len(want)}"


def point(line_starts: list[int], offset: int) -> tuple[int, int]:
    row = bisect_right(line_starts, offset) - 1
    return row, offset - line_starts[row]


def reparse(parser: Parser, tree: Tree, line_starts: list[int], replaces: Sequence[Replace], new: bytes) -> Tree:
    """The new text's tree, parsed incrementally from the old one."""
    edited_tree = tree.copy()
    for r in sorted(replaces, reverse=True):
        start = point(line_starts, r.start)
        lines = r.text.count(b"\n")
        tail = len(r.text) - r.text.rfind(b"\n") - 1 if lines else start[1] + len(r.text)
        edited_tree.edit(
            r.start, r.end, r.start + len(r.text), start, point(line_starts, r.end), (start[0] + lines, tail)
        )
    return parser.parse(new, edited_tree)


def node_at(tree: Tree, start: int, end: int, kind: str) -> Node | None:
    """The node of type ``kind`` spanning exactly ``start:end``."""
    node: Node | None = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and node.start_byte >= start and node.end_byte <= end:
        if node.type == kind and node.start_byte == start and node.end_byte == end:
            return node
        node = node.parent
    return None


def short_diff(old: bytes, new: bytes, limit: int = 14) -> str:
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    lines = list(difflib.unified_diff(a, b, lineterm="", n=1))[2:]
    return "\n".join(lines[:limit] + (["…"] if len(lines) > limit else []))
