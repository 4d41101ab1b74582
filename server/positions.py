"""Positions: LSP ``Position`` <-> byte offset <-> tree-sitter point, in one place.

Why one module: LSP counts characters in the negotiated *position encoding* (:mod:`server.encodings`; UTF-16
code units unless the client offers UTF-8 or UTF-32), tree-sitter and the text model count UTF-8 bytes. Every
conversion in Tether goes through here so the rules are the same everywhere:

* Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (LSP); a line's *content* excludes its terminator.
* A ``character`` past the end of its line is clamped to the line's content end (as LSP says), and one that
  falls inside a multi-byte character (or between the halves of a surrogate pair) is rounded down to the
  start of that character.
* A ``line`` at or past the line count is clamped to the end of the document in lenient mode
  (``strict=False``, used for edits sent by editors) and raises :class:`PositionOutOfRange` in strict mode
  (used where the protocol says the request is invalid).
* tree-sitter points count rows at ``\\n`` only and columns in bytes; they are derived from byte offsets.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, Any

# Encoding is named here too: every module that converts positions imports it with them.
from .encodings import Encoding as Encoding
from .lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    from lsprotocol import types
else:
    np = lazy_module("numpy")  # bulk conversions only: start-up does not pay for it


class PositionOutOfRange(ValueError):
    """A position whose line does not exist in the document (strict conversions only)."""

    def __init__(self, line: int, line_count: int) -> None:
        super().__init__(f"line {line} is out of range (the document has {line_count} lines)")
        self.line = line
        self.line_count = line_count


@dataclass(frozen=True, slots=True)
class Pos:
    """An LSP position (0-based line, character in the negotiated encoding)."""

    line: int
    character: int


def _units(text: str, encoding: Encoding) -> int:
    """Length of ``text`` in the units of ``encoding``."""
    if encoding is Encoding.UTF32:
        return len(text)
    if encoding is Encoding.UTF8:
        return len(text.encode("utf-8"))
    # UTF-16: one unit per BMP character, two for the rest.
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


class LineIndex:
    """Byte offsets of line starts for one immutable text.

    Built once per text (``bytes.split`` + ``accumulate``: about 0.5 ms for 10,000 lines) or, for the next
    version of a document, derived from the previous one by :meth:`edited`: typing on one line only moves the
    starts of the lines below, so that is recorded as one pending shift (``starts[i] + delta`` for ``i >
    shift_line``) sharing the previous list, O(log n) per keystroke instead of a rebuild; a change that adds or
    removes lines rebuilds the list with C-level slices.
    """

    __slots__ = (
        "_arrays",
        "_ascii",
        "_base",
        "_delta",
        "_has_lone_cr",
        "_shift_line",
        "_starts",
        "_text",
        "_ts_starts",
    )

    def __init__(self, text: bytes) -> None:
        self._text = text
        self._ascii = text.isascii()
        parts = text.split(b"\n")
        # Start of each line after a "\n"; the first line starts at 0.
        starts = [0, *accumulate(len(p) + 1 for p in parts[:-1])]
        self._has_lone_cr = b"\r" in text and text.count(b"\r") != text.count(b"\r\n")
        self._ts_starts: list[int] | None = None
        self._arrays: tuple[Any, Any, Any] | None = None
        if self._has_lone_cr:
            self._ts_starts = starts
            starts = self._split_lone_cr(text)
        self._base: list[int] = starts
        self._shift_line = -1  # starts[i] = _base[i] + _delta for i > _shift_line (-1: no pending shift)
        self._delta = 0
        self._starts: list[int] | None = starts

    @classmethod
    def _derived(cls, text: bytes, ascii_only: bool, base: list[int], shift_line: int, delta: int) -> LineIndex:
        index = cls.__new__(cls)
        index._text, index._ascii, index._has_lone_cr, index._ts_starts = text, ascii_only, False, None
        index._arrays = None
        index._base, index._shift_line, index._delta = base, shift_line, delta
        index._starts = base if shift_line < 0 or delta == 0 else None
        if index._starts is not None:
            index._shift_line, index._delta = -1, 0
        return index

    def edited(self, start: int, old_end: int, inserted: bytes, new_text: bytes) -> LineIndex:
        """The index of ``new_text``: this text with ``[start, old_end)`` replaced by ``inserted``."""
        if self._has_lone_cr or b"\r" in inserted or (new_text[start - 1 : start] == b"\r" and start > 0):
            return LineIndex(new_text)
        first, last = self.line_of(start), self.line_of(old_end)
        delta = len(inserted) - (old_end - start)
        ascii_only = self._ascii and inserted.isascii()
        if first == last and b"\n" not in inserted:
            if self._shift_line == first:  # typing on, on the same line: one shift, the same list
                return self._derived(new_text, ascii_only, self._base, first, self._delta + delta)
            return self._derived(new_text, ascii_only, self.starts, first, delta)
        starts = self.starts
        added, at = [], inserted.find(b"\n")
        while at >= 0:
            added.append(start + at + 1)
            at = inserted.find(b"\n", at + 1)
        tail = starts[last + 1 :]
        return self._derived(new_text, ascii_only, [*starts[: first + 1], *added, *map(delta.__add__, tail)], -1, 0)

    @property
    def starts(self) -> list[int]:
        """Byte offset of each line's start (materialised on first use when a shift is pending)."""
        if self._starts is None:
            k, base = self._shift_line + 1, self._base
            self._starts = [*base[:k], *map(self._delta.__add__, base[k:])]
        return self._starts

    def _start(self, line: int) -> int:
        if self._starts is not None:
            return self._starts[line]
        return self._base[line] + (self._delta if line > self._shift_line else 0)

    def _line_of(self, offset: int) -> int:
        if self._starts is not None:
            return bisect.bisect_right(self._starts, offset) - 1
        base, k = self._base, self._shift_line + 1
        if k < len(base) and offset >= base[k] + self._delta:
            return bisect.bisect_right(base, offset - self._delta, lo=k) - 1
        return bisect.bisect_right(base, offset, hi=k) - 1

    @staticmethod
    def _split_lone_cr(text: bytes) -> list[int]:
        starts = [0]
        i, n = 0, len(text)
        while i < n:
            c = text[i]
            if c == 0x0A:
                starts.append(i + 1)
            elif c == 0x0D:
                if i + 1 < n and text[i + 1] == 0x0A:
                    i += 1
                starts.append(i + 1)
            i += 1
        return starts

    @property
    def text(self) -> bytes:
        return self._text

    @property
    def line_count(self) -> int:
        return len(self._base)

    def line_of(self, offset: int) -> int:
        """The line containing byte ``offset`` (an offset at a line's start belongs to that line)."""
        return self._line_of(offset)

    def line_bounds(self, line: int) -> tuple[int, int]:
        """Byte span of the *content* of ``line`` (terminator excluded)."""
        start = self._start(line)
        end = self._start(line + 1) if line + 1 < len(self._base) else len(self._text)
        if end > start and self._text[end - 1] == 0x0A:
            end -= 1
            if end > start and self._text[end - 1] == 0x0D:
                end -= 1
        elif end > start and self._text[end - 1] == 0x0D and line + 1 < len(self._base):
            end -= 1
        return start, end

    # --- LSP position -> byte offset -------------------------------------------------------------

    def offset_of(self, pos: Pos, encoding: Encoding, *, strict: bool = False) -> int:
        """Byte offset of an LSP position (see the module docstring for clamping rules)."""
        line, character = pos.line, pos.character
        if line < 0 or character < 0:
            raise ValueError("positions are non-negative")
        if line >= len(self._base):
            if strict:
                raise PositionOutOfRange(line, len(self._base))
            return len(self._text)
        start, end = self.line_bounds(line)
        content = self._text[start:end]
        if encoding is Encoding.UTF8:
            if character >= len(content):
                return end
            # Round down to a character boundary (skip UTF-8 continuation bytes).
            off = character
            while off > 0 and (content[off] & 0xC0) == 0x80:
                off -= 1
            return start + off
        if content.isascii():
            return start + min(character, len(content))
        decoded = content.decode("utf-8", errors="surrogateescape")
        units = 0
        consumed_bytes = 0
        for ch in decoded:
            width = 2 if encoding is Encoding.UTF16 and ord(ch) > 0xFFFF else 1
            if units + width > character:
                break
            units += width
            consumed_bytes += _utf8_len(ch)
        return start + consumed_bytes

    # --- byte offset -> LSP position -------------------------------------------------------------

    def position_of(self, offset: int, encoding: Encoding) -> Pos:
        """LSP position of a byte offset (clamped into its line's content; rounded down to a char start)."""
        line, character = self.line_character(offset, encoding)
        return Pos(line, character)

    def line_character(self, offset: int, encoding: Encoding) -> tuple[int, int]:
        """:meth:`position_of` as a tuple: the hot path for bulk conversions."""
        text = self._text
        if 0 < offset < len(text) and not (text[offset - 1] == 0x0D and text[offset] == 0x0A):
            starts = self.starts  # bulk conversions: materialise a pending shift once, then plain bisects
            line = bisect.bisect_right(starts, offset) - 1
            start = starts[line]
            if self._ascii or (text[offset] & 0xC0) != 0x80:  # on a character boundary
                segment = text[start:offset]
                if encoding is Encoding.UTF8 or self._ascii or segment.isascii():
                    return line, offset - start
        p = self._slow_position(offset, encoding)
        return p.line, p.character

    def line_characters(self, offsets: Sequence[int], encoding: Encoding) -> tuple[list[int], list[int]]:
        """:meth:`line_character` of many offsets at once (lines, characters): results with thousands of ranges.

        One ``searchsorted`` finds every line; a column is the bytes since the line's start, less the UTF-8
        continuation bytes among them (UTF-16 and UTF-32), plus one per 4-byte character (UTF-16: a surrogate
        pair). The offsets that need rounding or clamping (inside a character, a CRLF's middle, the text's ends)
        take the one-at-a-time path, so both give the same answers on any text that arrived as JSON.
        """
        starts, continuation, wide = self._bulk_arrays()
        text = self._text
        at = np.asarray(offsets, dtype=np.int64)
        lines = np.searchsorted(starts, at, side="right") - 1
        line_starts = starts[lines]
        characters = at - line_starts
        careful = (at <= 0) | (at >= len(text))
        view = np.frombuffer(text, dtype=np.uint8)
        if b"\r" in text and len(text) > 1:  # (shorter texts have no offset strictly inside)
            inside = np.clip(at, 1, len(text) - 1)
            careful |= (view[inside - 1] == 0x0D) & (view[inside] == 0x0A)
        if continuation.size:
            careful |= (view[np.clip(at, 0, len(text) - 1)] & 0xC0) == 0x80
            if encoding is not Encoding.UTF8:
                characters -= np.searchsorted(continuation, at) - np.searchsorted(continuation, line_starts)
            if encoding is Encoding.UTF16 and wide.size:
                characters += np.searchsorted(wide, at) - np.searchsorted(wide, line_starts)
        line_list, character_list = lines.tolist(), characters.tolist()
        for k in np.flatnonzero(careful).tolist():
            line_list[k], character_list[k] = self.line_character(offsets[k], encoding)
        return line_list, character_list

    def _bulk_arrays(self) -> tuple[Any, Any, Any]:
        """Line starts, UTF-8 continuation bytes and 4-byte lead bytes as numpy arrays (once per text)."""
        if self._arrays is None:
            view = np.frombuffer(self._text, dtype=np.uint8)
            if self._has_lone_cr:
                starts = np.asarray(self.starts, dtype=np.int64)
            else:  # lines start after each "\n": one scan in C instead of a list of 10,000 ints
                starts = np.concatenate(([0], np.flatnonzero(view == 0x0A) + 1))
            if self._ascii:
                continuation = wide = np.empty(0, dtype=np.int64)
            else:
                continuation = np.flatnonzero((view & 0xC0) == 0x80)
                wide = np.flatnonzero(view >= 0xF0)
            self._arrays = (starts, continuation, wide)
        return self._arrays

    def _slow_position(self, offset: int, encoding: Encoding) -> Pos:
        offset = max(0, min(offset, len(self._text)))
        line = self.line_of(offset)
        start, end = self.line_bounds(line)
        offset = min(offset, end)
        while start < offset < end and (self._text[offset] & 0xC0) == 0x80:
            offset -= 1
        segment = self._text[start:offset]
        if encoding is Encoding.UTF8 or segment.isascii():
            return Pos(line, len(segment))
        return Pos(line, _units(segment.decode("utf-8", errors="replace"), encoding))

    # --- tree-sitter points ----------------------------------------------------------------------

    def point_of(self, offset: int) -> tuple[int, int]:
        """tree-sitter point ``(row, byte column)`` of a byte offset (rows split at ``\\n`` only)."""
        if self._ts_starts is None:
            row = self._line_of(offset)
            return row, offset - self._start(row)
        row = bisect.bisect_right(self._ts_starts, offset) - 1
        return row, offset - self._ts_starts[row]

    def char_point(self, point: tuple[int, int]) -> tuple[int, int]:
        """A tree-sitter point as ``(row, column in characters)``: the markers' columns count code points (a
        partial character before the column counts as one). The row's start is looked up, never walked to."""
        row, byte_column = point
        start = self._ts_starts[row] if self._ts_starts is not None else self._start(row)
        if self._ascii:
            return row, min(byte_column, len(self._text) - start)
        return row, len(self._text[start : start + byte_column].decode("utf-8", errors="replace"))


def _utf8_len(ch: str) -> int:
    cp = ord(ch)
    if cp < 0x80:
        return 1
    if cp < 0x800:
        return 2
    if cp < 0x10000:
        return 3
    return 4


def point_at(text: bytes, offset: int) -> tuple[int, int]:
    """tree-sitter point ``(row, byte column)`` of an offset of a text with no :class:`LineIndex` at hand."""
    return text.count(b"\n", 0, offset), offset - (text.rfind(b"\n", 0, offset) + 1)


def utf8_offset(text: str, chars: int) -> int:
    """The UTF-8 byte offset of the character (code point) offset ``chars`` of ``text``."""
    return len(text[:chars].encode("utf-8"))


def line_starts(text: str) -> list[int]:
    """Character offsets where the ``\n``-separated lines of a ``str`` start (the first is 0)."""
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def point_after(start: tuple[int, int], inserted: bytes) -> tuple[int, int]:
    """tree-sitter point reached after inserting ``inserted`` at point ``start``."""
    newlines = inserted.count(b"\n")
    if newlines == 0:
        return start[0], start[1] + len(inserted)
    return start[0] + newlines, len(inserted) - inserted.rfind(b"\n") - 1


def json_ranges(
    index: LineIndex, spans: Sequence[tuple[int, int]], encoding: Encoding
) -> list[dict[str, dict[str, int]]]:
    """Byte spans as plain-JSON LSP ranges, converted in bulk (:meth:`LineIndex.line_characters`): for results
    with thousands of ranges, where building lsprotocol objects would cost more than the conversion itself."""
    lines, characters = index.line_characters([offset for span in spans for offset in span], encoding)
    return [
        {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}
        for sl, sc, el, ec in zip(lines[0::2], characters[0::2], lines[1::2], characters[1::2], strict=True)
    ]


def lsp_range(index: LineIndex, start: int, end: int, encoding: Encoding) -> types.Range:
    """A byte span of ``index``'s text as an LSP ``Range`` in ``encoding``. (lsprotocol is imported here, not
    with the module: the engines and services that use positions are not tied to LSP.)"""
    from lsprotocol.types import Position, Range

    a, b = index.position_of(start, encoding), index.position_of(end, encoding)
    return Range(start=Position(line=a.line, character=a.character), end=Position(line=b.line, character=b.character))


def lsp_offset(index: LineIndex, position: types.Position, encoding: Encoding, *, strict: bool = False) -> int:
    """An LSP ``Position`` as a byte offset of ``index``'s text."""
    return index.offset_of(Pos(position.line, position.character), encoding, strict=strict)
