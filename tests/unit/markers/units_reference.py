"""The walk that found a text's syntax units before it read node kinds by number and names from the bytes (the
code of ``structure.units_of`` as it was): the reference :mod:`test_units_corpus` holds the walk to. Units are
plain tuples in ``structure.Unit``'s field order."""

from __future__ import annotations

from tree_sitter import Node, Tree

from tether_lsp.handlers.markers.line_similarity import normalise
from tether_lsp.handlers.markers.structure import HOLDERS, PY_BLOCKS

Unit = tuple[str, str, tuple[str, ...], int, int, int, int, int]


def reference_units(language: str, tree: Tree, data: bytes) -> list[Unit]:
    out: list[Unit] = []
    holders = HOLDERS[language]
    stack: list[tuple[Node, tuple[str, ...]]] = [(tree.root_node, ())]
    while stack:
        node, path = stack.pop()
        children: list[tuple[Node, tuple[str, ...]]] = []
        for child in node.named_children:
            if child.type not in holders:
                continue
            unit = _python_unit(child, path, data) if language == "python" else _yaml_unit(child, path, data)
            if unit is not None:
                out.append(unit)
                inner = child.child_by_field_name("definition") if child.type == "decorated_definition" else None
                children.append((inner or child, (*path, unit[1])))
            else:
                children.append((child, path))
        stack.extend(reversed(children))
    out.sort(key=lambda u: (u[3], -u[5]))
    return out


def _last_row(node: Node, data: bytes) -> int:
    end = node.end_byte
    while end > node.start_byte and data[end - 1 : end] in (b" ", b"\t", b"\r", b"\n"):
        end -= 1
    if end <= node.start_byte:
        return node.start_point.row
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
    return (
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
    return (kind, name, path, row, row, _last_row(node, data), column, column)
