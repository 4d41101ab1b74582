"""Streaming one model edit into a document (docs/edits.md, "Streaming"): what to write next, and tracking the range
the server wrote through the versions that follow — its own edits and the user's.

Pure: the LSP edge sends the writes through ``workspace/applyEdit`` and feeds back the document's versions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tether_lsp.server.documents import ByteEdit, TextVersion


@dataclass(frozen=True)
class StreamState:
    """A stream's status and, while it is placed on the current version of ``uri``, where its text is (byte
    offsets of that version's text; None otherwise)."""

    edit_id: str
    uri: str
    status: str
    span: tuple[int, int] | None = None


@dataclass(frozen=True)
class Write:
    """Replace bytes ``[start, end)`` of the current version with ``text``."""

    start: int
    end: int
    text: bytes


@dataclass
class Stream:
    """One streaming edit: its resolved target, the range it has written, what it wrote."""

    uri: str
    base_version: int
    status: str = "pending"  # pending | streaming | conflict | notFound | ambiguous | deleted | done | reverted
    start: int = 0  # the tracked range, in bytes of ``synced``
    end: int = 0
    synced: int = 0  # the document version the range refers to
    original: bytes = b""  # the target's text before the first write (for revert)
    written: bytes = b""  # what the range holds now (our text)
    resolved: bool = False
    line_ending: str = "\n"
    pending: list[Write] = field(default_factory=list)  # writes sent, not yet seen in a version

    def desired(self, new_text: str, final: bool) -> bytes | None:
        """What the range should hold now: all of a final text, else its complete lines (None: nothing yet)."""
        text = new_text.replace("\r\n", "\n")
        if not final:
            cut = text.rfind("\n")
            if cut < 0:
                return None  # not a complete line yet: delete nothing
            text = text[: cut + 1]
        if self.line_ending == "\r\n":
            text = text.replace("\n", "\r\n")
        return text.encode("utf-8")

    def next_write(self, want: bytes) -> Write | None:
        """The smallest write taking the range from what it holds to ``want``."""
        if want == self.written and self.written_once:
            return None
        if self.written_once and want.startswith(self.written):
            return Write(self.end, self.end, want[len(self.written) :])  # append what is new
        return Write(self.start, self.end, want)

    @property
    def written_once(self) -> bool:
        return self.status == "streaming"

    def follow(self, versions: Sequence[TextVersion]) -> None:
        """Carry the range through the versions after ``synced``: ours move it as written, the user's may not
        touch it (a user edit inside it is a conflict; next to it, it stays outside).

        A version is recognised as one of our writes by the text it holds, not by the shape of the change
        the editor reported: an editor may send back a write as a larger change, or as the whole text.
        """
        previous: TextVersion | None = None
        for item in versions:
            if item.version <= self.synced:
                previous = item
                continue
            if self.pending and previous is not None and self._ours(previous.text, item.text):
                self.synced, previous = item.version, item
                continue
            for edit in item.edits:
                if not self._user(edit):
                    self.status = "conflict"
                    return
            self.synced, previous = item.version, item

    def _ours(self, before: bytes, after: bytes) -> bool:
        """Whether ``after`` is ``before`` with one of the pending writes applied (and so the earlier ones)."""
        for k, write in enumerate(self.pending):
            if len(after) != len(before) - (write.end - write.start) + len(write.text):
                continue
            if (
                after[: write.start] != before[: write.start]
                or after[write.start + len(write.text) :] != before[write.end :]
            ):
                continue
            if after[write.start : write.start + len(write.text)] != write.text:
                continue
            del self.pending[: k + 1]
            if write.start == self.start and write.end == self.end:
                self.end = self.start + len(write.text)
                self.written = write.text
            else:  # an append at the end
                self.end += len(write.text)
                self.written += write.text
            return True
        return False

    def _user(self, edit: ByteEdit) -> bool:
        """Apply a user edit to the range; False when it lands inside it."""
        delta = edit.new_end - edit.old_end
        if edit.old_end <= self.start:
            self.start, self.end = self.start + delta, self.end + delta
            self.pending = [Write(w.start + delta, w.end + delta, w.text) for w in self.pending]
            return True
        return edit.start >= self.end
