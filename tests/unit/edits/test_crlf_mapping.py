"""CRLF and mixed line endings through every byte/character mapping: LSP positions, the changes a client
sends, and the edits engine. A position, a change's range or an edit's target that ends at a line end must
stop before the ``\\r\\n``, never between its ``\\r`` and its ``\\n`` (which would eat the ``\\r`` and leave
mixed line endings)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tether_lsp.handlers.edits.resolve import EditRequest, Options, Text, resolve_all
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, LineIndex, Pos

#: Line content: ASCII code, accents, CJK, an emoji outside the BMP (two UTF-16 units) and a ZWJ sequence.
WORDS = ["x = 1", "a", "é", "ñandú", "東京", "🚀", "👩‍👩‍👧", " ", "\t", "#"]
ENDINGS = ["\r\n", "\r\n", "\r\n", "\n", "\r"]  # mostly CRLF, some LF and lone CR: mixed files too
encodings = st.sampled_from(list(Encoding))


@st.composite
def lines(draw: st.DrawFn, min_size: int = 0) -> list[tuple[str, str]]:
    """(content, terminator) per line; the last line may have no terminator."""
    count = draw(st.integers(min_value=min_size, max_value=8))
    out: list[tuple[str, str]] = []
    for k in range(count):
        content = "".join(draw(st.lists(st.sampled_from(WORDS), max_size=4)))
        ending = draw(st.sampled_from(ENDINGS + ([""] if k == count - 1 else [])))
        if out and out[-1][1] == "\r" and not content and ending == "\n":
            ending = "\r\n"  # a lone CR then an empty LF line would read as one CRLF: keep the lines as drawn
        out.append((content, ending))
    return out


def joined(parts: list[tuple[str, str]]) -> str:
    return "".join(content + ending for content, ending in parts)


def units(s: str, encoding: Encoding) -> int:
    if encoding is Encoding.UTF8:
        return len(s.encode())
    if encoding is Encoding.UTF16:
        return len(s.encode("utf-16-le")) // 2
    return len(s)


def is_boundary(data: bytes, offset: int) -> bool:
    return offset == len(data) or (data[offset] & 0xC0) != 0x80


def inside_crlf(data: bytes, offset: int) -> bool:
    return data[offset - 1 : offset + 1] == b"\r\n"


@settings(max_examples=300, deadline=None)
@given(lines(), encodings, st.data())
def test_no_position_maps_between_cr_and_lf(
    parts: list[tuple[str, str]], encoding: Encoding, data: st.DataObject
) -> None:
    """Any LSP position (past the line's end too) maps to a character boundary outside every ``\\r\\n``, and
    back to itself when it names a character of the line."""
    text = joined(parts).encode()
    index = LineIndex(text)
    line = data.draw(st.integers(min_value=0, max_value=index.line_count))
    character = data.draw(st.integers(min_value=0, max_value=40))
    offset = index.offset_of(Pos(line, character), encoding)
    assert is_boundary(text, offset) and not inside_crlf(text, offset)
    if line < index.line_count:
        start, end = index.line_bounds(line)
        assert start <= offset <= end  # clamped to the line's content: the terminator is never reached
        back = index.position_of(offset, encoding)
        assert back.line == line
        assert index.offset_of(back, encoding) == offset


@settings(max_examples=300, deadline=None)
@given(lines(min_size=1), encodings, st.data())
def test_a_change_that_ends_at_a_line_end_keeps_the_terminator(
    parts: list[tuple[str, str]], encoding: Encoding, data: st.DataObject
) -> None:
    """A client replacing a line's content (its range ending at the line's end, or past it) changes the
    content only: every ``\\r\\n``, ``\\n`` and ``\\r`` stays as it was."""
    text = joined(parts)
    doc = Document("file:///crlf.py", "python", 1, text)
    line = data.draw(st.integers(min_value=0, max_value=len(parts) - 1))
    past = data.draw(st.sampled_from([0, 0, 3]))  # an end past the line's end is clamped to it
    inserted = data.draw(st.sampled_from(["x = 2", "", "é東🚀", "y\r\nz"]))
    content = parts[line][0]
    end = Pos(line, units(content, encoding) + past)
    doc.apply(2, [ContentChange(inserted, (Pos(line, 0), end))], encoding)
    expected = [*parts[:line], (inserted, parts[line][1]), *parts[line + 1 :]]
    assert doc.current.string == joined(expected)
    assert doc.current.index.line_count == LineIndex(doc.current.text).line_count


@settings(max_examples=300, deadline=None)
@given(lines())
def test_the_engines_character_offsets_map_to_bytes_outside_every_crlf(parts: list[tuple[str, str]]) -> None:
    """The edits engine matches on the text with ``\\n`` endings; each of its character offsets maps back to
    a byte offset whose text before it is exactly that prefix (so an offset at a line's end stops before the
    ``\\r``)."""
    data = joined(parts).encode()
    text = Text(data)
    for k in range(len(text.lf) + 1):
        offset = text.to_bytes(k)
        assert is_boundary(data, offset) and not inside_crlf(data, offset)
        assert data[:offset].decode().replace("\r\n", "\n") == text.lf[:k]


def test_the_engine_keeps_the_crlf_after_a_target_without_its_newline() -> None:
    """`x = 1` ends at a line end in a CRLF file: the result replaces those five bytes, not the ``\\r``."""
    base = b"a = 0\r\nx = 1\r\ny = 2\r\n"
    (result,) = resolve_all(base, base, [], [EditRequest("e", "x = 1", "x = 2")], Options())
    assert result.status == "resolved" and result.span == (7, 12) and result.new_text == "x = 2"
    assert base[: result.span[0]] + result.new_text.encode() + base[result.span[1] :] == b"a = 0\r\nx = 2\r\ny = 2\r\n"


@settings(max_examples=200, deadline=None)
@given(lines(min_size=1), st.data())
def test_the_engine_replaces_a_whole_line_without_its_terminator(
    parts: list[tuple[str, str]], data: st.DataObject
) -> None:
    """On a base the user has since edited (a line typed at the top), a model's edit of one line's content,
    quoted without its newline, leaves every line ending as it was, in CRLF, mixed and non-ASCII files."""
    line = data.draw(st.integers(min_value=0, max_value=len(parts) - 1))
    target = "target = '東🚀é'"
    parts = [*parts[:line], (target, parts[line][1] or "\r\n"), *parts[line + 1 :]]
    base = joined(parts)
    doc = Document("file:///crlf.py", "python", 1, base)
    doc.apply(2, [ContentChange("# café\r\n", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)
    first = doc.versions()[0]
    edits = list(doc.edits_since(first.version) or [])
    request = EditRequest("e", target, "target = 2")
    (result,) = resolve_all(first.text, doc.current.text, edits, [request], Options())
    assert result.status == "resolved" and result.span is not None and result.new_text is not None
    now = doc.current.text
    applied = now[: result.span[0]] + result.new_text.encode() + now[result.span[1] :]
    expected = [*parts[:line], ("target = 2", parts[line][1]), *parts[line + 1 :]]
    assert applied.decode() == "# café\r\n" + joined(expected)
