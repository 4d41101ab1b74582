"""Line arithmetic on UTF-8 bytes shared by the members: where a line starts and ends, its indentation, the
document's newline, blank lines, and re-indenting a block of lines (never inside a multi-line string).

Why bytes and ``\\n``: tree-sitter offsets are bytes; a CRLF file's ``\\r`` stays with the line it ends, so a
line's *content* ends before it and a whole line's removal takes it along.
"""

from __future__ import annotations

from collections.abc import Iterable


def newline_of(source: bytes) -> bytes:
    """The document's newline: CRLF when its first line ends so, else LF."""
    first = source.find(b"\n")
    return b"\r\n" if first > 0 and source[first - 1 : first] == b"\r" else b"\n"


def line_start(source: bytes, at: int) -> int:
    """The offset where the line holding ``at`` starts."""
    return source.rfind(b"\n", 0, at) + 1


def line_end(source: bytes, at: int) -> int:
    """The offset of the newline ending the line holding ``at`` (of ``\\r`` in CRLF; ``len`` on the last line)."""
    end = source.find(b"\n", at)
    if end < 0:
        end = len(source)
    if end > 0 and source[end - 1 : end] == b"\r":
        end -= 1
    return end


def next_line(source: bytes, at: int) -> int:
    """The offset where the line after the one holding ``at`` starts (``len`` when there is none)."""
    end = source.find(b"\n", at)
    return len(source) if end < 0 else end + 1


def previous_line(source: bytes, at: int) -> int:
    """The start of the line before the one holding ``at`` (-1 on the first line)."""
    start = line_start(source, at)
    return -1 if start == 0 else line_start(source, start - 1)


def starts_line(source: bytes, at: int) -> bool:
    """Only indentation before ``at`` on its line."""
    return source[line_start(source, at) : at].strip(b" \t\f") == b""


def rest_is_blank(source: bytes, at: int) -> bool:
    """Only whitespace after ``at`` on its line."""
    return source[at : line_end(source, at)].strip() == b""


def indentation(source: bytes, at: int) -> bytes:
    """The indentation of the line holding ``at``."""
    start = line_start(source, at)
    line = source[start : line_end(source, at)]
    return line[: len(line) - len(line.lstrip(b" \t\f"))]


def is_blank_line(source: bytes, start: int) -> bool:
    """The line starting at ``start`` holds nothing but whitespace."""
    return source[start : line_end(source, start)].strip() == b""


def reindented(text: bytes, old: bytes, new: bytes, verbatim: Iterable[int] = ()) -> bytes:
    """``text`` (whose first line has no indentation) with every later line's leading ``old`` replaced by
    ``new``; lines whose index is in ``verbatim`` (inside a multi-line string) and blank lines are kept."""
    if old == new:
        return text
    keep = set(verbatim)
    lines = text.split(b"\n")
    for number in range(1, len(lines)):
        line = lines[number]
        if number in keep or line.strip() == b"":
            continue
        if line.startswith(old):
            lines[number] = new + line[len(old) :]
        elif new.startswith(old):
            lines[number] = new[: len(new) - len(old)] + line
    return b"\n".join(lines)
