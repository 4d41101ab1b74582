"""Byte-level line helpers for replacement analysis: line-granular unit spans and the edit built from them.

Everything here works on the document's UTF-8 bytes (tree-sitter's unit); LSP ranges are made once, in
``lsp.py``, through ``server/positions.py``.
"""

from __future__ import annotations

from tree_sitter import Node

BLANK = b" \t\r\n"


def line_start(text: bytes, offset: int) -> int:
    return text.rfind(b"\n", 0, offset) + 1


def line_end(text: bytes, offset: int) -> int:
    """End of the content of the line holding ``offset`` (before its ``\\r\\n`` or ``\\n``)."""
    end = text.find(b"\n", offset)
    end = len(text) if end < 0 else end
    return end - 1 if end > 0 and text[end - 1 : end] == b"\r" else end


def is_blank(data: bytes) -> bool:
    return not data.strip(BLANK)


def indentation(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def unit_span(text: bytes, node: Node) -> tuple[int, int]:
    """The line-granular span of an old unit (the ``replaceRange`` of docs/protocol.md, "Replacement analysis").

    From column 0 of its first line — or from the node itself when a sequence dash precedes it on that line, so
    the dash survives — to the end of its last non-blank line, without the line break.
    """
    first = line_start(text, node.start_byte)
    before = text[first : node.start_byte]
    start = node.start_byte if before.strip(b" \t") else first
    end = node.end_byte
    while end > node.start_byte and text[end - 1 : end] in (b" ", b"\t", b"\r", b"\n"):
        end -= 1
    return start, line_end(text, end - 1) if end > start else line_end(text, start)


def line_count(text: bytes, start: int, end: int) -> int:
    return text.count(b"\n", start, end) + 1


def normalised(text: str) -> str:
    """For the no-op guard: line endings, trailing spaces, the first line's indentation and blank edges ignored."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip("\n").lstrip(" \t")


def dedent(text: str, column: int) -> str:
    """Remove up to ``column`` leading spaces/tabs from every line (to parse a unit as if at top level)."""
    out = []
    for line in text.split("\n"):
        strip = min(column, indentation(line.encode()))
        out.append(line[strip:])
    return "\n".join(out)


def blank_lines_above(text: bytes, first: int) -> tuple[int, bytes | None]:
    """Blank lines right above the line starting at ``first``, and the non-blank line above them (None: none)."""
    count, pos = 0, first
    while pos > 0:
        start = line_start(text, pos - 1)
        line = text[start : line_end(text, start)]
        if not is_blank(line):
            return count, line
        count, pos = count + 1, start
    return count, None


def absorbs_cursor_line(text: bytes, unit_start: int, separation: int) -> bool:
    """Whether accepting a replacement of the unit below a blank cursor line also removes that line.

    The blank lines right above the unit are the block's separator (``separation`` lines, what its other units
    keep) and possibly a line the user opened to type on. The cursor line goes when the line above the blank run
    opens the unit's block (``shell:``, ``class C:``) or when there are more blank lines than the separator.
    """
    first = line_start(text, unit_start)
    column = indentation(text[first : line_end(text, first)])
    run, above = blank_lines_above(text, first)
    if above is None or indentation(above) < column:
        return True
    return run > separation


def reindented(text: str, pad: str) -> str:
    """``pad`` put in front of every non-blank line (a completion moved right, into the block it is typed in)."""
    return "\n".join(pad + line if line.strip() else line for line in text.split("\n"))
