"""stream.py, rule by rule: partial lines, several writes in flight, user edits that move them, our writes
reported in successive versions."""

from __future__ import annotations

from tests.unit.edits.test_stream import TEXT, echo, streaming
from tether_lsp.handlers.edits.stream import Stream, Write
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, Pos


def test_only_complete_lines_are_written_until_the_end() -> None:
    stream = Stream("file:///a.py", 1)
    assert stream.desired("    x = 1\n    y", final=False) == b"    x = 1\n"
    assert stream.desired("\nabc", final=False) == b"\n"  # a first line that is empty is complete
    assert stream.desired("abc", final=False) is None
    assert stream.desired("abc", final=True) == b"abc"


def test_two_writes_in_flight_reported_in_two_versions() -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    stream = streaming(doc)
    first = Write(stream.start, stream.end, b"    a = 1\n")
    second = Write(stream.start + len(first.text), stream.start + len(first.text), b"    b = 2\n")
    stream.pending += [first, second]
    echo(doc, first, "exact")
    echo(doc, second, "exact")
    stream.follow(doc.versions())
    assert stream.status == "streaming"
    assert stream.pending == []
    assert doc.current.text[stream.start : stream.end] == b"    a = 1\n    b = 2\n"
    assert stream.written == b"    a = 1\n    b = 2\n"


def test_a_user_edit_above_moves_the_pending_writes_too() -> None:
    doc = Document("file:///a.py", "python", 1, TEXT)
    stream = streaming(doc)
    write = Write(stream.start, stream.end, b"    total = 0\n")
    stream.pending.append(write)
    doc.apply(2, [ContentChange("# note\n", (Pos(0, 0), Pos(0, 0)))], Encoding.UTF16)  # the user, above
    stream.follow(doc.versions())
    assert stream.status == "streaming"
    assert stream.pending == [Write(write.start + 7, write.end + 7, write.text)]
    echo(doc, stream.pending[0], "exact")  # the editor applies our write where it now is
    stream.follow(doc.versions())
    assert stream.pending == []
    assert doc.current.text[stream.start : stream.end] == b"    total = 0\n"


def test_a_version_that_only_looks_like_our_write_at_one_end_is_the_user() -> None:
    """Same length, same bytes before the write, but different bytes after it: not ours."""
    doc = Document("file:///a.py", "python", 1, TEXT)
    stream = streaming(doc)
    write = Write(stream.start, stream.end, b"    return 2\n")
    stream.pending.append(write)
    before = doc.current.text
    after = before[: write.start] + write.text + before[write.end :].replace(b"x = 2", b"y = 2")
    doc.apply(2, [ContentChange(after.decode())], Encoding.UTF16)
    stream.follow(doc.versions())
    assert stream.status == "conflict"


def test_a_new_stream_is_pending_and_unresolved() -> None:
    """The LSP glue resolves a stream's target before its first write because a new one says it has none."""
    stream = Stream("file:///a.py", 3, synced=3)
    assert (stream.status, stream.resolved, stream.pending, stream.written) == ("pending", False, [], b"")
    assert not stream.written_once
