"""``filterText`` / ``filterNotText``: which cursors' texts the regex finds, searching only where it can match.

Why: a search given a timeout (the request's regex budget, :class:`~.vocabulary.RegexLimits`) costs the
``regex`` module a CPU-clock reading per call, some 7 us here, which is most of a whole-file filter over
thousands of functions. Most patterns agents send start with a literal (``^def get_user\\b``, ``class Store``):
a node whose bytes lack that literal cannot match, and looking for it in the bytes costs a fraction of a
microsecond and no decoding. Only the nodes that hold it are searched, with the budget, as before.

:func:`required_literal` reads the literal off the pattern's text conservatively: the longest run of ASCII
characters that match themselves (letters, digits, escaped punctuation...) standing at the pattern's top level,
none followed by a quantifier, read up to the first group or escape it does not know; never in a pattern with an
alternative (``|``) or an inline flag or group option (``(?``), which could make the literal optional or change
how it matches. A run after nothing but ``^`` or ``\\A`` (and zero-width assertions) must start the node's text.
A pattern without such a run searches every node.
"""

from __future__ import annotations

import string
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tether_lsp.server.errors import InvalidParams

from .index import TreeIndex

if TYPE_CHECKING:
    import regex  # the patterns come compiled (:func:`.vocabulary.validate`): start-up does not import it

#: Characters that match themselves wherever they stand outside a character class (no VERBOSE: ``(?x)`` has
#: ``(?`` and turns the literal off).
LITERAL_CHARS = frozenset(string.ascii_letters + string.digits + "_ :=,'\"<>/@!%&~;#-")
#: Characters a backslash makes literal (every ASCII punctuation character, and space).
ESCAPED_LITERALS = frozenset(string.punctuation + " ")
#: Escapes that match no character: ``\A``, ``\b``, ``\B``.
ZERO_WIDTH_ESCAPES = frozenset("AbB")
#: Escapes that match one character of a class (``\\d``, ``\\s``, ``\\w``, their complements) or a control character.
ONE_CHARACTER_ESCAPES = frozenset("dDsSwWntrfv")
#: What may follow an item and make it optional or repeated (``{`` also starts fuzzy constraints).
QUANTIFIERS = frozenset("*+?{")


class Context(Protocol):
    """What a filter reads of the request (:class:`~.vocabulary.Context`)."""

    index: TreeIndex
    selector: str
    deadline: float
    budget_s: float


@dataclass(frozen=True)
class Literal:
    """Bytes every match holds: at the start of the node's text when ``anchored``, anywhere in it otherwise."""

    text: bytes
    anchored: bool

    def may_match(self, text: bytes, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` holds the literal where the pattern needs it."""
        if self.anchored:
            return end - start >= len(self.text) and text.startswith(self.text, start)
        return text.find(self.text, start, end) >= 0


def required_literal(pattern: str) -> Literal | None:
    """The longest literal every match of ``pattern`` (compiled with ``regex.VERSION0`` and no flags) holds, or
    None (see the module's docstring)."""
    if "|" in pattern or "(?" in pattern:
        return None
    runs = [""]  # the runs of literal characters at the top level, in order
    anchored = False  # the pattern starts with ^ or \A
    at = 0
    while at < len(pattern):
        char = pattern[at]
        literal: str | None = None
        zero_width = False
        if char in LITERAL_CHARS:
            literal, at = char, at + 1
        elif char == "\\" and at + 1 < len(pattern):
            escaped = pattern[at + 1]
            if escaped in ESCAPED_LITERALS:
                literal = escaped
            elif escaped in ZERO_WIDTH_ESCAPES:
                zero_width, anchored = True, anchored or (at == 0 and escaped == "A")
            elif escaped not in ONE_CHARACTER_ESCAPES:
                break  # an escape that may take an argument (\x41, \p{L}, \N{..}, \g<1>, \L<..>, \Q..\E, \1)
            at += 2
        elif char in "^$":
            zero_width, anchored = True, anchored or (at == 0 and char == "^")
            at += 1
        elif char == ".":
            at += 1
        elif char == "[":
            at = _class_end(pattern, at)
            if at < 0:
                break
        else:  # a group, a quantifier with nothing to repeat, a stray bracket: read no further
            break
        if at < len(pattern) and pattern[at] in QUANTIFIERS:
            literal, zero_width = None, False  # the item may be missing or repeated: the run ends before it
            at = _quantifier_end(pattern, at)
        if literal is not None:
            runs[-1] += literal
        elif not (zero_width and runs == [""]):  # assertions before the first literal keep it pinned
            runs.append("")
        if at < 0:
            break
    best = max(runs, key=len)  # the first of the longest
    if not best:
        return None
    return Literal(best.encode("ascii"), anchored and best is runs[0])


def _class_end(pattern: str, start: int) -> int:
    """The index after the ``]`` closing the class opened at ``start``; -1 when unsure (a ``[`` inside it may
    open a POSIX class)."""
    at = start + 1
    if at < len(pattern) and pattern[at] == "^":
        at += 1
    if at < len(pattern) and pattern[at] == "]":
        at += 1
    while at < len(pattern):
        if pattern[at] == "]":
            return at + 1
        if pattern[at] == "[":
            return -1
        at += 2 if pattern[at] == "\\" else 1
    return -1


def _quantifier_end(pattern: str, at: int) -> int:
    """The index after the quantifier at ``at`` (and its lazy or possessive mark); -1 for a ``{`` not closed."""
    if pattern[at] == "{":
        close = pattern.find("}", at)
        if close < 0:
            return -1
        at = close + 1
    else:
        at += 1
    if at < len(pattern) and pattern[at] in "?+":
        at += 1
    return at


def text_filter(keep_matches: bool) -> Callable[[Context, Sequence[int], regex.Pattern[str]], list[int]]:
    """The list-level selector keeping the cursors whose text the pattern finds (or does not)."""

    def run(ctx: Context, cursors: Sequence[int], pattern: regex.Pattern[str]) -> list[int]:
        out = []
        text = ctx.index.text
        rows = list(cursors)
        literal = required_literal(pattern.pattern)
        for c, (start, end) in zip(rows, ctx.index.spans(rows), strict=True):  # spans of all at once: one numpy pass
            found = (literal is None or literal.may_match(text, start, end)) and _search(ctx, pattern, text[start:end])
            if found == keep_matches:
                out.append(c)
        return out

    return run


def _search(ctx: Context, pattern: regex.Pattern[str], node_text: bytes) -> bool:
    """Whether the pattern finds a match in the node's text within what is left of the request's budget."""
    left = ctx.deadline - time.monotonic()
    try:
        match = pattern.search(node_text.decode("utf-8", errors="replace"), timeout=left) if left > 0 else None
    except TimeoutError:
        left = 0
    if left <= 0:
        raise InvalidParams(
            "args[0]",
            f"the regular expression ran out of its {ctx.budget_s:g} s budget "
            "(catastrophic backtracking?); simplify it",
            kind="invalidArgs",
            selector=ctx.selector,
        )
    return match is not None
