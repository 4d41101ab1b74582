"""The corpus's targets: every argument, parameter, element, dict entry and statement of a Python file, each
found in tree-sitter's tree (where the engine acts) and in CPython's ``ast`` (where the expected result is
computed), matched by byte position.

Positions: tree-sitter gives byte offsets; ``ast`` gives 1-based lines and UTF-8 byte columns, turned into byte
offsets with the file's line starts (lines end at ``\\n``; files with a lone ``\\r`` are not taken).
A container whose members cannot be matched one to one with an ``ast`` node's items is *unmatched* and counted,
never guessed at.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from benchmarks.actions_corpus_expect import items_of

#: tree-sitter container type -> (target kind, family of the expected transformation).
DELIMITED = {
    "argument_list": ("argument", "call"),
    "parameters": ("parameter", "params"),
    "lambda_parameters": ("parameter", "params"),
    "list": ("element", "seq"),
    "tuple": ("element", "seq"),
    "set": ("element", "seq"),
    "expression_list": ("element", "seq"),
    "pattern_list": ("element", "seq"),
    "tuple_pattern": ("element", "seq"),
    "list_pattern": ("element", "seq"),
    "dictionary": ("entry", "dict"),
}
_SEQ_AST = {
    "list": (ast.List,),
    "tuple": (ast.Tuple,),
    "set": (ast.Set,),
    "expression_list": (ast.Tuple,),
    "pattern_list": (ast.Tuple,),
    "tuple_pattern": (ast.Tuple,),
    "list_pattern": (ast.List,),
}
KINDS = ("argument", "parameter", "element", "entry", "statement", "function", "class")


@dataclass
class Target:
    """One member to act on: its tree-sitter node, its place among its siblings and the ``ast`` node whose
    items the expected transformation edits (``family`` says how; ``field`` names a statement list)."""

    kind: str
    node: Node
    siblings: list[Node]
    index: int
    family: str
    owner: ast.AST
    field: str = ""
    stmt: ast.stmt | None = None  # the statement whose lines the result is checked on (see actions_corpus_check)


@dataclass
class FileIndex:
    """A file's bytes, its trees and the maps between them."""

    source: bytes
    module: ast.Module
    line_starts: list[int]
    by_start: dict[int, list[ast.AST]] = field(default_factory=dict)
    #: id(stmt) -> (the node holding its list, the list's field name, its index in it)
    parent_list: dict[int, tuple[ast.AST, str, int]] = field(default_factory=dict)
    stmt_by_start: dict[int, ast.stmt] = field(default_factory=dict)
    #: id(except handler or match case) -> the statement holding it
    holders: dict[int, ast.stmt] = field(default_factory=dict)
    comment_lines: set[int] = field(default_factory=set)
    unmatched: dict[str, int] = field(default_factory=dict)
    #: id(original node) -> its ast.dump, for nodes no expectation changes
    dumps: dict[int, str] = field(default_factory=dict)
    #: a statement's text -> its ast.dump (the same text parses to the same statement)
    text_dumps: dict[bytes, str] = field(default_factory=dict)

    def offset(self, lineno: int, col: int) -> int:
        return self.line_starts[lineno - 1] + col

    def start_of(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end_of(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def line_of(self, offset: int) -> int:
        """0-based line of a byte offset."""
        return bisect_right(self.line_starts, offset) - 1


def line_starts_of(source: bytes) -> list[int]:
    starts, at = [0], source.find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = source.find(b"\n", at + 1)
    return starts


def index_file(source: bytes, module: ast.Module, root: Node) -> FileIndex:
    index = FileIndex(source, module, line_starts_of(source))
    for node in ast.walk(module):
        if hasattr(node, "lineno") and hasattr(node, "col_offset"):
            index.by_start.setdefault(index.start_of(node), []).append(node)
        if isinstance(node, ast.stmt):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ExceptHandler | ast.match_case):
                    index.holders[id(child)] = node
        for name, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                for i, stmt in enumerate(value):
                    index.parent_list[id(stmt)] = (node, name, i)
                    index.stmt_by_start.setdefault(index.start_of(stmt), stmt)
    nodes = [root]
    while nodes:
        at = nodes.pop()
        if at.type == "comment":
            line = at.start_point[0]
            if not source[index.line_starts[line] : at.start_byte].strip():
                index.comment_lines.add(line)
        nodes.extend(at.children)
    return index


def _members(container: Node) -> list[Node]:
    return [c for c in container.named_children if c.type != "comment"]


def _statement_node_start(node: Node) -> int:
    """Where ``ast`` puts a statement: a decorated definition at its ``def``/``class``."""
    if node.type == "decorated_definition":
        definition = node.child_by_field_name("definition")
        if definition is not None:
            return definition.start_byte
    return node.start_byte


def _enclosing_statement(index: FileIndex, node: Node) -> ast.stmt | None:
    at: Node | None = node
    while at is not None:
        parent = at.parent
        if parent is not None and parent.type in ("module", "block") and at.type != "comment":
            return index.stmt_by_start.get(_statement_node_start(at))
        at = parent
    return None


def _pick(candidates: list[ast.AST], types: tuple[type, ...], end: int | None, index: FileIndex) -> ast.AST | None:
    found = [c for c in candidates if isinstance(c, types) and (end is None or index.end_of(c) == end)]
    return found[0] if len(found) == 1 else None


def _owner(index: FileIndex, container: Node) -> ast.AST | None:
    """The ``ast`` node holding the items of a delimited container."""
    kind = container.type
    parent = container.parent
    if parent is None:
        return None
    if kind == "argument_list":
        if parent.type == "call":
            return _pick(index.by_start.get(parent.start_byte, []), (ast.Call,), parent.end_byte, index)
        if parent.type == "class_definition":
            return _pick(index.by_start.get(parent.start_byte, []), (ast.ClassDef,), None, index)
        return None
    if kind in ("parameters", "lambda_parameters"):
        types = (ast.FunctionDef, ast.AsyncFunctionDef) if kind == "parameters" else (ast.Lambda,)
        end = None if kind == "parameters" else parent.end_byte
        found = _pick(index.by_start.get(parent.start_byte, []), types, end, index)
        return found.args if found is not None else None  # type: ignore[attr-defined]
    if kind == "dictionary":
        return _pick(index.by_start.get(container.start_byte, []), (ast.Dict,), container.end_byte, index)
    if kind == "expression_list" and parent.type == "delete_statement":
        return _pick(index.by_start.get(parent.start_byte, []), (ast.Delete,), None, index)
    candidates = index.by_start.get(container.start_byte, [])
    exact = _pick(candidates, _SEQ_AST[kind], container.end_byte, index)
    if exact is not None:
        return exact
    count = len(_members(container))
    loose = [c for c in candidates if isinstance(c, _SEQ_AST[kind]) and len(c.elts) == count]  # type: ignore[attr-defined]
    return loose[0] if len(loose) == 1 else None


def _in_case_pattern(node: Node) -> bool:
    at = node.parent
    while at is not None and at.type not in ("module", "block"):
        if at.type == "case_pattern":
            return True
        at = at.parent
    return False


def _statement_kind(node: Node) -> str:
    inner = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
    if inner is not None and inner.type == "function_definition":
        return "function"
    if inner is not None and inner.type == "class_definition":
        return "class"
    return "statement"


def _unmatched(index: FileIndex, what: str) -> None:
    index.unmatched[what] = index.unmatched.get(what, 0) + 1


def targets(index: FileIndex, root: Node) -> Iterator[Target]:
    """Every target of the file, in document order of their containers."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.type in ("module", "block"):
            yield from _statements(index, node)
        elif node.type in DELIMITED and not _in_case_pattern(node):
            yield from _delimited(index, node)


def _statements(index: FileIndex, container: Node) -> Iterator[Target]:
    members = _members(container)
    if not members:
        return
    stmts = [index.stmt_by_start.get(_statement_node_start(m)) for m in members]
    found = [index.parent_list.get(id(s)) if s is not None else None for s in stmts]
    places = [p for p in found if p is not None]
    owners = {(id(p[0]), p[1]) for p in places}
    if len(places) != len(found) or len(owners) != 1:
        _unmatched(index, container.type)
        return
    owner, name, first = places[0]
    if [p[2] for p in places] != list(range(first, first + len(places))):
        _unmatched(index, container.type)
        return
    if first != 0 or len(getattr(owner, name)) != len(members):
        _unmatched(index, container.type)
        return
    for i, member in enumerate(members):
        yield Target(_statement_kind(member), member, members, i, "stmts", owner, name, stmts[i])


def _delimited(index: FileIndex, container: Node) -> Iterator[Target]:
    members = _members(container)
    if not members:
        return
    owner = _owner(index, container)
    stmt = _enclosing_statement(index, container)
    if owner is None or stmt is None:
        _unmatched(index, container.type)
        return
    kind, family = DELIMITED[container.type]
    starts = [item_start(index, item) for item in items_of(family, owner, "")]
    if len(starts) != len(members) or any(
        s is not None and not m.start_byte <= s < m.end_byte for s, m in zip(starts, members, strict=True)
    ):
        _unmatched(index, container.type)
        return
    for i, member in enumerate(members):
        yield Target(kind, member, members, i, family, owner, "", stmt)


def item_start(index: FileIndex, item: object) -> int | None:
    """Where an item of an ``ast`` container starts (a parameter: its name; ``/`` and a bare ``*``: unknown)."""
    if isinstance(item, tuple) and isinstance(item[0], str):
        return index.start_of(item[1]) if len(item) > 1 else None
    if isinstance(item, tuple):  # a dict entry: its key, or the value of ``**value``
        return index.start_of(item[0] if item[0] is not None else item[1])
    return index.start_of(item)  # type: ignore[arg-type]
