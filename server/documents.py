"""The text model: every open document as immutable versions of bytes, with the exact edits between them.

Why own it (docs/architecture.md, "Documents, snapshots and positions"): pygls' document re-splits the whole text on
each access; Tether keeps the UTF-8 bytes of each version plus a :class:`~server.positions.LineIndex`, applies LSP
content changes directly, and records each change as a :class:`~server.byte_edits.ByteEdit` — the same byte offsets
feed ``Tree.edit`` for incremental reparsing, and features that place things across versions (markers, inline edits)
replay them. How edits are found and applied is :mod:`server.byte_edits`; this module keeps the versions.

Rules:
* Line endings are kept exactly as sent (CRLF stays CRLF).
* A full-text change is recorded as the precise edits a line diff finds (see :func:`~server.byte_edits.diff_edits`).
* The client's text is the truth: every change is applied, whatever its version number. The server keeps
  its own order of versions, always increasing, on which everything keyed by version (history, parse
  trees, selector indexes, carried edits, markers) relies: a version is the client's number while those
  increase; a change whose number is not newer than the current one is ordered right after it (and the
  caller warns once). Each version also records the client's number, which is what the client is told
  and what it names in requests (:meth:`Document.find`: the newest kept version with that number).
* History is bounded per document by a byte budget and a time window (:class:`HistoryBudget`, settings
  ``tether.limits.historyBytes`` and ``historySeconds``), not by a count: every version that was current
  within the window is kept, so a model that answers after minutes of typing finds the version it saw; the
  byte budget bounds memory whatever happens. The current version is always kept. Older versions are kept
  as their edits (each edit records the bytes it replaced) and rebuilt on demand from a later version, so
  thousands of keystrokes cost the size of what changed, not thousands of copies. Versions pinned by a
  running operation (inline edits) are never evicted while pinned.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

# ByteEdit and ContentChange are named here too: the many modules that take a document's edits import them from it.
from .byte_edits import ByteEdit as ByteEdit
from .byte_edits import ContentChange as ContentChange
from .byte_edits import apply_changes
from .positions import Encoding, LineIndex

#: What one kept version costs beyond its edits' bytes (objects, bookkeeping), for the byte budget.
VERSION_OVERHEAD = 160


@dataclass(frozen=True)
class HistoryBudget:
    """How much history a document keeps: versions current within ``seconds``, within ``bytes`` in all."""

    bytes: int = 2 * 1024 * 1024
    seconds: float = 600.0


class TextVersion:
    """One immutable version of a document's text (its bytes kept, or rebuilt from a later version)."""

    __slots__ = ("_index", "_rebuild", "_str", "_text", "at", "client_version", "edits", "version")

    def __init__(
        self,
        version: int,
        text: bytes,
        edits: tuple[ByteEdit, ...] = (),
        index: LineIndex | None = None,
        at: float = 0.0,
        client_version: int | None = None,
    ):
        #: The server's order of versions (increasing; the client's number while the client's increase).
        self.version = version
        #: The number the client gave this version: what it is told, and names in requests.
        self.client_version = version if client_version is None else client_version
        #: When this version became current (the clock of its document).
        self.at = at
        self._text: bytes | None = text
        self._rebuild: Callable[[], bytes] | None = None
        #: The edits that turn the previous version's text into this one, in order (empty for the first).
        self.edits = edits
        self._index = index
        self._str: str | None = None

    @property
    def text(self) -> bytes:
        if self._text is not None:
            return self._text
        assert self._rebuild is not None
        return self._rebuild()

    @property
    def materialised(self) -> bool:
        return self._text is not None

    def dematerialise(self, rebuild: Callable[[], bytes]) -> int:
        """Drop the bytes (returns how many); ``rebuild`` makes them again from a later version."""
        size = len(self._text) if self._text is not None else 0
        self._text, self._rebuild = None, rebuild
        self.drop_caches()
        return size

    @property
    def edit_bytes(self) -> int:
        return sum(len(e.new_text) + len(e.old_text) + 64 for e in self.edits)

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index

    @property
    def string(self) -> str:
        """The text decoded (invalid UTF-8 cannot arrive over JSON, so this never fails)."""
        if self._str is None:
            self._str = self.text.decode("utf-8", errors="replace")
        return self._str

    def drop_caches(self) -> None:
        """Forget derived data once this version is history (it is rebuilt on demand)."""
        self._index = None
        self._str = None

    def __repr__(self) -> str:
        client = f", client_version={self.client_version}" if self.client_version != self.version else ""
        return f"TextVersion(version={self.version}{client}, materialised={self.materialised})"


class Document:
    """An open document: its language id and a bounded history of versions."""

    def __init__(
        self,
        uri: str,
        language_id: str,
        version: int,
        text: str,
        budget: HistoryBudget | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.uri = uri
        self.language_id = language_id
        self.budget = budget or HistoryBudget()
        self._clock = clock
        self._history: deque[TextVersion] = deque([TextVersion(version, text.encode("utf-8"), at=clock())])
        self._pins: dict[int, int] = {}  # version -> how many operations hold it
        self._rebuilt: dict[int, bytes] = {}  # a few recently rebuilt old versions
        #: Why versions were last dropped (named in errors about a version no longer kept).
        self.last_eviction: str | None = None
        #: A change whose version was not newer than the current one was warned about (once per document).
        self.warned_out_of_order = False
        self._cost = len(self._history[0].text) + VERSION_OVERHEAD

    @property
    def current(self) -> TextVersion:
        return self._history[-1]

    @property
    def version(self) -> int:
        """The current version in the server's order (what history, trees and caches are keyed on)."""
        return self._history[-1].version

    @property
    def client_version(self) -> int:
        """The client's number for the current version: what the client is told."""
        return self._history[-1].client_version

    def versions(self) -> Sequence[TextVersion]:
        """The kept versions, oldest first."""
        return tuple(self._history)

    def get(self, version: int) -> TextVersion | None:
        for item in reversed(self._history):
            if item.version == version:
                return item
        return None

    def find(self, client_version: int) -> TextVersion | None:
        """The newest kept version the client numbered ``client_version`` (a client that sent a number twice
        means its latest text by it), or None."""
        for item in reversed(self._history):
            if item.client_version == client_version:
                return item
        return None

    def edits_since(self, version: int) -> Iterator[ByteEdit] | None:
        """The edits from ``version`` to the current one, or None when ``version`` is not kept."""
        kept = [v.version for v in self._history]
        if version not in kept:
            return None
        start = kept.index(version) + 1
        return (edit for item in list(self._history)[start:] for edit in item.edits)

    def apply(self, client_version: int, changes: Sequence[ContentChange], encoding: Encoding) -> TextVersion:
        """Apply a didChange, whatever its version number; returns the new version. It takes the client's
        number in the server's order when that is newer, else the next number after the current one."""
        order = client_version if client_version > self.version else self.version + 1
        text, edits, index = apply_changes(self.current.text, self.current.index, changes, encoding)
        self._push(TextVersion(order, text, edits, index, at=self._clock(), client_version=client_version))
        return self.current

    def pin(self, version: int) -> bool:
        """Keep ``version`` (and what rebuilding it needs) until :meth:`unpin`; False when it is not kept."""
        if self.get(version) is None:
            return False
        self._pins[version] = self._pins.get(version, 0) + 1
        return True

    def unpin(self, version: int) -> None:
        left = self._pins.get(version, 0) - 1
        if left > 0:
            self._pins[version] = left
        else:
            self._pins.pop(version, None)

    @property
    def oldest_version(self) -> int:
        return self._history[0].version

    def history_bytes(self) -> int:
        """What the history costs: kept texts, the recorded edits, and each version's overhead (kept up to
        date as versions come and go, not summed per keystroke)."""
        return self._cost

    def _text_of(self, position: int) -> bytes:
        """Rebuild the text of the version at ``position`` in the history by undoing later edits."""
        versions = list(self._history)
        cached = self._rebuilt.get(versions[position].version)
        if cached is not None:
            return cached
        later = next(k for k in range(position + 1, len(versions)) if versions[k].materialised)
        text = versions[later].text
        for k in range(later, position, -1):
            for edit in reversed(versions[k].edits):
                text = edit.undo(text)
        if len(self._rebuilt) >= 4:
            self._rebuilt.pop(next(iter(self._rebuilt)))
        self._rebuilt[versions[position].version] = text
        return text

    def _push(self, item: TextVersion) -> None:
        previous = self.current
        previous.drop_caches()
        self._history.append(item)
        self._cost += len(item.text) + item.edit_bytes + VERSION_OVERHEAD
        self._rebuilt.clear()  # rebuilt texts stay valid, but keep the cache small and simple
        if len(self._history) > 1 and previous.version not in self._pins and previous.materialised:
            version = previous.version
            self._cost -= len(previous.text)
            previous.dematerialise(lambda: self._text_of(self._position(version)))
        window_start = self._clock() - self.budget.seconds
        cost = self._cost
        while len(self._history) > 1 and self._history[0].version not in self._pins:
            # the oldest stays while it was current within the window (its successor came after it began)
            outdated = self._history[1].at <= window_start
            if not outdated and cost <= self.budget.bytes:
                break
            self.last_eviction = (
                f"the history byte budget (tether.limits.historyBytes = {self.budget.bytes})"
                if cost > self.budget.bytes
                else f"the history time window (tether.limits.historySeconds = {self.budget.seconds:g})"
            )
            cost -= self._history[0].edit_bytes + VERSION_OVERHEAD + len(self._history[0]._text or b"")
            oldest = self._history[1]
            if not oldest.materialised:
                # The new oldest must be rebuildable without the dropped one: forward from the dropped text with
                # one version's edits, not backward from the newest text through every kept version (that was
                # quadratic while typing at the budget). Once an eviction happened the oldest is kept whole.
                text = self._history[0].text
                for edit in oldest.edits:
                    text = edit.apply(text)
                oldest._text = text
                cost += len(text)
            dropped = self._history.popleft()
            cost -= self._history[0].edit_bytes
            self._history[0].edits = ()  # nothing before it any more
            del dropped
        self._cost = cost

    def _position(self, version: int) -> int:
        for k, item in enumerate(self._history):
            if item.version == version:
                return k
        raise KeyError(version)


class DocumentStore:
    """All open documents by uri."""

    def __init__(self, budget: Callable[[], HistoryBudget] = HistoryBudget) -> None:
        self._docs: dict[str, Document] = {}
        self._budget = budget

    def open(self, uri: str, language_id: str, version: int, text: str) -> Document:
        doc = Document(uri, language_id, version, text, self._budget())
        self._docs[uri] = doc
        return doc

    def close(self, uri: str) -> Document | None:
        return self._docs.pop(uri, None)

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)

    def __iter__(self) -> Iterator[Document]:
        return iter(list(self._docs.values()))

    def __len__(self) -> int:
        return len(self._docs)
