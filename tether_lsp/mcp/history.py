"""The texts the agents' front handed out, per file and bounded, so an edit made on an older version can be
placed on the file as it is now, also when the front runs on its own (``tether-lsp mcp --root``, no editor to ask
for its edits); bounded by ``tether.mcp.historyBytes`` and ``historyFiles``.

Versions are hashes of the content, so a text is found by its version whatever path it was read under (a file
renamed since keeps its history). For the versions this front wrote itself the exact edits are kept too: between
a base and the current text made only of such writes, the edits are replayed instead of diffed. Attached to a
language server, the history is given how to ask for the editor's own recorded edits between two versions of a
buffer (:data:`ExactEdits`); a diff is then the fallback, and ``last_note`` says so.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tether_lsp.server.byte_edits import ByteEdit, diff_edits
from tether_lsp.server.positions import LineIndex

#: The exact edits between two versions of a file (path, base, its text, current, its text), or None when not
#: known (attached mode: the editor's document history).
ExactEdits = Callable[[Path, str, bytes, str, bytes], list[ByteEdit] | None]


@dataclass
class _FileHistory:
    texts: OrderedDict[str, bytes] = field(default_factory=OrderedDict)  # version -> text, oldest first
    #: new version -> (the version it was written from, the edits of that write)
    written: dict[str, tuple[str, tuple[ByteEdit, ...]]] = field(default_factory=dict)

    def size(self) -> int:
        return sum(len(t) for t in self.texts.values())


class History:
    """Per file, the texts handed out (newest kept always; older ones within ``budget`` bytes)."""

    def __init__(self, budget: int, files: int, exact: ExactEdits | None = None) -> None:
        """``exact``: where the exact edits between two versions are asked for when this front did not make them
        all itself (None: a line diff then)."""
        self.budget = budget
        self.files = files
        self._by_path: OrderedDict[Path, _FileHistory] = OrderedDict()
        self._exact = exact
        #: Why the last :meth:`edits` fell back to a line diff where exact edits were looked for (else None).
        self.last_note: str | None = None

    def handed_out(self, path: Path, version: str, text: bytes) -> None:
        """Remember a text an answer showed (the engines' text: without a byte-order mark)."""
        entry = self._by_path.get(path)
        if entry is None:
            entry = self._by_path[path] = _FileHistory()
        self._by_path.move_to_end(path)
        entry.texts[version] = text
        entry.texts.move_to_end(version)
        while entry.size() > self.budget and len(entry.texts) > 1:
            old, _ = entry.texts.popitem(last=False)
            entry.written.pop(old, None)
        while len(self._by_path) > self.files:
            self._by_path.popitem(last=False)

    def wrote(self, path: Path, old: str, new: str, text: bytes, edits: tuple[ByteEdit, ...]) -> None:
        """Remember a write of this front: its text and the exact edits from ``old``."""
        self.handed_out(path, new, text)
        self._by_path[path].written[new] = (old, edits)

    def text(self, path: Path, version: str) -> bytes | None:
        """A text handed out under ``version``: this file's first, else any file's (a renamed file)."""
        entry = self._by_path.get(path)
        if entry is not None and version in entry.texts:
            return entry.texts[version]
        for other in self._by_path.values():
            if version in other.texts:
                return other.texts[version]
        return None

    def edits(self, path: Path, base: str, base_text: bytes, current: str, current_text: bytes) -> list[ByteEdit]:
        """The edits from ``base`` to ``current``: this front's own writes when they lead from one to the other,
        else the exact edits ``exact`` gives, else a line diff (each edit in the coordinates of the text the
        previous ones leave)."""
        self.last_note = None
        entry = self._by_path.get(path)
        chain: list[tuple[ByteEdit, ...]] = []
        at = current
        while entry is not None and at != base and at in entry.written and len(chain) <= len(entry.written):
            at, step = entry.written[at]
            chain.append(step)
        if entry is not None and at == base and chain:
            return [edit for step in reversed(chain) for edit in step]
        if base == current:
            return []
        if self._exact is not None:
            found = self._exact(path, base, base_text, current, current_text)
            if found is not None:
                return found
            self.last_note = (
                f"the editor's recorded history no longer reaches version {base} (or it was not a text of the "
                "editor's buffer): carried by a line diff of the two texts"
            )
        return diff_edits(base_text, current_text, LineIndex(base_text))
