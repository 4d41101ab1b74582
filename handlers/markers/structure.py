"""Structure-aware markers: a marker that covered a whole definition, block, YAML pair or item stays on it.

Lines alone cannot tell that a one-line ``def`` became a seven-line signature, that a ``pass`` grew into a
body, or that a method moved 260 lines up and grew: a line mapper trims or loses such blocks. So, for the
languages Tether parses, the unit a marker covered at its reference text (kind, name, enclosing names,
decorators or not) is found again in the new text after the line mapping:

1. among the units of the same kind that contain the mapped first line, the one with the same qualified
   name (innermost first);
2. else the one unit of the file with the same kind and qualified name (a move, or a mapping that landed on
   a neighbour);
3. else the innermost unit of the same kind and name that contains the mapped first line (its class was
   renamed or it moved into another one);
4. else, when the mapping found the block, the innermost unit of the same kind that contains the mapped
   first line and overlaps at least half of the mapped lines (a rename).

The snapped range keeps the marker's shape: from the line's first column if it started there, else from the
unit's first character; to the end of the unit's last line, or to the start of the next line, as it was.
Units are recognised only when the marker covered exactly a unit's lines; any other marker keeps the line
algorithm, as do languages Tether does not parse and texts it will not parse (over the grammar limits).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import NamedTuple

from tree_sitter import Node, Tree

from tether_lsp.server.syntax import GrammarLimits, language_by_name, language_for

from .calculator import Calculated, Location, block_of_lines, calculate, split_lines
from .line_map import LineMap
from .line_similarity import normalise
from .reparse import parse, parse_after

#: Python statements whose body a marker can cover as a block (named by their header line).
PY_BLOCKS = frozenset(
    {"if_statement", "for_statement", "while_statement", "with_statement", "try_statement", "match_statement"}
)
#: The nodes whose children can be units: statements live in these only (and in what a parse error wraps), so
#: expressions, however deep or long (a 110 KB concatenation, 20,000 parentheses), are never walked.
HOLDERS = {
    "python": frozenset(
        {
            *PY_BLOCKS,
            "module", "block", "decorated_definition", "function_definition", "class_definition", "elif_clause",
            "else_clause", "except_clause", "except_group_clause", "finally_clause", "case_clause", "ERROR",
        }
    ),
    "yaml": frozenset(
        {
            "stream", "document", "block_node", "block_mapping", "block_mapping_pair", "block_sequence",
            "block_sequence_item", "ERROR",
        }
    ),
}  # fmt: skip


class Unit(NamedTuple):
    """A syntax unit a marker can cover. Rows are 0-based; ``first`` includes decorators, ``own_first``
    does not (they are equal for undecorated units). A named tuple: a file's units are built by the hundred at
    every HEAD change, and a frozen dataclass's ``__init__`` cost five times as much."""

    kind: str
    name: str
    path: tuple[str, ...]
    first: int
    own_first: int
    last: int
    column: int  # of the first character (decorators included)
    own_column: int


@dataclass(frozen=True, slots=True)
class _Kinds:
    """A grammar's node kinds by number (``Node.kind_id``: an int, where ``Node.type`` builds a str per call) and
    the fields the walk reads (by number, as ``child_by_field_name`` finds them)."""

    holders: frozenset[int]
    functions: frozenset[int]  # and classes: definitions that have a name
    classes: frozenset[int]
    decorated: frozenset[int]
    blocks: frozenset[int]  # Python statements with a body, YAML sequence items: named by their header
    pairs: frozenset[int]
    name: int  # Python: a definition's name; YAML: a pair's key
    definition: int


@cache
def _kinds(language: str) -> _Kinds:
    grammar = language_by_name(language).language
    names: dict[str, set[int]] = {}
    # every kind, the error kinds (numbered past the count) included; several numbers can share a name (aliases)
    for kind_id in (*range(grammar.node_kind_count), 0xFFFE, 0xFFFF):
        names.setdefault(grammar.node_kind_for_id(kind_id) or "", set()).add(kind_id)

    def of(*types: str) -> frozenset[int]:
        return frozenset(k for t in types for k in names.get(t, ()))

    python = language == "python"
    return _Kinds(
        holders=of(*HOLDERS[language]),
        functions=of("function_definition" if python else ""),
        classes=of("class_definition" if python else ""),
        decorated=of("decorated_definition" if python else ""),
        blocks=of(*PY_BLOCKS) if python else of("block_sequence_item"),
        pairs=of("" if python else "block_mapping_pair"),
        name=grammar.field_id_for_name("name" if python else "key") or -1,
        definition=(grammar.field_id_for_name("definition") or -1) if python else -1,
    )


def units(language: str, text: str, limits: GrammarLimits | None = None) -> list[Unit] | None:
    """Every unit of a text in document order; None when the text is not parsed (over ``limits``: the
    ``tether.limits`` grammar settings, their defaults when None)."""
    data = text.encode("utf-8", "surrogatepass")
    tree = parse(language, data, limits)
    return None if tree is None else units_of(language, tree, data)


@dataclass(frozen=True, slots=True)
class Wanted:
    """The units a caller needs: those whose lines hold one of ``rows`` (0-based, sorted) and those of a qualified
    name (path and name) in ``names``, wherever they are; ``prefixes``: every path leading to one of those names.
    The walk skips every node that holds none of them, and names only the units on its way."""

    rows: list[int]
    names: frozenset[tuple[str, ...]] = frozenset()
    prefixes: frozenset[tuple[str, ...]] = frozenset()

    @staticmethod
    def of(rows: Iterable[int], names: Iterable[tuple[str, ...]] = ()) -> Wanted:
        named = frozenset(names)
        prefixes = frozenset(name[:n] for name in named for n in range(len(name)))
        return Wanted(sorted(set(rows)), named, prefixes)

    def near(self, first: int, last: int) -> bool:
        """Whether rows ``first`` to ``last`` hold a wanted row."""
        at = bisect_left(self.rows, first)
        return at < len(self.rows) and self.rows[at] <= last


def units_of(language: str, tree: Tree, data: bytes, wanted: Wanted | None = None) -> list[Unit]:
    """Every unit of a parsed text (``data``, its bytes) in document order; only those ``wanted`` when given (a
    HEAD change asks for the units around a file's markers). Only the nodes that can hold statements are walked,
    told apart by kind number; names and headers are read from ``data`` (a node's ``text`` goes through the
    parse's read callback)."""
    out: list[Unit] = []
    kinds = _kinds(language)
    holders, decorated, definition = kinds.holders, kinds.decorated, kinds.definition
    unit_of = _python_unit if language == "python" else _yaml_unit
    stack: list[tuple[Node, tuple[str, ...]]] = [(tree.root_node, ())]
    while stack:  # explicit: nesting can be deeper than Python's recursion limit
        node, path = stack.pop()
        children: list[tuple[Node, tuple[str, ...]]] = []
        for child in node.named_children:
            kind = child.kind_id
            if kind not in holders:
                continue
            near = True
            if wanted is not None:
                near = wanted.near(child.start_point.row, child.end_point.row)
                if not near and path not in wanted.prefixes:
                    continue  # nothing in it is wanted: no wanted row, and its path leads to no wanted name
            unit = unit_of(child, path, data)
            if unit is None:
                children.append((child, path))
                continue
            qualified = (*path, unit.name)
            if near or wanted is None or qualified in wanted.names:
                out.append(unit)
            if near or wanted is None or qualified in wanted.prefixes:
                inner = child.child_by_field_id(definition) if kind in decorated else None
                children.append((inner or child, qualified))  # a decorated def is one unit
        stack.extend(reversed(children))
    out.sort(key=_order)
    return out


def _order(unit: Unit) -> tuple[int, int]:
    return unit.first, -unit.last


def _last_row(node: Node, data: bytes) -> int:
    """The row of the node's last non-blank character (tree-sitter ends some nodes on the next line)."""
    start, end = node.start_byte, node.end_byte
    while end > start and data[end - 1] in _BLANKS:
        end -= 1
    if end <= start:
        return node.start_point.row
    # the node's end row less the line breaks after its last character: counting from the text's start would make
    # a walk over every unit of a file quadratic
    return node.end_point.row - data.count(b"\n", end, node.end_byte)


_BLANKS = frozenset(b" \t\r\n")


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _header(node: Node, data: bytes) -> str:
    start = node.start_byte
    line_end = data.find(b"\n", start)
    return normalise(data[start : line_end if line_end >= 0 else len(data)].decode("utf-8", "replace"))


def _python_unit(node: Node, path: tuple[str, ...], data: bytes) -> Unit | None:
    kinds = _kinds("python")
    kind = node.kind_id
    inner = node.child_by_field_id(kinds.definition) if kind in kinds.decorated else node
    if inner is None:
        return None
    inner_kind = inner.kind_id
    if inner_kind in kinds.functions or inner_kind in kinds.classes:
        name_node = inner.child_by_field_id(kinds.name)
        name = _text(name_node, data) if name_node is not None else ""
        unit_kind = "class" if inner_kind in kinds.classes else "function"
    elif kind in kinds.blocks:
        name, unit_kind = _header(node, data), node.type
    else:
        return None
    row, column = node.start_point
    own_row, own_column = inner.start_point if inner is not node else (row, column)
    return Unit(unit_kind, name, path, row, own_row, _last_row(node, data), column, own_column)


def _yaml_unit(node: Node, path: tuple[str, ...], data: bytes) -> Unit | None:
    kinds = _kinds("yaml")
    kind = node.kind_id
    if kind in kinds.pairs:
        key = node.child_by_field_id(kinds.name)
        name = normalise(_text(key, data)) if key is not None else ""
        unit_kind = "yaml-pair"
    elif kind in kinds.blocks:
        name, unit_kind = _header(node, data), "yaml-item"
    else:
        return None
    row, column = node.start_point
    return Unit(unit_kind, name, path, row, row, _last_row(node, data), column, column)


@dataclass(frozen=True, slots=True)
class Covered:
    """The unit a marker covered and how: decorators included or not, and the marker's own edges."""

    unit: Unit
    decorated: bool  # the marker covered the whole unit, decorators included (if it had any)
    from_line_start: bool  # the marker started at column 1
    to_next_line: bool  # the marker ended at column 1 of the line after the unit


def covered(found: list[Unit], lines: list[str], loc: Location) -> Covered | None:
    """The unit whose lines ``loc`` covers exactly (the outermost when several share them)."""
    to_next_line = _to_next_line(loc)
    first, last = loc.line_start - 1, _last_row_covered(loc)
    if not to_next_line and last < len(lines) and loc.col_end <= len(lines[last].rstrip()):
        return None  # the marker stops before the end of the unit's last line
    for unit in found:
        if unit.last != last or unit.first > first:
            continue
        if unit.first == first and loc.col_start <= unit.column + 1:  # all of it: decorators it gains are in
            return Covered(unit, True, loc.col_start == 1, to_next_line)
        if unit.own_first == first and loc.col_start <= unit.own_column + 1:
            return Covered(unit, False, loc.col_start == 1, to_next_line)
    return None


def _to_next_line(loc: Location) -> bool:
    return loc.col_end == 1 and loc.line_end > loc.line_start


def _last_row_covered(loc: Location) -> int:
    """The 0-based last row of the unit ``loc`` would cover (see :func:`covered`)."""
    return loc.line_end - 1 - (1 if _to_next_line(loc) else 0)


def snap(was: Covered, found: list[Unit], lines: list[str], mapped: Location | None) -> tuple[Location, Unit] | None:
    """The marker's range on the unit that is ``was.unit`` in the new text (the rules in the module doc)."""
    old = was.unit
    same_kind = [u for u in found if u.kind == old.kind]
    choice: Unit | None = None
    if mapped is not None:
        anchor = mapped.line_start - 1
        holding = [u for u in same_kind if u.first <= anchor <= u.last]
        holding.sort(key=lambda u: u.last - u.first)  # innermost (shortest) first
        choice = next((u for u in holding if u.name == old.name and u.path == old.path), None)
    if choice is None:
        named = [u for u in same_kind if u.name == old.name and u.path == old.path]
        if len(named) == 1:
            choice = named[0]
    if choice is None and mapped is not None:
        choice = next((u for u in holding if u.name == old.name), None)  # same name, another parent
    if choice is None and mapped is not None:
        anchor, mapped_last = mapped.line_start - 1, mapped.line_end - 1
        for unit in sorted((u for u in same_kind if u.first <= anchor <= u.last), key=lambda u: u.last - u.first):
            overlap = min(unit.last, mapped_last) - max(unit.first, anchor) + 1
            if 2 * overlap >= mapped_last - anchor + 1:
                choice = unit
                break
    if choice is None:
        return None
    first = choice.first if was.decorated else choice.own_first
    column = choice.column if was.decorated else choice.own_column
    col_start = 1 if was.from_line_start else column + 1
    if was.to_next_line and choice.last + 1 < len(lines):
        return Location(first + 1, col_start, choice.last + 2, 1), choice
    return Location(first + 1, col_start, choice.last + 1, len(lines[choice.last]) + 1), choice


def language_of(uri_or_path: str) -> str | None:
    """The language Tether parses for a file, by its extension (None: lines only)."""
    spec = language_for(None, uri_or_path)
    return spec.name if spec is not None else None


def follow(
    old_text: str,
    new_text: str,
    locations: Mapping[str, Location],
    language: str | None,
    limits: GrammarLimits | None = None,
    *,
    line_map: LineMap | None = None,
) -> dict[str, Calculated]:
    """:func:`calculator.calculate` (through ``line_map`` when given), then markers that covered a unit snapped to
    it (see the module doc)."""
    results = calculate(old_text, new_text, locations, line_map=line_map)
    if language not in ("python", "yaml") or old_text == new_text:
        return results
    assert language is not None
    old_data = old_text.encode("utf-8", "surrogatepass")
    old_tree = parse(language, old_data, limits)
    # a marker covers a unit that ends on its last row: only the units around those rows are needed
    ends = Wanted.of(_last_row_covered(loc) for loc in locations.values())
    old_units = units_of(language, old_tree, old_data, ends) if old_tree is not None else None
    if not old_units or old_tree is None:
        return results
    old_lines = split_lines(old_text)
    shapes = {key: covered(old_units, old_lines, loc) for key, loc in locations.items()}
    if not any(shapes.values()):
        return results
    new_data = new_text.encode("utf-8", "surrogatepass")
    new_tree = (
        parse_after(language, old_tree, old_data, new_data, line_map.opcodes, limits)
        if line_map is not None
        else parse(language, new_data, limits)
    )
    if new_tree is None:
        return results
    # the units :func:`snap` can choose: those holding a mapped first line, those of a covered unit's name anywhere
    shaped = {key: was for key, was in shapes.items() if was is not None}
    mapped_at = [loc.line_start - 1 for loc in (results[key].location for key in shaped) if loc is not None]
    new_units = units_of(
        language, new_tree, new_data, Wanted.of(mapped_at, ((*w.unit.path, w.unit.name) for w in shaped.values()))
    )
    new_lines = split_lines(new_text)
    for key, was in shapes.items():
        if was is None:
            continue
        result = results[key]
        snapped = snap(was, new_units, new_lines, result.location)
        if snapped is None:
            continue
        location, _ = snapped
        mapped = result.location
        moved = result.moved or mapped is None or not share_a_line(mapped, location)
        changed = block_of_lines(new_lines, location) != block_of_lines(old_lines, locations[key])
        results[key] = replace(
            result,
            location=location,
            entirely_deleted=False,
            content_changed=changed,
            moved=moved,
            reason=None,
        )
    return results


def share_a_line(a: Location, b: Location) -> bool:
    """Whether two locations have a line in common: a snapped marker sharing none with its line-mapped place
    has moved."""
    return a.line_start <= b.line_end and b.line_start <= a.line_end
