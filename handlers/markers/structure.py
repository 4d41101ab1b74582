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

from collections.abc import Mapping
from dataclasses import dataclass, replace

from tree_sitter import Node, Tree

from tether_lsp.server.syntax import GrammarLimits, language_for

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


@dataclass(frozen=True, slots=True)
class Unit:
    """A syntax unit a marker can cover. Rows are 0-based; ``first`` includes decorators, ``own_first``
    does not (they are equal for undecorated units)."""

    kind: str
    name: str
    path: tuple[str, ...]
    first: int
    own_first: int
    last: int
    column: int  # of the first character (decorators included)
    own_column: int


def units(language: str, text: str, limits: GrammarLimits | None = None) -> list[Unit] | None:
    """Every unit of a text in document order; None when the text is not parsed (over ``limits``: the
    ``tether.limits`` grammar settings, their defaults when None)."""
    data = text.encode("utf-8", "surrogatepass")
    tree = parse(language, data, limits)
    return None if tree is None else units_of(language, tree, data)


def units_of(language: str, tree: Tree, data: bytes) -> list[Unit]:
    """Every unit of a parsed text (``data``, its bytes) in document order."""
    out: list[Unit] = []
    holders = HOLDERS[language]
    stack: list[tuple[Node, tuple[str, ...]]] = [(tree.root_node, ())]
    while stack:  # explicit: nesting can be deeper than Python's recursion limit
        node, path = stack.pop()
        children: list[tuple[Node, tuple[str, ...]]] = []
        for child in node.named_children:
            if child.type not in holders:
                continue
            unit = _python_unit(child, path, data) if language == "python" else _yaml_unit(child, path, data)
            if unit is not None:
                out.append(unit)
                inner = child.child_by_field_name("definition") if child.type == "decorated_definition" else None
                children.append((inner or child, (*path, unit.name)))  # a decorated def is one unit
            else:
                children.append((child, path))
        stack.extend(reversed(children))
    out.sort(key=lambda u: (u.first, -u.last))
    return out


def _last_row(node: Node, data: bytes) -> int:
    """The row of the node's last non-blank character (tree-sitter ends some nodes on the next line)."""
    end = node.end_byte
    while end > node.start_byte and data[end - 1 : end] in (b" ", b"\t", b"\r", b"\n"):
        end -= 1
    if end <= node.start_byte:
        return node.start_point.row
    # the node's end row less the line breaks after its last character: counting from the text's start would make
    # a walk over every unit of a file quadratic
    return node.end_point.row - data.count(b"\n", end, node.end_byte)


def _header(node: Node, data: bytes) -> str:
    line_end = data.find(b"\n", node.start_byte)
    return normalise(data[node.start_byte : line_end if line_end >= 0 else len(data)].decode("utf-8", "replace"))


def _python_unit(node: Node, path: tuple[str, ...], data: bytes) -> Unit | None:
    inner = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
    if inner is None:
        return None
    if inner.type in ("function_definition", "class_definition"):
        name_node = inner.child_by_field_name("name")
        name = name_node.text.decode("utf-8", "replace") if name_node is not None and name_node.text else ""
        kind = "class" if inner.type == "class_definition" else "function"
    elif node.type in PY_BLOCKS:
        name, kind = _header(node, data), node.type
    else:
        return None
    last = _last_row(node, data)
    return Unit(
        kind, name, path, node.start_point.row, inner.start_point.row, last, node.start_point.column,
        inner.start_point.column,
    )  # fmt: skip


def _yaml_unit(node: Node, path: tuple[str, ...], data: bytes) -> Unit | None:
    if node.type == "block_mapping_pair":
        key = node.child_by_field_name("key")
        name = normalise(key.text.decode("utf-8", "replace")) if key is not None and key.text else ""
        kind = "yaml-pair"
    elif node.type == "block_sequence_item":
        name, kind = _header(node, data), "yaml-item"
    else:
        return None
    row, column = node.start_point.row, node.start_point.column
    return Unit(kind, name, path, row, row, _last_row(node, data), column, column)


@dataclass(frozen=True, slots=True)
class Covered:
    """The unit a marker covered and how: decorators included or not, and the marker's own edges."""

    unit: Unit
    decorated: bool  # the marker covered the whole unit, decorators included (if it had any)
    from_line_start: bool  # the marker started at column 1
    to_next_line: bool  # the marker ended at column 1 of the line after the unit


def covered(found: list[Unit], lines: list[str], loc: Location) -> Covered | None:
    """The unit whose lines ``loc`` covers exactly (the outermost when several share them)."""
    to_next_line = loc.col_end == 1 and loc.line_end > loc.line_start
    first, last = loc.line_start - 1, loc.line_end - 1 - (1 if to_next_line else 0)
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
    old_units = units_of(language, old_tree, old_data) if old_tree is not None else None
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
    new_units = units_of(language, new_tree, new_data)
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
