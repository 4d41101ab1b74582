"""Position encodings: the units an LSP ``character`` counts in, and which one a client and Tether agree on.

Why apart from the conversions (:mod:`server.positions`): the choice is made once per client, at
``initialize``, by the protocol layer that announces it and the lifecycle that records it; every conversion
then takes the chosen :class:`Encoding` as a value.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable


class Encoding(enum.StrEnum):
    """A position encoding as named on the wire (``general.positionEncodings``)."""

    UTF8 = "utf-8"
    UTF16 = "utf-16"
    UTF32 = "utf-32"


#: The server's preference: bytes are what tree-sitter speaks, so UTF-8 costs nothing to convert.
PREFERENCE: tuple[Encoding, ...] = (Encoding.UTF8, Encoding.UTF32, Encoding.UTF16)


def choose_encoding(offered: Iterable[str] | None) -> Encoding:
    """Pick the encoding to use given the client's offer (UTF-16 when it offers nothing we know)."""
    offered_set = set(offered or ())
    for encoding in PREFERENCE:
        if encoding.value in offered_set:
            return encoding
    return Encoding.UTF16
