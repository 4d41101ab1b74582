"""Prompts found in a document, and the playground map that gives them stable ids (docs/playground.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .text import normalise

#: Keyword arguments (P3), dict keys (P5) and YAML keys (Y2) that hold prompts; a setting.
DEFAULT_KEYWORDS = ("prompt", "system", "system_prompt", "user_prompt", "instructions", "template")
YAML_KEYS = ("system", "user", "assistant", "template", "instructions", "system_prompt", "user_prompt")


@dataclass(frozen=True)
class Prompt:
    """A prompt as parsed: where it is (bytes of the whole expression), its anchor and decoded content."""

    anchor: str
    content: str
    span: tuple[int, int]
    variables: tuple[str, ...] = ()
    #: ``system``, ``user`` or ``assistant`` when the code says so; None for a template (sent as the user message).
    role: str | None = field(default=None, compare=False)
    #: The whole conversation when the prompt is one message of a list, each ``(role, text)``, in order.
    chat: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    #: Bytes of the statement that holds the prompt (``NAME = …``, ``kw=…``, a message, a YAML ``key: …``): a
    #: cursor on its name selects it too. None: the span alone.
    reach: tuple[int, int] | None = field(default=None, compare=False)
    norm: str = field(init=False, repr=False, compare=False)  # what identity compares, computed once

    def __post_init__(self) -> None:
        object.__setattr__(self, "norm", normalise(self.content))

    def under(self, cursor: int) -> int | None:
        """How near the cursor is (0: inside the string; else the length of the statement holding it: the
        innermost wins), or None when it is on neither. Both ends count as inside."""
        if self.span[0] <= cursor <= self.span[1]:
            return 0
        if self.reach is not None and self.reach[0] <= cursor <= self.reach[1]:
            return self.reach[1] - self.reach[0]
        return None


@dataclass
class MapPrompt:
    """A prompt's identity in the map: its id, and what it last looked like."""

    id: str
    anchor: str
    content: str  # normalised
    order: int
    updated_at: float
    removed_at: float | None = None  # a tombstone: removed at that time ...
    removed_update: int | None = None  # ... during that update of its file


@dataclass
class MapFile:
    id: str
    uri: str
    updated_at: float
    updates: int = 0
    prompts: list[MapPrompt] = field(default_factory=list)
    tombstones: list[MapPrompt] = field(default_factory=list)


@dataclass
class PlaygroundMap:
    files: dict[str, MapFile] = field(default_factory=dict)  # by file id

    def by_uri(self, uri: str) -> MapFile | None:
        return next((f for f in self.files.values() if f.uri == uri), None)
