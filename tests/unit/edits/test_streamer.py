"""streamer.py, streaming edits as a service without LSP: a model's change written into an open document while
it streams (begin, cumulative updates, end), on a real :class:`ThreadHost`; the editor is a stand-in holding the
documents in memory, each write coming back as a change as a client's didChange would."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from tether_lsp.handlers.edits.editor import Editor
from tether_lsp.handlers.edits.settings import EditSettings
from tether_lsp.handlers.edits.streamer import Streamer, StreamState
from tether_lsp.server.documents import ContentChange, Document, DocumentStore, HistoryBudget
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.settings import SettingsSchema
from tether_lsp.server.syntax import Snapshot
from tether_lsp.server.thread_host import ThreadHost

URI = "file:///w/calc.py"
TEXT = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
BODY = "    s = 0\n    for i in items:\n        s += i\n    return s\n"


class Buffers:
    """The editor: documents in memory; a write comes back as the next client version."""

    encoding = Encoding.UTF16

    def __init__(self, history_bytes: int = HistoryBudget.bytes) -> None:
        self.docs = DocumentStore(lambda: HistoryBudget(bytes=history_bytes))
        self.states: list[StreamState] = []
        self.labels: list[str] = []
        self.refuse = 0  # writes still to refuse
        self.told = asyncio.Event()

    def document(self, uri: str) -> Document | None:
        return self.docs.get(uri)

    def open_documents(self) -> Iterable[Document]:
        return list(self.docs)

    def snapshot(self, uri: str) -> Snapshot | None:
        return None

    async def write(
        self, uri: str, version: int | None, index: LineIndex, start: int, end: int, text: str, label: str
    ) -> bool:
        self.labels.append(label)
        doc = self.docs.get(uri)
        if self.refuse or doc is None or version != doc.client_version:
            self.refuse = max(0, self.refuse - 1)
            return False
        a, b = index.position_of(start, self.encoding), index.position_of(end, self.encoding)
        self.type(doc, a, b, text)
        return True

    async def create(self, uri: str, text: str) -> bool:
        raise AssertionError("a stream creates no file")

    def suggest(self, command: str) -> None:
        raise AssertionError("a stream suggests nothing")

    def changed(self, state: StreamState) -> None:
        self.states.append(state)
        self.told.set()

    def type(self, doc: Document, start: Pos, end: Pos, text: str) -> None:
        """The user (or an applied write) changes the document."""
        doc.apply(doc.client_version + 1, [ContentChange(text, (start, end))], self.encoding)


@pytest.fixture
def host() -> Iterator[ThreadHost]:
    schema = SettingsSchema()
    schema.register("edits", EditSettings)
    host = ThreadHost(schema.parse({"edits": {"streamIdleSeconds": 1}})[0], Path("/w"), {})
    yield host
    host.close()


def streaming(host: ThreadHost, history_bytes: int = HistoryBudget.bytes) -> tuple[Streamer, Buffers, Document]:
    buffers = Buffers(history_bytes)
    editor: Editor = buffers
    doc = buffers.docs.open(URI, "python", 1, TEXT)
    return Streamer(host, editor), buffers, doc


async def test_a_change_streams_in_line_by_line_and_is_kept(host: ThreadHost) -> None:
    streamer, buffers, doc = streaming(host)
    edit_id = streamer.begin(URI, doc.version)
    assert (await streamer.update(edit_id, "    s = 0\n", False, "", False)).status == "pending"
    assert doc.current.string == TEXT  # the target is not known yet: nothing written
    state = await streamer.update(edit_id, BODY, True, "    return sum(", False)
    assert (state.status, doc.current.string) == ("pending", TEXT)  # no complete line yet
    state = await streamer.update(edit_id, BODY, True, "    return sum(items)\n    # done", False)
    assert state.status == "streaming"
    assert doc.current.string == "def total(items):\n    return sum(items)\n"
    assert state.span == (18, 18 + len("    return sum(items)\n"))
    state = await streamer.update(edit_id, BODY, True, "    return sum(items)\n    # done\n", True)
    assert doc.current.string == "def total(items):\n    return sum(items)\n    # done\n"
    ended = await streamer.end(edit_id, "keep")
    assert (ended.status, ended.span) == ("done", (18, len(doc.current.text)))
    assert buffers.labels == [Streamer.LABEL, Streamer.LABEL]  # the first line, then what was appended
    assert [s.status for s in buffers.states][-1] == "done"
    with pytest.raises(InvalidParams, match="^editId: no streaming edit") as info:
        await streamer.update(edit_id, BODY, True, "", True)
    assert info.value.data["kind"] == "unknownEdit"


async def test_a_reverted_stream_puts_the_original_text_back(host: ThreadHost) -> None:
    streamer, _buffers, doc = streaming(host)
    edit_id = streamer.begin(URI, doc.version)
    await streamer.update(edit_id, BODY, True, "    return sum(items)\n", True)
    assert doc.current.string != TEXT
    assert (await streamer.end(edit_id, "revert")).status == "reverted"
    assert doc.current.string == TEXT


async def test_the_user_typing_above_moves_the_stream_and_typing_inside_it_is_a_conflict(host: ThreadHost) -> None:
    streamer, buffers, doc = streaming(host)
    edit_id = streamer.begin(URI, doc.version)
    await streamer.update(edit_id, BODY, True, "    return sum(items)\n", False)
    buffers.type(doc, Pos(0, 0), Pos(0, 0), "# header\n")  # above: the range moves down
    state = await streamer.update(edit_id, BODY, True, "    return sum(items)\n    # done\n", False)
    assert state.status == "streaming" and doc.current.string.endswith("    return sum(items)\n    # done\n")
    assert state.span == (27, len(doc.current.text))
    buffers.type(doc, Pos(2, 4), Pos(2, 4), "x")  # inside what the stream wrote
    assert (
        await streamer.update(edit_id, BODY, True, "    return sum(items)\n    # done\n", True)
    ).status == "conflict"
    assert (await streamer.end(edit_id, "revert")).status == "conflict"  # nothing is reverted over the user's edit
    assert "    xreturn sum(items)\n" in doc.current.string


async def test_a_target_placed_on_the_moved_document_and_one_not_found(host: ThreadHost) -> None:
    streamer, buffers, doc = streaming(host)
    base = doc.version
    buffers.type(doc, Pos(0, 0), Pos(0, 0), "import math\n")  # after the model saw the text
    edit_id = streamer.begin(URI, base)
    state = await streamer.update(edit_id, "    return s\n", True, "    return s + 0\n", True)
    assert state.status == "streaming" and doc.current.string.endswith("    return s + 0\n")
    lost = streamer.begin(URI, base)
    assert (await streamer.update(lost, "    return t\n", True, "", True)).status == "notFound"
    assert (await streamer.end(lost, "keep")).status == "notFound"


async def test_a_refused_write_is_sent_again_with_the_next_update(host: ThreadHost) -> None:
    streamer, buffers, doc = streaming(host)
    edit_id = streamer.begin(URI, doc.version)
    buffers.refuse = 1
    assert (await streamer.update(edit_id, BODY, True, "    return sum(items)\n", False)).status == "pending"
    assert doc.current.string == TEXT
    assert (await streamer.update(edit_id, BODY, True, "    return sum(items)\n", True)).status == "streaming"
    assert doc.current.string == "def total(items):\n    return sum(items)\n"


async def test_what_begin_refuses(host: ThreadHost) -> None:
    streamer, buffers, doc = streaming(host, history_bytes=2000)
    with pytest.raises(InvalidParams, match="^textDocument.uri: file:///w/other.py is not open"):
        streamer.begin("file:///w/other.py", 1)
    buffers.type(doc, Pos(0, 0), Pos(0, 0), "# more\n" * 400)  # the first version falls out of the history
    with pytest.raises(InvalidParams, match="^baseVersion: the version the model saw is no longer kept"):
        streamer.begin(URI, 1)


async def test_a_stream_of_a_closed_document_or_left_idle_ends_as_a_conflict(host: ThreadHost) -> None:
    streamer, buffers, doc = streaming(host)
    closed = streamer.begin(URI, doc.version)
    streamer.closed(URI)
    assert buffers.states[-1] == StreamState(closed, URI, "conflict")
    idle = streamer.begin(URI, doc.version)
    buffers.told.clear()
    await asyncio.wait_for(buffers.told.wait(), 10)  # tether.edits.streamIdleSeconds: 1
    assert buffers.states[-1] == StreamState(idle, URI, "conflict")
    with pytest.raises(InvalidParams, match="^editId"):
        await streamer.end(idle, "keep")
