"""YAML anchors and aliases around a member: what removing it would leave dangling, and fresh names for a copy.

Why: ``*x`` names the node anchored ``&x`` before it in the same document. Removing that node leaves an alias
no loader accepts, so the removal is refused, saying where the alias is; a copy keeping ``&x`` defines the
anchor twice (PyYAML refuses that too), so a copy's anchors get fresh names, and its own aliases to them follow.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node, Query, QueryCursor

from ...server.languages import language_by_name
from .model import ActionRefused

_QUERIES: list[Query] = []


def _names(node: Node, start: int | None = None, end: int | None = None) -> list[tuple[str, Node]]:
    """Every anchor and alias name under ``node`` (or in ``[start, end)`` of it): ("anchor"/"alias", name node)."""
    if not _QUERIES:
        _QUERIES.append(Query(language_by_name("yaml").language, "(anchor_name) @anchor (alias_name) @alias"))
    cursor = QueryCursor(_QUERIES[0])
    if start is not None and end is not None:
        cursor.set_byte_range(start, end)
    found = [(kind, n) for kind, nodes in cursor.captures(node).items() for n in nodes]
    return sorted(found, key=lambda item: item[1].start_byte)


def _document(node: Node) -> Node:
    while node.parent is not None and node.type != "document":
        node = node.parent
    return node


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def check_removable(node: Node, span: tuple[int, int], field: str = "targets[0]") -> None:
    """Refuse removing ``span`` when an alias outside it names an anchor defined only inside it."""
    inside = {_text(n) for kind, n in _names(node) if kind == "anchor" and span[0] <= n.start_byte < span[1]}
    if not inside:
        return
    outside = [(kind, n) for kind, n in _names(_document(node)) if not span[0] <= n.start_byte < span[1]]
    defined_elsewhere = {_text(n) for kind, n in outside if kind == "anchor"}
    for kind, n in outside:
        name = _text(n)
        if kind == "alias" and name in inside and name not in defined_elsewhere:
            line = n.start_point.row + 1
            raise ActionRefused(field, f"its anchor &{name} is used by *{name} on line {line}")


def renamed_copy(node: Node, span: tuple[int, int], text: bytes) -> bytes:
    """``text`` (the bytes of ``span``) with each anchor defined in it renamed to a name the document does not
    use (``x`` becomes ``x2``, ``x3``…), and its aliases to those anchors following."""
    here = _names(node, *span)
    anchors = [_text(n) for kind, n in here if kind == "anchor"]
    if not anchors:
        return text
    taken = {_text(n) for _, n in _names(_document(node))}
    fresh: dict[str, str] = {}
    for name in anchors:
        stem, number = re.fullmatch(r"(.*?)(\d*)", name).groups()  # type: ignore[union-attr]
        count = int(number) + 1 if number else 2
        while f"{stem}{count}" in taken:
            count += 1
        fresh[name] = f"{stem}{count}"
        taken.add(fresh[name])
    return _replaced(text, span[0], ((n, fresh[_text(n)]) for _, n in here if _text(n) in fresh))


def _replaced(text: bytes, base: int, names: Iterable[tuple[Node, str]]) -> bytes:
    out, at = [], 0
    for n, new in names:
        out += [text[at : n.start_byte - base], new.encode()]
        at = n.end_byte - base
    out.append(text[at:])
    return b"".join(out)


def check_movable(moved: Node, span: tuple[int, int], place: tuple[int, int], field: str = "destination") -> None:
    """Refuse carrying ``span`` (``moved``'s bytes) to ``place`` when an anchor would land after an alias to it,
    or an alias in it before its anchor: an alias names an anchor defined before it."""
    if place[0] >= span[1]:  # going down: aliases between here and there would come before its anchors
        between, gone = (span[1], place[1]), "anchor"
    else:  # going up: its aliases would come before anchors between there and here
        between, gone = (place[0], span[0]), "alias"
    mine = {_text(n) for kind, n in _names(moved, *span) if kind == gone}
    if not mine:
        return
    for kind, n in _names(_document(moved), *between):
        if kind != gone and _text(n) in mine:
            name, line = _text(n), n.start_point.row + 1
            if gone == "anchor":
                raise ActionRefused(field, f"&{name} would come after *{name} (line {line}) that names it")
            raise ActionRefused(field, f"*{name} would come before &{name} (line {line}) that it names")
