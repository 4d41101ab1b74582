"""What may be handed to a grammar: size and nesting bounds measured before parsing.

Why: tree-sitter-yaml's external scanner keeps the block indentation levels on a fixed-size stack and
crashes the process (SIGSEGV) past 253 nested block levels (measured with block mappings, block sequences
and compact ``- - -`` sequences alike; flow collections nest 100,000 deep without harm, and so do Python's
parentheses, calls and lists). A crash takes every open document with it, so a YAML text whose block nesting
may exceed the limit is never parsed: the document is held as text only. The measure is an upper bound of
the scanner's stack: every line pushes its indentation column, and each ``- ``, ``? `` or ``: `` that
opens a compact block on the same line pushes one more.

tree-sitter-python 0.25's scanner saves its indentation stack (two bytes a level, after a byte per open string)
in tree-sitter's 1,024-byte state buffer and writes past it when the stack is deep and a string starts there:
the process crashes (SIGSEGV in ``ts_stack_push``). Measured: 509 nested blocks with a string inside parse, 510
crash; with 300 nested f-strings open, 383 levels parse and 384 crash. CPython itself refuses more than 100
levels of indentation, so a Python text whose indentation may nest deeper than ``tether.limits.pythonMaxNesting``
is held as text only too; the measure is again an upper bound of the stack (:func:`python_nesting_over`).

The same scanner keeps row numbers in 16 bits, so a YAML text of more than 32,768 lines does not crash but
parses as garbage (one ERROR node over its first 32,768 lines): such a text is held as text only too, with a
reason, rather than offering features that would silently answer nothing.

:class:`GrammarLimits` holds the settings these bounds are read against and gives the verdict on one text
(:class:`TextOnly`: why it is held as text only, as the error a request on it answers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import RequestFailed
from .lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

#: tree-sitter-yaml 0.7 crashes at 254 nested block levels; the setting cannot go above this.
YAML_NESTING_CEILING = 240
#: tree-sitter-python 0.25 crashes at 384 indentation levels with many strings open (510 with one); the setting
#: cannot go above this.
PYTHON_NESTING_CEILING = 380
#: tree-sitter-yaml 0.7 counts rows in 16 bits: past this many lines its rows wrap and everything up to the
#: wrap parses as one ERROR node (measured: 32,768 lines of ``k: v`` parse cleanly, 32,769 do not).
YAML_MAX_LINES = 32_768
_COMPACT = (b"- ", b"? ", b": ")
_PREFIX = b" -?:"


def yaml_nesting_over(text: bytes, limit: int) -> int | None:
    """The block nesting bound of a YAML text when it exceeds ``limit`` (else None: safe to parse)."""
    limit = min(limit, YAML_NESTING_CEILING)
    # The stack holds strictly increasing columns, so it is never deeper than one more than the column pushed
    # last, and a line pushes no column past its first byte that is not a space or part of a compact ``- ``,
    # ``? `` or ``: ``: texts without such a prefix of ``limit`` bytes (nearly all, long lines included) need
    # no closer look.
    if deepest_prefix(text, at_least=limit) < limit:
        return None
    stack: list[int] = []
    deepest = 0
    for line in text.split(b"\n"):
        content = line.lstrip(b" ")
        if not content.strip() or content.startswith(b"#"):
            continue
        column = len(line) - len(content)
        while stack and stack[-1] >= column:
            stack.pop()
        stack.append(column)
        while content[:2] in _COMPACT or content.rstrip() in (b"-", b"?"):
            rest = content[2:]
            stripped = rest.lstrip(b" ")
            column += 2 + len(rest) - len(stripped)
            content = stripped
            stack.append(column)
        deepest = max(deepest, len(stack))
        if deepest > limit:
            return deepest
    return None


def python_nesting_over(text: bytes, limit: int) -> int | None:
    """An upper bound of the indentation levels tree-sitter-python's scanner stacks for ``text`` when it exceeds
    ``limit`` (else None: safe to parse).

    The stack holds strictly increasing indentation widths (a tab counts 8), so it is never deeper than the
    widest indentation: a text without tabs in which no line starts with ``limit`` spaces (every text CPython
    accepts) needs no closer look, and that is one substring search (it runs at every parse). Otherwise each
    line that is not blank or a comment is stacked as the scanner would (continuation lines too, which only
    makes the bound larger)."""
    limit = min(limit, PYTHON_NESTING_CEILING)
    margin = b" " * limit
    if b"\t" not in text and b"\n" + margin not in text and not text.startswith(margin):
        return None
    stack = [0]
    for line in text.split(b"\n"):
        content = line.lstrip(b" \t\f\r")
        if not content or content.startswith(b"#"):
            continue
        indent = line[: len(line) - len(content)]
        width = len(indent) + 7 * indent.count(b"\t")
        while stack[-1] > width:
            stack.pop()
        if width > stack[-1]:
            stack.append(width)
            if len(stack) - 1 > limit:
                return len(stack) - 1
    return None


def yaml_lines_over(text: bytes) -> int | None:
    """The number of lines of a YAML text when tree-sitter-yaml cannot parse that many (else None)."""
    lines = text.count(b"\n") + (0 if text.endswith(b"\n") or not text else 1)
    return lines if lines > YAML_MAX_LINES else None


def deepest_prefix(text: bytes, at_least: int = 0) -> int:
    """The longest run of spaces, ``-``, ``?`` and ``:`` that starts a line, among lines of ``at_least`` bytes
    or more: a bound on the column a line pushes. Lines are measured in one numpy pass; only the long ones
    are looked at (splitting every line in Python took 7 ms for 200 KB, on every parse)."""
    view = np.frombuffer(text, dtype=np.uint8)
    bounds = np.concatenate(([-1], np.flatnonzero(view == 0x0A), [len(text)]))
    long = np.flatnonzero(np.diff(bounds) - 1 >= at_least)
    starts, ends = (bounds[long] + 1).tolist(), bounds[long + 1].tolist()
    return max((e - s - len(text[s:e].lstrip(_PREFIX)) for s, e in zip(starts, ends, strict=True)), default=0)


@dataclass(frozen=True)
class TextOnly:
    """Why a document in a parsed language has no tree: ``kind`` is the -32803 error's ``data.kind``."""

    kind: str  # "documentTooLarge" | "documentTooDeep"
    reason: str

    def error(self) -> RequestFailed:
        return RequestFailed(self.reason, self.kind)


@dataclass(frozen=True)
class GrammarLimits:
    """The parts of ``tether.limits`` that decide whether a text reaches a grammar."""

    max_tree_bytes: int = 8 * 1024 * 1024
    yaml_max_nesting: int = 200
    python_max_nesting: int = 200

    def check(self, language: str, text: bytes) -> TextOnly | None:
        if len(text) > self.max_tree_bytes:
            return TextOnly(
                "documentTooLarge",
                f"the document has {len(text)} bytes, over tether.limits.maxTreeBytes ({self.max_tree_bytes}): "
                "it is held as text only",
            )
        if language == "yaml" and (lines := yaml_lines_over(text)) is not None:
            return TextOnly(
                "documentTooLarge",
                f"the YAML document has {lines} lines, over the {YAML_MAX_LINES} that tree-sitter-yaml can number "
                "(it counts lines in 16 bits): it is held as text only",
            )
        if language == "yaml" and (depth := yaml_nesting_over(text, self.yaml_max_nesting)) is not None:
            return TextOnly(
                "documentTooDeep",
                f"the YAML document nests at least {depth} block levels, over tether.limits.yamlMaxNesting "
                f"({self.yaml_max_nesting}): it is held as text only",
            )
        if language == "python" and (depth := python_nesting_over(text, self.python_max_nesting)) is not None:
            return TextOnly(
                "documentTooDeep",
                f"the Python document may nest {depth} indentation levels, over tether.limits.pythonMaxNesting "
                f"({self.python_max_nesting}): it is held as text only",
            )
        return None
