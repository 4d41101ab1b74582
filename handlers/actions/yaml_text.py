"""Line arithmetic on a YAML source's bytes, shared by the block and flow members.

Why apart: YAML's block structure is lines and indentation, so every member asks the same questions (where a
line starts and ends without its newline, is it blank, is it a comment, what column is a byte at). Columns count
characters, as YAML's indentation does, not bytes; ``\\r\\n`` ends a line as ``\\n`` does.
"""

from __future__ import annotations

from tree_sitter import Node


def line_start(source: bytes, at: int) -> int:
    """The offset of the first byte of the line holding ``at``."""
    return source.rfind(b"\n", 0, at) + 1


def line_end(source: bytes, at: int) -> int:
    """The offset of the end of the line holding ``at``, before its ``\\r\\n`` or ``\\n`` (or the text's end)."""
    nl = source.find(b"\n", at)
    if nl < 0:
        return len(source)
    return nl - 1 if nl > 0 and source[nl - 1 : nl] == b"\r" else nl


def next_line(source: bytes, at: int) -> int:
    """The offset of the start of the line after the one holding ``at`` (the text's length on the last line)."""
    nl = source.find(b"\n", at)
    return len(source) if nl < 0 else nl + 1


def previous_line(source: bytes, start: int) -> int | None:
    """The start of the line before the line starting at ``start``; None on the first line."""
    return None if start == 0 else line_start(source, start - 1)


def is_blank(source: bytes, start: int) -> bool:
    """The line starting at ``start`` holds only spaces and tabs (it may be the empty last line)."""
    return not source[start : line_end(source, start)].strip(b" \t")


def indent_of(source: bytes, start: int) -> int:
    """The number of spaces that indent the line starting at ``start``."""
    text = source[start : line_end(source, start)]
    return len(text) - len(text.lstrip(b" "))


def is_comment_line(source: bytes, start: int) -> bool:
    """The line starting at ``start`` holds a comment and nothing else."""
    return source[start : line_end(source, start)].lstrip(b" \t").startswith(b"#")


def column(source: bytes, at: int) -> int:
    """The character column of byte ``at`` on its line."""
    return len(source[line_start(source, at) : at].decode("utf-8", "replace"))


def newline(source: bytes) -> bytes:
    """The text's newline: ``\\r\\n`` when its first line ends so, else ``\\n``."""
    nl = source.find(b"\n")
    return b"\r\n" if nl > 0 and source[nl - 1 : nl] == b"\r" else b"\n"


def only_space_before(source: bytes, at: int) -> bool:
    """Nothing but indentation precedes byte ``at`` on its line."""
    return not source[line_start(source, at) : at].strip(b" \t")


def content_end(node: Node) -> int:
    """The end of ``node``'s last byte that is not a comment: tree-sitter-yaml hands comments that follow a
    block to its deepest open node, which says nothing of whom they belong to. A scalar ends where it ends (a
    block scalar's only child is its ``|`` or ``>``)."""
    while node.child_count and not node.type.endswith("_scalar"):
        last = next((c for c in reversed(node.children) if c.type != "comment"), None)
        if last is None:
            break
        node = last
    end = node.end_byte
    while end > node.start_byte and source_byte(node, end - 1) in b" \t\r\n":
        end -= 1
    return end


def source_byte(node: Node, at: int) -> bytes:
    """The byte at ``at`` of the text ``node`` was parsed from (a block scalar at the end may end past its newline)."""
    text = node.text or b""
    return text[at - node.start_byte : at - node.start_byte + 1]


def reindented(text: bytes, delta: int) -> bytes:
    """``text`` with every line but the first moved ``delta`` columns (right when positive; left removes at most
    the spaces a line has). Empty lines stay empty."""
    if delta == 0 or b"\n" not in text:
        return text
    first, *rest = text.split(b"\n")
    moved = []
    for line in rest:
        if delta > 0:
            moved.append(b" " * delta + line if line.strip(b"\r") else line)
        else:
            spaces = len(line) - len(line.lstrip(b" "))
            moved.append(line[min(spaces, -delta) :])
    return b"\n".join([first, *moved])
