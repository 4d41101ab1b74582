"""Replacement analysis: does an AI completion at the cursor replace an existing unit, and exactly which text?

Pure (docs/replacement.md, "What counts as the same unit"): the document's bytes and tree in, an
:class:`Analysis` in bytes out. Each question about the code (is the cursor inside a string, where does the unit
start, how far does it reach) is answered on the tree-sitter tree by the language adapter, never by regular
expressions over lines; the engine keeps the decision and the confidence model.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

from tree_sitter import Node, Parser, Point, Tree

from tether_lsp.server.lazy import lazy_module
from tether_lsp.server.positions import point_after, point_at
from tether_lsp.server.syntax import GrammarLimits, language_by_name

from . import python_adapter, yaml_adapter
from .model import BASE_CONFIDENCE, Adapter, Analysis, Candidate, Options, Unit
from .ranges import (
    absorbs_cursor_line,
    blank_lines_above,
    dedent,
    indentation,
    is_blank,
    line_count,
    line_end,
    line_start,
    normalised,
    reindented,
    unit_span,
)

if TYPE_CHECKING:
    import regex
else:  # loaded on first use: start-up does not import it
    regex = lazy_module("regex")

ADAPTERS: dict[str, Adapter] = {"python": python_adapter, "yaml": yaml_adapter}


@cache
def _word() -> regex.Pattern[str]:
    return regex.compile(r"\w")


@cache
def _trailing_word() -> regex.Pattern[bytes]:
    return regex.compile(rb"[\w$-]+$")


_parsers: dict[str, Parser] = {}


def supported(language: str | None) -> bool:
    return language in ADAPTERS


def _parser(language: str) -> Parser:
    if language not in _parsers:
        _parsers[language] = Parser(language_by_name(language).language)
    return _parsers[language]


def _parsable(language: str, text: bytes) -> bool:
    """A completion (or the document with it) that the grammar must not see (nested too deeply) is no unit."""
    return GrammarLimits().check(language, text) is None


def _insert(text: bytes, cursor: int, completion: str, reason: str, unit: Unit | None = None) -> Analysis:
    return Analysis("insert", (cursor, cursor), completion, reason, unit=unit)


def error_count(root: Node) -> int:
    """ERROR and MISSING nodes in a tree (subtrees without errors are skipped)."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if not node.has_error and not node.is_missing:
            continue
        count += node.type == "ERROR" or node.is_missing
        stack.extend(node.children)
    return count


def errors_between(root: Node, start: int, end: int) -> bool:
    """An ERROR or MISSING node intersects ``[start, end]`` (both ends included)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.start_byte > end or node.end_byte < start or not (node.has_error or node.is_missing):
            continue
        if node.type == "ERROR" or node.is_missing:
            return True
        stack.extend(node.children)
    return False


def mid_word(text: bytes, cursor: int) -> bool:
    """Whether the cursor sits between two word characters: a completion there would split a word."""
    before = text[max(0, cursor - 4) : cursor].decode("utf-8", errors="ignore")[-1:]
    after = text[cursor : cursor + 4].decode("utf-8", errors="ignore")[:1]
    return bool(before and after and _word().match(before) and _word().match(after))


def incomplete(adapter: Adapter, tree: Tree, text: bytes, cursor: int) -> str | None:
    """Why the cursor cannot start a new unit, or None."""
    start = line_start(text, cursor)
    prefix = text[start:cursor]
    if prefix.strip(b" \t"):
        first = start + indentation(prefix)
        if errors_between(tree.root_node, first, cursor):
            return "syntax error before the cursor on its line"
    if mid_word(text, cursor):
        return "cursor is inside a word"
    reason: str | None = adapter.incomplete(tree.root_node, cursor)
    return reason


def logical_unit(adapter: Adapter, language: str, effective: str) -> Unit | None:
    """Parse the effective completion with the document's grammar; the unit is the node on its first row."""
    first_line = effective.split("\n", 1)[0]
    column = indentation(first_line.encode())
    source = dedent(effective, column).encode("utf-8")
    if not _parsable(language, source):
        return None
    root = _parser(language).parse(source).root_node
    unit: Unit | None = adapter.unit_of(root, first_line, column)
    return unit


def anchor_offset(text: bytes, cursor: int) -> int | None:
    """First non-blank, non-dash byte of the nearest non-blank line above the cursor line, else below."""
    start = line_start(text, cursor)
    at = start
    while at > 0:
        at = line_start(text, at - 1)
        line = text[at : line_end(text, at)]
        if line.strip():
            return at + len(line) - len(line.lstrip(b" \t-"))
    newline = text.find(b"\n", cursor)
    while newline >= 0:
        at = newline + 1
        line = text[at : line_end(text, at)]
        if line.strip():
            return at + len(line) - len(line.lstrip(b" \t-"))
        newline = text.find(b"\n", at)
    return None


def _sibling(adapter: Adapter, tree: Tree, text: bytes, cursor: int, unit: Unit) -> Candidate | None:
    anchor = anchor_offset(text, cursor)
    if anchor is None:
        return None
    scope = adapter.scope(tree.root_node, anchor, unit)
    if scope is None:
        return None
    cursor_line = text[line_start(text, cursor) : line_end(text, cursor)]
    cursor_row = point_at(text, cursor)[0]
    above: list[Candidate] = []
    below: list[Candidate] = []
    for candidate in adapter.candidates(scope, unit):
        node = candidate.node
        if node.has_error:
            continue  # the header being typed, or broken code
        if node.start_point.row <= cursor_row <= node.end_point.row and cursor_line.strip():
            continue
        (above if node.start_point.row < cursor_row else below).append(candidate)
    if above:
        return max(above, key=lambda c: c.node.start_byte)
    if below:
        return min(below, key=lambda c: c.node.start_byte)
    return None


def confidence(unit: Unit, old_column: int, lines: int) -> float:
    """How likely a replace is: base by type, ±column agreement, a bonus for multi-line units."""
    score = BASE_CONFIDENCE[unit.type] + (0.1 if old_column == unit.column else -0.2) + (0.05 if lines >= 2 else 0)
    return round(min(score, 1.0), 4)


def validates(tree: Tree, text: bytes, language: str, span: tuple[int, int], new_text: str) -> bool:
    """Tabby-style: the edited copy, reparsed incrementally, has no more ERROR/MISSING nodes than before."""
    new_bytes = new_text.encode("utf-8")
    start, old_end = span
    begin = Point(*point_at(text, start))
    edited = tree.copy()
    edited.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=start + len(new_bytes),
        start_point=begin,
        old_end_point=Point(*point_at(text, old_end)),
        new_end_point=Point(*point_after((begin.row, begin.column), new_bytes)),
    )
    result = text[:start] + new_bytes + text[old_end:]
    if not _parsable(language, result):
        return False
    after = _parser(language).parse(result, edited)
    return error_count(after.root_node) <= error_count(tree.root_node)


def analyze(text: bytes, tree: Tree, language: str, cursor: int, completion: str, options: Options) -> Analysis:
    """Insert or replace, and the exact edit; never, without a warning, one that ends the cursor's block early."""
    analysis = _analyze(text, tree, language, cursor, completion, options)
    if analysis.mode == "insert" and analysis.edit_span == (cursor, cursor) and analysis.reason != "identical":
        return _within_block(text, tree, language, cursor, completion, options, analysis)
    return analysis


def _within_block(
    text: bytes, tree: Tree, language: str, cursor: int, completion: str, options: Options, analysis: Analysis
) -> Analysis:
    """An insert that starts left of the code right after it (a line with no indentation in a class body) ends the
    cursor's block early: that code would no longer parse, or would silently move into the inserted function.
    Moved right to that code's column, the completion is analysed again (it may be the new version of the method
    below); if it still does not fit, it carries a warning.
    """
    start = line_start(text, cursor)
    prefix = text[start:cursor].decode("utf-8", errors="replace")
    if prefix.strip() or not is_blank(text[cursor : line_end(text, cursor)]):
        return analysis
    following = _next_code_line(text, cursor)
    effective = prefix + completion
    column = indentation(effective.split("\n", 1)[0].encode())
    if following is None or indentation(following) <= column:
        return analysis
    if incomplete(ADAPTERS[language], tree, text, cursor) is not None:
        return analysis  # inside brackets or a string: the lines after it are no block
    target = indentation(following)
    pad = following[column:target].decode("utf-8", errors="replace")
    first, newline, rest = effective.partition("\n")
    if all(indentation(line.encode()) > target for line in rest.split("\n") if line.strip()):
        moved = pad + first + newline + rest  # only the first line was left of the block: the rest is in place
    else:
        moved = reindented(effective, pad)  # the whole completion was written as if the block were at its column
    if moved.startswith(prefix):
        again = _analyze(text, tree, language, cursor, moved[len(prefix) :], options)
        if again.mode == "replace" or validates(tree, text, language, again.edit_span, again.new_text):
            return replace(again, reason=f"re-indented to column {target}, the block it is typed in: {again.reason}")
    warning = f"it would end the enclosing block early (it starts at column {column}, the block at column {target})"
    return replace(analysis, reason=warning, warning=warning)


def _next_code_line(text: bytes, cursor: int) -> bytes | None:
    """The first non-blank line after the cursor's line."""
    newline = text.find(b"\n", cursor)
    while newline >= 0:
        at = newline + 1
        line = text[at : line_end(text, at)]
        if not is_blank(line):
            return line
        newline = text.find(b"\n", at)
    return None


def _analyze(text: bytes, tree: Tree, language: str, cursor: int, completion: str, options: Options) -> Analysis:
    adapter = ADAPTERS[language]
    if not options.enable_replacements:
        return _insert(text, cursor, completion, "disabled")
    if not completion.strip():
        return _insert(text, cursor, completion, "empty completion")
    why = incomplete(adapter, tree, text, cursor)
    if why is not None:
        return _insert(text, cursor, completion, why)
    start = line_start(text, cursor)
    prefix = text[start:cursor]
    if prefix.strip(b" \t"):
        word = _trailing_word().search(prefix)
        if word is None:
            return _insert(text, cursor, completion, "completion continues the line")
        typed = word.group().decode("utf-8", errors="replace")
        return Analysis("insert", (start + word.start(), cursor), typed + completion, "completion continues the line")
    effective = prefix.decode("utf-8", errors="replace") + completion
    unit = logical_unit(adapter, language, effective)
    if unit is None:
        return _insert(text, cursor, completion, "no logical unit")
    old = None
    if unit.type == "yaml-key-value-block" and is_blank(text[start : line_end(text, cursor)]):
        old = adapter.positional(tree.root_node, text, cursor)
    if old is None:
        old = _sibling(adapter, tree, text, cursor, unit)
    if old is None:
        return _insert(text, cursor, completion, f"unit '{unit.identifier}' not found in scope", unit)
    return _replacement(text, tree, adapter, language, cursor, completion, effective, unit, old, options)


def separation(text: bytes, adapter: Adapter, node: Node) -> int:
    """Blank lines the block keeps between its units: the nearest the file shows above a unit of the block (the units
    after the old unit ``node`` first, then those before it; never the blank lines right above ``node``, where the
    cursor is, nor those under the block's header), else the language's usual separation."""
    units, usual = adapter.layout(node)
    index = next((k for k, u in enumerate(units) if u.start_byte <= node.start_byte < u.end_byte), None)
    if index is None:
        return usual
    for unit in (*units[index + 1 :], *reversed(units[:index])):
        first = line_start(text, unit.start_byte)
        blank, above = blank_lines_above(text, first)
        if blank and above is not None and indentation(above) >= indentation(text[first : line_end(text, first)]):
            return blank
    return usual


def _replacement(
    text: bytes,
    tree: Tree,
    adapter: Adapter,
    language: str,
    cursor: int,
    completion: str,
    effective: str,
    unit: Unit,
    old: Candidate,
    options: Options,
) -> Analysis:
    span = unit_span(text, old.node)
    replaced = text[span[0] : span[1]].decode("utf-8", errors="replace")
    new_text = effective[:-2] if effective.endswith("\r\n") else effective.removesuffix("\n")
    if normalised(replaced) == normalised(new_text):
        return _insert(text, cursor, completion, "identical", unit)
    lines = line_count(text, span[0], span[1])
    score = confidence(unit, old.node.start_point.column, lines)
    if score < options.min_confidence:
        return _insert(
            text, cursor, completion, f"confidence {score} below minConfidence {options.min_confidence}", unit
        )
    start = line_start(text, cursor)
    first = line_start(text, span[0])
    if span[0] >= cursor and first > start and is_blank(text[cursor : span[0]]):
        # forward: blank lines between the cursor line and the unit stay; the cursor line goes, or stays empty
        end_of_line, below = line_end(text, start), text.find(b"\n", start) + 1
        between = text[below:first].decode("utf-8", errors="replace")
        if absorbs_cursor_line(text, span[0], separation(text, adapter, old.node)):
            new_text, edit = between + new_text, (start, span[1])
        elif end_of_line > start:  # a separator the user typed spaces on: it stays, without them
            new_text = text[end_of_line:below].decode() + between + new_text
            edit = (start, span[1])
        else:
            edit = span
    else:
        edit = span
        if span[0] != line_start(text, span[0]):
            new_text = new_text.lstrip(" \t")  # after a sequence dash that stays
    if not validates(tree, text, language, edit, new_text):
        return _insert(text, cursor, completion, "replacement would add syntax errors", unit)
    show = lines >= options.visual_diff_min_lines or score > options.visual_diff_min_confidence
    return Analysis("replace", edit, new_text, old.reason, span, score, show, lines, unit, old.strategy)
