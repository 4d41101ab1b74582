"""The playground's state machine: the four editor events, pinning, and the state a client shows.

docs/playground.md, "Identity": the map is updated on every change of every open document, pinned or not; only the
*emitted* state follows the pin (while pinned, only the pinned file's updates and saves re-resolve
it). Pure apart from the callbacks it is given; offsets are bytes of the document versions it was handed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from tree_sitter import Tree

from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.span_carry import HOLD_START, carry_span

from .model import MapFile, PlaygroundMap
from .model import Prompt as Prompt
from .resolver import DEFAULT, Thresholds, resolve_file_prompts
from .run import conversation
from .scan import Detected as Detected
from .scan import detect as detect
from .scan import first_error as first_error
from .scan import scan as scan
from .text import preview, shown


@dataclass(frozen=True)
class Found:
    """A prompt of a file as shown: its ids and where it is now."""

    file_id: str
    prompt_id: str
    prompt: Prompt


@dataclass
class FileView:
    """What the engine knows of one file's current version."""

    uri: str
    language_id: str
    version: int
    text: bytes
    found: list[Found]
    parse_error: str | None
    last_good: list[Prompt] = field(default_factory=list)
    last_good_version: int = 0


@dataclass(frozen=True)
class Item:
    file_id: str
    prompt_id: str
    preview: str
    span: tuple[int, int]
    anchor: str


@dataclass(frozen=True)
class State:
    """The ``PlaygroundState`` of docs/protocol.md in bytes of ``text`` (the LSP edge makes ranges)."""

    uri: str | None
    file_id: str | None
    language_id: str | None
    text: bytes = field(compare=False)  # what the spans are in; the client sees ranges, compared via the spans
    prompt: Item | None
    content: str | None
    reason: str | None
    prompts: tuple[Item, ...]
    pin: tuple[str, str] | None
    parse_error: str | None
    variables: tuple[str, ...] = ()  # of the selected prompt: what a run asks for
    role: str | None = None  # of the selected prompt
    version: int | None = field(default=None, compare=False)  # the document version ``text`` is


def shift_span(span: tuple[int, int], edits: Sequence[ByteEdit]) -> tuple[int, int]:
    """A byte span carried through edits (each relative to the text the previous one left); its start holds
    where an edit overlaps it (``span_carry.HOLD_START``)."""
    carried = carry_span(span[0], span[1], edits, HOLD_START)
    assert carried is not None  # HOLD_START never gives up
    return carried.start, carried.end


class PlaygroundEngine:
    """The map, the files' views, the editors, the pin, and the last state sent."""

    def __init__(
        self,
        pmap: PlaygroundMap,
        *,
        exists: Callable[[str], bool],
        on_map_change: Callable[[MapFile], None],
        keywords: Sequence[str] | None = None,
        yaml_keys: Sequence[str] | None = None,
    ) -> None:
        self.pmap = pmap
        self.yaml_keys = yaml_keys
        self.limits: Thresholds = DEFAULT
        self.exists = exists
        self.on_map_change = on_map_change
        self.keywords = keywords
        self.views: dict[str, FileView] = {}
        self.active: str | None = None
        self.cursors: dict[str, int] = {}  # uri -> byte offset in that view's text
        self.pin: tuple[str, str] | None = None
        self.sent: State | None = None

    # --- bookkeeping: every change of every open document --------------------------------------------

    def update(
        self,
        uri: str,
        language_id: str,
        language: str,
        version: int,
        text: bytes,
        tree: Tree | None,
        edits_since: Callable[[int], Sequence[ByteEdit] | None],
        renamed_from: str | None = None,
        detected: Detected | None = None,
    ) -> None:
        """Parse the prompts of a document version (unless ``detected`` already holds them, :func:`scan` of this
        version: then ``tree`` may be None) and resolve their ids in the map."""
        if detected is None:
            if tree is None:
                raise ValueError("a tree, or the prompts already found in it")
            detected = scan(language, tree, text, self.keywords, self.yaml_keys)
        parsed, error = detected
        previous = self.views.get(uri)
        if not parsed and previous is None and self.pmap.by_uri(uri) is None and renamed_from is None:
            self.views[uri] = FileView(uri, language_id, version, text, [], error)  # no map entry for no prompts
            return
        last_good, good_version = parsed, version
        if error is not None and previous is not None:
            last_good, good_version = previous.last_good, previous.last_good_version
            parsed = self._keep_last_good(parsed, previous, edits_since)
        entry, ids, changed = resolve_file_prompts(
            self.pmap, uri, parsed, exists=self.exists, renamed_from=renamed_from, limits=self.limits
        )
        if changed:
            self.on_map_change(entry)
        found = [Found(entry.id, pid, prompt) for pid, prompt in zip(ids, parsed, strict=True)]
        self.views[uri] = FileView(uri, language_id, version, text, found, error, last_good, good_version)

    def _keep_last_good(
        self, parsed: list[Prompt], previous: FileView, edits_since: Callable[[int], Sequence[ByteEdit] | None]
    ) -> list[Prompt]:
        """A transient syntax error must not drop the identity of prompts it hides: keep the last good ones."""
        have = {p.norm for p in parsed}
        edits = edits_since(previous.last_good_version)
        if edits is None:
            return parsed
        kept = list(parsed)
        for prompt in previous.last_good:
            if prompt.norm not in have:
                span = shift_span(prompt.span, edits)
                reach = shift_span(prompt.reach, edits) if prompt.reach is not None else None
                kept.append(replace(prompt, span=span, reach=reach))
        return sorted(kept, key=lambda p: p.span)

    def renamed(self, old: str, new: str) -> None:
        """``workspace/didRenameFiles``: the old entry's ids move to the new path, whatever came first."""
        old_entry = self.pmap.by_uri(old)
        if old_entry is None:
            return
        fresh = self.pmap.by_uri(new)
        if fresh is not None and fresh is not old_entry:
            del self.pmap.files[fresh.id]  # made from didOpen(new) before we knew it was a rename
            self.on_map_change(fresh)
        old_entry.uri = new
        self.on_map_change(old_entry)
        stale = self.views.pop(old, None)
        view: FileView | None = self.views.get(new) or stale  # the new file's own text when it is open
        if view is not None:
            prompts = [f.prompt for f in view.found]
            entry, ids, _ = resolve_file_prompts(self.pmap, new, prompts, exists=self.exists, limits=self.limits)
            self.on_map_change(entry)
            view.uri = new
            view.found = [Found(entry.id, pid, p) for pid, p in zip(ids, prompts, strict=True)]
            self.views[new] = view
        if self.active == old:
            self.active = new
        if old in self.cursors:
            self.cursors[new] = self.cursors.pop(old)

    # --- the state ---------------------------------------------------------------------------------

    def find(self, file_id: str, prompt_id: str) -> tuple[FileView, Found] | None:
        for view in self.views.values():
            for found in view.found:
                if found.file_id == file_id and found.prompt_id == prompt_id:
                    return view, found
        return None

    def state(self) -> State:
        if self.pin is not None:
            hit = self.find(*self.pin)
            if hit is None:
                self.pin = None  # its prompt no longer exists
            else:
                pinned_view, found = hit
                inside = under_cursor(pinned_view.found, self.cursors.get(pinned_view.uri)) is found
                return self._state(pinned_view, found, "cursor" if inside else "pinned")
        active = self.views.get(self.active) if self.active else None
        if active is None:
            return State(None, None, None, b"", None, None, None, (), None, None)
        under = under_cursor(active.found, self.cursors.get(active.uri))
        return self._state(active, under, "cursor" if under else None)

    def _state(self, view: FileView, found: Found | None, reason: str | None) -> State:
        items = tuple(_item(f) for f in view.found)
        file_id = view.found[0].file_id if view.found else self._file_id(view.uri)
        return State(
            view.uri,
            file_id,
            view.language_id,
            view.text,
            _item(found) if found else None,
            shown(found.prompt.content) if found else None,
            reason,
            items,
            self.pin,
            view.parse_error,
            conversation(found.prompt).variables if found else (),
            found.prompt.role if found else None,
            view.version,
        )

    def _file_id(self, uri: str) -> str | None:
        entry = self.pmap.by_uri(uri)
        return entry.id if entry else None

    def changed_state(self) -> State | None:
        """The state if it differs from the last one sent (then it counts as sent), else None."""
        now = self.state()
        if now == self.sent:
            return None
        self.sent = now
        return now


def under_cursor(found: Sequence[Found], cursor: int | None) -> Found | None:
    """The prompt the cursor selects: the one whose string it is in, else the innermost statement holding a
    prompt (its name, ``=``, a YAML key); the first in document order on a tie."""
    if cursor is None:
        return None
    best: tuple[int, Found] | None = None
    for item in found:
        nearness = item.prompt.under(cursor)
        if nearness is not None and (best is None or nearness < best[0]):
            best = (nearness, item)
    return best[1] if best else None


def _item(found: Found) -> Item:
    p = found.prompt
    return Item(found.file_id, found.prompt_id, preview(p.content), p.span, p.anchor)
