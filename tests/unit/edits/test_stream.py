"""stream.py: the range a streaming edit writes, followed through its own writes (whatever shape the editor
reports them in) and the user's edits (outside it: moved; inside it: conflict)."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.edits.stream import Stream, Write
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, Pos

TEXT = "def f():\n    return 1\n\nx = 2\n"
TARGET = "    return 1\n"


def streaming(doc: Document) -> Stream:
    start = doc.current.text.index(TARGET.encode())
    stream = Stream(doc.uri, 1, status="streaming", start=start, end=start + len(TARGET), synced=doc.version)
    stream.original = stream.written = TARGET.encode()
    stream.resolved = True
    return stream


def echo(doc: Document, write: Write, how: str) -> None:
    """The editor applies ``write`` and reports it back ``how``."""
    before = doc.current.text
    after = before[: write.start] + write.text + before[write.end :]
    index = doc.current.index
    start, end = index.position_of(write.start, Encoding.UTF16), index.position_of(write.end, Encoding.UTF16)
    if how == "exact":
        change = ContentChange(write.text.decode(), (start, end))
    elif how == "whole text":
        change = ContentChange(after.decode())
    else:  # one larger change: the whole line range rewritten
        line_start = Pos(start.line, 0)
        end_line = index.position_of(write.end, Encoding.UTF16).line + 1
        old = before[index.offset_of(line_start, Encoding.UTF16) : index.offset_of(Pos(end_line, 0), Encoding.UTF16)]
        new = old[: write.start - index.offset_of(line_start, Encoding.UTF16)] + write.text
        new += old[write.end - index.offset_of(line_start, Encoding.UTF16) :]
        change = ContentChange(new.decode(), (line_start, Pos(end_line, 0)))
    assert doc.apply(doc.version + 1, [change], Encoding.UTF16) is not None
    assert doc.current.text == after


@pytest.mark.parametrize("how", ["exact", "whole text", "larger change"])
def test_own_writes_are_recognised_by_the_text_they_leave(how: str) -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    stream = streaming(doc)
    replace = Write(stream.start, stream.end, b"    total = 0\n")
    stream.pending.append(replace)
    echo(doc, replace, how)
    stream.follow(doc.versions())
    assert stream.status == "streaming"
    assert stream.pending == []
    assert doc.current.text[stream.start : stream.end] == b"    total = 0\n"
    append = Write(stream.end, stream.end, b"    return total\n")
    stream.pending.append(append)
    echo(doc, append, how)
    stream.follow(doc.versions())
    assert stream.status == "streaming"
    assert doc.current.text[stream.start : stream.end] == b"    total = 0\n    return total\n"
    assert stream.written == b"    total = 0\n    return total\n"


def test_a_user_edit_that_leaves_another_text_is_not_taken_for_ours() -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    stream = streaming(doc)
    write = Write(stream.start, stream.end, b"    return 2\n")
    stream.pending.append(write)
    doc.apply(2, [ContentChange("    return 3\n", (Pos(1, 0), Pos(2, 0)))], Encoding.UTF16)  # the user typed
    stream.follow(doc.versions())
    assert stream.status == "conflict"


@pytest.mark.parametrize(
    ("change", "status", "moved_by"),
    [
        (ContentChange("# top\n", (Pos(0, 0), Pos(0, 0))), "streaming", 6),  # above: the range moves
        (ContentChange("#", (Pos(1, 0), Pos(1, 0))), "streaming", 1),  # at its start: stays outside, moves
        (ContentChange("y = 3\n", (Pos(2, 0), Pos(2, 0))), "streaming", 0),  # at its end: stays outside
        (ContentChange("9", (Pos(1, 11), Pos(1, 12))), "conflict", 0),  # inside
        (ContentChange("", (Pos(0, 4), Pos(2, 0))), "conflict", 0),  # across its start
    ],
)
def test_user_edits_around_and_inside_the_range(change: ContentChange, status: str, moved_by: int) -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    stream = streaming(doc)
    start = stream.start
    doc.apply(2, [change], Encoding.UTF16)
    stream.follow(doc.versions())
    assert stream.status == status
    if status == "streaming":
        assert stream.start == start + moved_by
        assert doc.current.text[stream.start : stream.end] == TARGET.encode()
        assert stream.synced == 2


def test_desired_text_holds_complete_lines_until_final() -> None:
    stream = Stream("file:///a.py", 1)
    assert stream.desired("    total", final=False) is None
    assert stream.desired("    total = 0\n    ret", final=False) == b"    total = 0\n"
    assert stream.desired("a\nb", final=True) == b"a\nb"
    stream.line_ending = "\r\n"
    assert stream.desired("a\nb\n", final=False) == b"a\r\nb\r\n"


def test_next_write_appends_after_the_first_write() -> None:
    stream = Stream("file:///a.py", 1, start=10, end=20, written=b"x" * 10)
    assert stream.next_write(b"new\n") == Write(10, 20, b"new\n")  # the first write replaces the target
    stream.status = "streaming"
    stream.written, stream.end = b"new\n", 14
    assert stream.next_write(b"new\n") is None
    assert stream.next_write(b"new\nmore\n") == Write(14, 14, b"more\n")
    assert stream.next_write(b"other\n") == Write(10, 14, b"other\n")


@pytest.mark.parametrize(
    "first",
    [
        "a shorter replace",  # skipped by its length
        "an append elsewhere",  # same length change, other place
        "a replace of the same length",  # same place and length, other text
    ],
)
def test_a_later_pending_write_is_recognised_after_an_earlier_one_that_does_not_match(first: str) -> None:
    """The editor reports only the second of two writes (it merged or dropped the first): still ours."""
    doc = Document("file:///a.py", "python", 1, TEXT)
    stream = streaming(doc)
    second = Write(stream.start, stream.end, b"    total = 1\n")  # one byte longer than the target
    earlier = {
        "a shorter replace": Write(stream.start, stream.end, b"    t = 0\n"),
        "an append elsewhere": Write(stream.end, stream.end, b"#"),
        "a replace of the same length": Write(stream.start, stream.end, b"    total = 0\n"),
    }[first]
    stream.pending += [earlier, second]
    echo(doc, second, "exact")
    stream.follow(doc.versions())
    assert stream.status == "streaming"
    assert stream.pending == []
    assert doc.current.text[stream.start : stream.end] == stream.written == b"    total = 1\n"
