"""The incremental parser of a task's streamed output (docs/edits.md, "Inline tasks"): changes as they arrive.

::

    <change><path>src/app.py</path>
    <range-to-replace>
    old lines
    </range-to-replace>
    <replacement>
    new lines
    </replacement></change>

plus ``<description>`` and ``<terminal-command>``. Fed chunk by chunk; a partially printed tag is held back (it
is never content). Each event carries the cumulative text of its section so far, like ``tether/edits/update``.
"""

from __future__ import annotations

from dataclasses import dataclass

SECTIONS = ("path", "range-to-replace", "replacement", "description", "terminal-command")


@dataclass(frozen=True)
class Event:
    """``kind``: change-start | path | old | new | change-end | description | terminal-command."""

    kind: str
    text: str = ""
    final: bool = False


def _section_text(raw: str) -> str:
    """A block section's text: the newline right after the opening tag is layout, not content."""
    return raw[1:] if raw.startswith("\n") else raw


class TaskOutputParser:
    def __init__(self) -> None:
        self.buffer = ""
        self.section: str | None = None  # the open section
        self.content = ""  # its text so far
        self.in_change = False

    def feed(self, chunk: str) -> list[Event]:
        self.buffer += chunk
        events: list[Event] = []
        while True:
            if self.section is not None:
                closing = f"</{self.section}>"
                at = self.buffer.find(closing)
                if at < 0:
                    safe = self._safe_length(closing)
                    if safe:
                        self.content += self.buffer[:safe]
                        self.buffer = self.buffer[safe:]
                        events += self._progress(final=False)
                    return events
                self.content += self.buffer[:at]
                self.buffer = self.buffer[at + len(closing) :]
                events += self._progress(final=True)
                self.section, self.content = None, ""
                continue
            at = self.buffer.find("<")
            if at < 0:
                self.buffer = ""
                return events
            end = self.buffer.find(">", at)
            if end < 0:
                self.buffer = self.buffer[at:]
                return events  # a tag still being printed
            tag = self.buffer[at + 1 : end].strip()
            self.buffer = self.buffer[end + 1 :]
            if tag == "change":
                self.in_change = True
                events.append(Event("change-start"))
            elif tag == "/change":
                if self.in_change:
                    events.append(Event("change-end"))
                self.in_change = False
            elif tag in SECTIONS:
                self.section, self.content = tag, ""

    def _safe_length(self, closing: str) -> int:
        """How much of the buffer is surely content: all but a trailing prefix of the closing tag."""
        for keep in range(min(len(closing) - 1, len(self.buffer)), 0, -1):
            if closing.startswith(self.buffer[-keep:]):
                return len(self.buffer) - keep
        return len(self.buffer)

    def _progress(self, *, final: bool) -> list[Event]:
        section = self.section
        text = _section_text(self.content)
        if section == "path":
            return [Event("path", text.strip(), True)] if final else []
        if section == "range-to-replace":
            return [Event("old", text, final)]
        if section == "replacement":
            return [Event("new", text, final)]
        if section in ("description", "terminal-command"):
            return [Event(section, text.strip(), True)] if final else []
        return []
