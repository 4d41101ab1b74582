"""How much a ``filterText`` pattern may cost to compile, judged before it is compiled.

Why: the ``regex`` module expands counted repeats when it compiles, so ``a{1000000000}`` takes gigabytes
and minutes before a single match runs (the matching budget cannot help), and nested counts multiply:
``(a{1000}){1000}`` costs as much as ``a{1000000}``. So the pattern's length is bounded, and so is the
product of the counted repeats along every nesting path.
"""

from __future__ import annotations

import re

_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def repeat_weight(pattern: str) -> int:
    """The largest product of counted repeats (``{m}``, ``{m,}``, ``{m,n}``) along any nesting path."""
    stack: list[int] = [1]  # the heaviest repeat inside each open group, by nesting level
    heaviest = 1
    last_atom = 1  # the weight of the atom just read (a group's closing gives its inner weight)
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            last_atom = 1
            continue
        if char == "[":
            i = _class_end(pattern, i)
            last_atom = 1
            continue
        if char == "(":
            stack.append(1)
        elif char == ")" and len(stack) > 1:
            last_atom = stack.pop()
            stack[-1] = max(stack[-1], last_atom)
            i += 1
            continue
        elif char == "{" and (match := _COUNT.match(pattern, i)) is not None and (match.group(1) or match.group(2)):
            low, high = match.group(1), match.group(2)
            count = max(int(low or 0), int(high or 0)) if len(low or "") < 10 and len(high or "") < 10 else 10**10
            weight = last_atom * max(count, 1)
            stack[-1] = max(stack[-1], weight)
            heaviest = max(heaviest, weight)
            i = match.end()
            continue
        else:
            last_atom = 1
        i += 1
    return heaviest


def _class_end(pattern: str, start: int) -> int:
    """The index after the ``]`` that closes the character class opened at ``start``."""
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


def too_costly(pattern: str, max_length: int, max_repeat: int) -> str | None:
    """Why the pattern is refused, or None."""
    if len(pattern) > max_length:
        return f"the pattern has {len(pattern)} characters, over the limit of {max_length}"
    weight = repeat_weight(pattern)
    if weight > max_repeat:
        return f"its counted repeats expand to {weight} copies, over the limit of {max_repeat}"
    return None
