"""Line and indentation arithmetic shared by ``wrap`` and ``unwrap``: where a line starts and ends, the file's
newline and indentation unit, which lines are a string's content (never re-indented), and where produced text
lands once every replacement is made.

Why its own module: re-indenting a block is the one place where wrap and unwrap can corrupt code (a
triple-quoted string's lines are content, a tab is not four spaces, a CRLF file stays CRLF), so it is written
once and tested through both.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from tree_sitter import Node

from tether_lsp.handlers.actions.model import Replace

#: Nodes whose lines after the first are content: re-indenting them would change the program.
_STRING_TYPES = frozenset({"string", "concatenated_string"})
_DEFAULT_UNIT = b"    "


def line_start(source: bytes, pos: int) -> int:
    """Offset of the first byte of the line holding ``pos``."""
    return source.rfind(b"\n", 0, pos) + 1


def line_end(source: bytes, pos: int) -> int:
    """Offset just past the last character of the line holding ``pos`` (before its ``\\n`` or ``\\r\\n``)."""
    end = source.find(b"\n", pos)
    end = len(source) if end < 0 else end
    return end - 1 if end > 0 and source[end - 1 : end] == b"\r" and end - 1 >= pos else end


def indentation(source: bytes, pos: int) -> bytes:
    """The whitespace that opens the line holding ``pos``."""
    start = line_start(source, pos)
    at = start
    while at < len(source) and source[at] in b" \t\f":
        at += 1
    return source[start:at]


def newline_of(source: bytes) -> bytes:
    """The file's newline: ``\\r\\n`` when its first line ends so, else ``\\n``."""
    first = source.find(b"\n")
    return b"\r\n" if first > 0 and source[first - 1 : first] == b"\r" else b"\n"


def line_starts(source: bytes, start: int, end: int) -> Iterator[int]:
    """The start offset of ``start``'s line and of every later line that begins before ``end``."""
    at = line_start(source, start)
    while True:
        yield at
        nxt = source.find(b"\n", at)
        if nxt < 0 or nxt + 1 >= end:
            return
        at = nxt + 1


def is_blank_line(source: bytes, start: int) -> bool:
    """Whether the line starting at ``start`` holds only whitespace."""
    return not source[start : line_end(source, start)].strip()


def inside_string(root: Node, pos: int) -> bool:
    """Whether ``pos`` (a line's start) lies inside a string token that began on an earlier line: that line is
    the string's content and must keep its bytes."""
    node: Node | None = root.descendant_for_byte_range(pos, pos)
    while node is not None:
        if node.type in _STRING_TYPES and node.start_byte < pos < node.end_byte:
            return True
        node = node.parent
    return False


def indent_unit(source: bytes, root: Node, near: Node) -> bytes:
    """The indentation one block level adds, as the code around ``near`` writes it: the step from the nearest
    enclosing block's header to its statements, else the first top-level statement's block, else a tab when
    ``near`` is indented with tabs, else four spaces."""
    node: Node | None = near
    while node is not None:
        if node.type == "block" and node.parent is not None:
            step = _step(source, node)
            if step:
                return step
        node = node.parent
    for statement in root.named_children:
        for block in statement.named_children:
            step = _step(source, block) if block.type == "block" else b""
            if step:
                return step
    return b"\t" if b"\t" in indentation(source, near.start_byte) else _DEFAULT_UNIT


def _step(source: bytes, block: Node) -> bytes:
    """What ``block``'s lines add to its header's indentation, or nothing for a block on its header's line."""
    header = block.parent
    if header is None or block.start_point.row == header.start_point.row:
        return b""
    outer, inner = indentation(source, header.start_byte), indentation(source, block.start_byte)
    return inner[len(outer) :] if inner.startswith(outer) and len(inner) > len(outer) else b""


def coalesced(inserts: Iterable[tuple[int, bytes]]) -> list[Replace]:
    """Insertions at offsets turned into replacements, those at one offset joined in the order given (sorting
    ``Replace`` values alone would order them by their text)."""
    joined: dict[int, bytes] = {}
    for at, text in inserts:
        joined[at] = joined.get(at, b"") + text
    return [Replace(at, at, text) for at, text in sorted(joined.items())]


def shifted(replaces: Sequence[Replace], pos: int) -> int:
    """Where the byte at ``pos`` lands after ``replaces`` (text inserted at ``pos`` lands before it)."""
    return pos + sum(len(r.text) - (r.end - r.start) for r in replaces if r.end <= pos)


def shifted_span(replaces: Sequence[Replace], start: int, end: int) -> tuple[int, int]:
    """Where the original bytes ``[start, end)`` land after ``replaces`` (nothing inserted at ``end`` counts)."""
    return shifted(replaces, start), shifted(replaces, end - 1) + 1 if end > start else shifted(replaces, start)


def landed(replaces: Sequence[Replace], inside: Replace, offset: int, length: int) -> tuple[int, int]:
    """Where ``inside.text[offset : offset + length]`` lands after ``replaces`` (``inside`` among them)."""
    start = (
        inside.start
        + offset
        + sum(len(r.text) - (r.end - r.start) for r in replaces if r.end <= inside.start and r != inside)
    )
    return start, start + length


def is_word_byte(byte: int) -> bool:
    """Whether a byte can continue a name or a number (so two such bytes side by side read as one token)."""
    return byte >= 0x80 or chr(byte).isalnum() or byte == ord("_")
