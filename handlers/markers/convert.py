"""Client positions (0-based, in the negotiated encoding) to the engine's 1-based character locations, and back.

Pure text arithmetic through server/positions.py (a marker's columns count characters, which are UTF-32
code units there): used on the loop (answers) and in workers (placing a marker in a file read there).
"""

from __future__ import annotations

from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import Encoding, LineIndex, Pos, PositionOutOfRange

from .calculator import Location


def to_location(text: str, span: tuple[Pos, Pos], encoding: Encoding) -> Location:
    """A (start, end) pair of positions inside ``text`` as a 1-based character location; -32602 naming
    ``range`` otherwise."""
    data = text.encode("utf-8")
    index = LineIndex(data)
    try:
        start = index.offset_of(span[0], encoding, strict=True)
        end = index.offset_of(span[1], encoding, strict=True)
    except PositionOutOfRange as exc:
        raise InvalidParams("range", f"outside the document: {exc}") from exc
    if end < start:
        raise InvalidParams("range", "the end comes before the start")

    (ls_, cs), (le, ce) = index.line_character(start, Encoding.UTF32), index.line_character(end, Encoding.UTF32)
    return Location(ls_ + 1, cs + 1, le + 1, ce + 1)  # characters are code points: UTF-32 units


def to_positions(text: str, loc: Location, encoding: Encoding) -> tuple[Pos, Pos]:
    """A location's start and end as 0-based positions in ``encoding`` (the client's range)."""
    data = text.encode("utf-8")
    index = LineIndex(data)

    def offset(line: int, column: int) -> int:
        return index.offset_of(Pos(line - 1, column - 1), Encoding.UTF32)

    return (
        index.position_of(offset(loc.line_start, loc.col_start), encoding),
        index.position_of(offset(loc.line_end, loc.col_end), encoding),
    )
