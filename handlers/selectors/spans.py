"""Node spans as users see them: a node's bytes with trailing whitespace trimmed.

tree-sitter often ends block-like nodes (Python ``block``, YAML ``block_mapping``) after the newline and
indentation that follow them; selecting that would grab the next line's indent, so every range Tether shows
is trimmed. Same-span wrappers (an ``expression_statement`` around a ``call``) are one step, not two.
"""

from __future__ import annotations

from tree_sitter import Node

from tether_lsp.server.nodes import enclosing

WHITESPACE = b" \t\r\n"  # what ranges are trimmed of: space, tab, CR, LF


def _is_word(byte: int) -> bool:
    return byte >= 0x80 or byte == 0x5F or 0x30 <= byte <= 0x39 or 0x41 <= byte <= 0x5A or 0x61 <= byte <= 0x7A


def trimmed_span(text: bytes, node: Node) -> tuple[int, int]:
    """``(start, end)`` byte span of ``node`` without trailing whitespace (never before its start)."""
    start, end = node.start_byte, node.end_byte
    while end > start and text[end - 1] in WHITESPACE:
        end -= 1
    return start, end


def expansion(text: bytes, root: Node, offset: int) -> list[tuple[int, int]]:
    """Spans for expand-selection at ``offset``, innermost first, each containing the previous.

    A cursor right after a word, before whitespace or punctuation, starts from that word (as editors pick
    the word to the left). Spans that do not contain the cursor are skipped; the result is never empty.
    """
    offset = max(0, min(offset, len(text)))
    probe = offset
    if probe > 0 and (probe == len(text) or not _is_word(text[probe])) and _is_word(text[probe - 1]):
        probe -= 1
    spans: list[tuple[int, int]] = []
    for node in enclosing(root, probe):
        span = trimmed_span(text, node)
        if span[0] <= offset <= span[1] and (not spans or span != spans[-1]):
            spans.append(span)
    return spans or [(offset, offset)]
