"""The document events the playground has not processed yet, and which version of each document processes them.

A message waits for the events that arrived before it (by arrival number). Prompts found in a worker for a version
process every event up to that version, even when the document changed again while the worker read it: the
events after it stay pending, and a message that arrived before them need not wait for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PendingEvents:
    """Per document: the kind of work it waits for (``kinds``) and the (version, arrival number) of each event not
    processed yet, in arrival order."""

    kinds: dict[str, str] = field(default_factory=dict)  # uri -> "change" | "save"
    events: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    def note(self, uri: str, kind: str, version: int, arrival: int) -> None:
        """An event of ``uri`` (``version``: the document's after it). An open begins the document anew: the
        versions of a closed one's events are not comparable to it, and any version of the new one processes them."""
        previous = self.kinds.get(uri)
        self.kinds[uri] = "change" if "change" in (kind, previous) or "open" in (kind, previous) else kind
        events = self.events.setdefault(uri, [])
        if kind == "open":
            events[:] = [(0, arrived) for _v, arrived in events]
        events.append((version, arrival))

    def since(self, uri: str) -> int:
        """The arrival number of the document's first event not processed yet."""
        events = self.events.get(uri)
        return events[0][1] if events else 0

    def before(self, upto: int | None, kind: str | None = None) -> list[str]:
        """Pending documents (of ``kind``) whose first unprocessed event arrived no later than ``upto`` (None:
        all of them), in the order of their latest events."""
        return [
            uri
            for uri, pending_kind in self.kinds.items()
            if (kind is None or pending_kind == kind) and (upto is None or self.since(uri) <= upto)
        ]

    def processed(self, uri: str) -> None:
        """Every event of ``uri`` is processed."""
        del self.kinds[uri]
        self.events.pop(uri, None)

    def processed_through(self, uri: str, version: int) -> bool:
        """The events up to ``version`` are processed (the document changed since: the later ones stay); False when
        none was left (what was found for ``version`` is older than what was applied)."""
        events = self.events.get(uri, [])
        later = [event for event in events if event[0] > version]
        if len(later) == len(events):
            return False
        events[:] = later
        return True
