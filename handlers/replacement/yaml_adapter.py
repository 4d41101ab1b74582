"""YAML rules of replacement analysis on the tree-sitter-yaml tree (docs/replacement.md, "What counts as the same
unit")."""

from __future__ import annotations

from tree_sitter import Node

from tether_lsp.server.nodes import enclosing
from tether_lsp.server.positions import point_at

from .model import Candidate, Unit
from .ranges import line_end, line_start

LANGUAGE = "yaml"

#: Strictly inside one of these, a completion cannot be a new unit.
INSIDE = frozenset(
    {"double_quote_scalar", "single_quote_scalar", "block_scalar", "flow_mapping", "flow_sequence", "comment"}
)


def incomplete(root: Node, cursor: int) -> str | None:
    for node in enclosing(root, cursor):
        if node.type in INSIDE and node.start_byte < cursor < node.end_byte:
            return f"cursor is inside a {node.type.replace('_', ' ')}"
    return None


def _text(node: Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", errors="replace")


def _first(root: Node, kinds: tuple[str, ...]) -> Node | None:
    """The first node of one of ``kinds`` that starts on row 0, in document order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.start_point.row > 0:
            continue
        if node.type in kinds:
            return node
        stack.extend(reversed(node.named_children))
    return None


def pair_key(pair: Node) -> str:
    return _text(pair.child_by_field_name("key")).strip()


def item_identity(item: Node) -> str:
    """A list item's identity: its ``name`` value, else its first ``key: value``, else its scalar text."""
    body = next((c for c in item.named_children), None)
    mapping = _first_mapping(body)
    if mapping is not None:
        pairs = [c for c in mapping.named_children if c.type == "block_mapping_pair"]
        for pair in pairs:
            if pair_key(pair) == "name":
                return "name=" + _text(pair.child_by_field_name("value")).strip()
        if pairs:
            first = pairs[0]
            return f"{pair_key(first)}={_text(first.child_by_field_name('value')).strip()}"
    return _text(body).strip()


def _first_mapping(node: Node | None) -> Node | None:
    while node is not None and node.type in ("block_node", "flow_node"):
        node = node.named_children[0] if node.named_children else None
    return node if node is not None and node.type in ("block_mapping", "flow_mapping") else None


def unit_of(root: Node, first_line: str, column: int) -> Unit | None:
    """The unit a (dedented) completion defines: a list item when it starts with ``- ``, else its first pair."""
    if first_line.lstrip().startswith("- ") or first_line.strip() == "-":
        item = _first(root, ("block_sequence_item",))
        return None if item is None else Unit("yaml-list-item", item_identity(item), column)
    pair = _first(root, ("block_mapping_pair",))
    if pair is None or pair.child_by_field_name("key") is None:
        return None
    return Unit("yaml-key-value-block", pair_key(pair), column)


def positional(root: Node, text: bytes, cursor: int) -> Candidate | None:
    """Blank cursor line under ``key:`` whose value starts below: that value is the old children block."""
    start = line_start(text, cursor)
    if start == 0:
        return None
    above_start = line_start(text, start - 1)
    above = text[above_start : line_end(text, above_start)]
    first = above_start + len(above) - len(above.lstrip(b" \t-"))
    if first >= above_start + len(above):
        return None
    cursor_row = point_at(text, cursor)[0]
    for node in enclosing(root, first):
        if node.type != "block_mapping_pair":
            continue
        key = node.child_by_field_name("key")
        if key is not None and key.end_point.row == cursor_row - 1:
            value = node.child_by_field_name("value")
            if value is None or value.start_point.row <= cursor_row:
                return None
            return Candidate(
                value, "positional-children", f"blank line under '{pair_key(node)}:' replaces its children block"
            )
    return None


def keys_match(a: str, b: str) -> bool:
    """Equal, or equal up to an Ansible collection prefix (``shell`` ≈ ``ansible.builtin.shell``)."""
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def scope(root: Node, anchor: int, unit: Unit) -> Node | None:
    """The innermost mapping (pair units) or sequence (item units) at the unit's column that holds the cursor
    line by indentation: one around ``anchor``, or the value of the ``key:`` the anchor is on (a blank line right
    under ``tasks:`` belongs to the list below it, although that node starts only at its first item)."""
    kind = "block_sequence" if unit.type == "yaml-list-item" else "block_mapping"
    for node in enclosing(root, anchor):
        if node.type == kind and node.start_point.column == unit.column:
            return node
        if node.type == "block_mapping_pair":
            value = node.child_by_field_name("value")
            inner = value.named_children[0] if value is not None and value.named_children else None
            if (
                inner is not None
                and inner.start_byte > anchor
                and inner.type == kind
                and inner.start_point.column == unit.column
            ):
                return inner
    return None


def candidates(scope_node: Node, unit: Unit) -> list[Candidate]:
    out = []
    for child in scope_node.named_children:
        if unit.type == "yaml-list-item" and child.type == "block_sequence_item":
            if item_identity(child) == unit.identifier:
                out.append(Candidate(child, "sibling-item", f"replaces the list item with {unit.identifier}"))
        elif (
            unit.type == "yaml-key-value-block"
            and child.type == "block_mapping_pair"
            and keys_match(pair_key(child), unit.identifier)
        ):
            out.append(Candidate(child, "sibling-key", f"replaces the sibling key '{pair_key(child)}'"))
    return out


def layout(node: Node) -> tuple[list[Node], int]:
    """The pairs or items of the mapping or list holding ``node``, and no usual blank line between them."""
    block = node.parent
    return ([node] if block is None else block.named_children), 0
