"""The shape every structural action shares: replacements in bytes, what an action produced, and a target seen
as one member of its container.

Why a *member*: the care an action takes (the comma that goes with an argument, the blank lines around a
function, the ``pass`` left in an emptied block, a YAML item's dash) depends only on where the target sits, not
on the action. Each language describes its members once (``python_members.py``, ``yaml_members.py``); the
actions (``actions.py``) are written once against this protocol.

Pure: bytes and tree-sitter nodes in, plain values out; no pygls, no wire types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True, order=True)
class Replace:
    """Replace ``source[start:end]`` with ``text`` (offsets in the bytes *before* every replacement)."""

    start: int
    end: int
    text: bytes


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an action does: replacements sorted by start and not overlapping, and the byte spans *in the text
    after them* of what it produced (the moved, cloned, inserted or wrapped code), so a client can select it."""

    replaces: tuple[Replace, ...]
    produced: tuple[tuple[int, int], ...]


class ActionRefused(Exception):
    """The action cannot apply to this target; ``reason`` says why in a user's words. The LSP and MCP edges turn
    it into -32602 with ``data.kind = "actionRefused"`` naming ``field`` (``targets[0]``, ``destination``…)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class Member(Protocol):
    """A target as one member of its container: an argument of a call, a parameter, an element of a list,
    tuple or set, a dict entry, an imported name, a decorator, a statement of a block (a function or a class is
    a statement), a YAML sequence item or mapping entry."""

    @property
    def kind(self) -> str:
        """What it is, for messages and reports: ``argument``, ``parameter``, ``element``, ``entry``,
        ``import``, ``decorator``, ``statement``, ``item``."""
        ...

    @property
    def span(self) -> tuple[int, int]:
        """The member's own bytes, without its delimiter or surrounding whitespace: what ``clone`` copies and
        ``swap`` exchanges. For a line-based member, whole lines from its first character (after the
        indentation) to its last (before the newline), comments that belong to it included."""
        ...

    @property
    def container(self) -> tuple[int, int, str]:
        """The container's identity (its node's start, end and type): two members are siblings when equal."""
        ...

    def siblings(self) -> Sequence[Member]:
        """Every member of the container, in document order (this one among them)."""
        ...

    def removal(self) -> list[Replace]:
        """Remove this member with the delimiter and whitespace that belong to it and nothing else: the comma
        (the one before it when it is last, so ``f(a, b)`` minus ``b`` is ``f(a)``), its line and the blank lines
        that set it apart for a line-based member, and a ``pass`` (or what the language needs) when the block
        would be left empty."""
        ...

    def insertion(self, text: bytes, after: bool) -> tuple[Replace, int]:
        """Insert ``text`` (a member's own bytes as :meth:`text_for` gives them for this place) as a new sibling
        right after (or before) this one, with its delimiter and, for a line-based member, its newline and
        indentation. Returns the replacement and the offset in
        ``replace.text`` where the member's own text starts (its length is the re-indented text's length),
        so the produced span can be found."""
        ...

    def text_for(self, other: Member, source: bytes) -> bytes:
        """``other``'s own bytes as they would read in this member's place (re-indented for line-based members;
        unchanged for delimited ones)."""
        ...


def applied(source: bytes, replaces: Sequence[Replace]) -> bytes:
    """``source`` with the replacements made (sorted by start, not overlapping)."""
    out, at = [], 0
    for r in sorted(replaces):
        if r.start < at:
            raise ValueError(f"overlapping replacements at byte {r.start}")
        out += [source[at : r.start], r.text]
        at = r.end
    out.append(source[at:])
    return b"".join(out)
