"""The markers' settings (``tether.markers``), in a module of their own: the store reads one, and importing it
from the SQLite watch (which names the markers state, which names the store) made an import circle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tether_lsp.server.settings import setting


@dataclass(frozen=True, slots=True)
class MarkersSettings:
    """Markers (``tether.markers``)."""

    sqlitePollSeconds: float = setting(
        2.0,
        "On a SQLite database, how often the server checks whether another process (another editor window, "
        "`tether-lsp mcp`) changed the markers of the open documents, and sends `tether/markers/didChange` "
        "for those that changed. One cheap query per check, and only while documents are open and listed; 0: off (each "
        "`list` still checks first).",
        minimum=0,
    )
    maxComparedProduct: int = setting(
        25_000_000,
        "Two long lines are compared character by character on their changed middles (their common start and "
        "end set aside) only while the middles' lengths multiplied stay within this; above it the middles count "
        "as rewritten, a lower bound of how alike the lines are (a long line rewritten in two distant places may "
        "then lose its markers' match). The comparison costs about that product: 25,000,000 is a few "
        "milliseconds. 0: long lines' changed middles always count as rewritten.",
        minimum=0,
        maximum=1_000_000_000,
    )
    computeWaitSeconds: float = setting(
        300.0,
        "On PostgreSQL, how long this server waits for a teammate's server that is computing the markers' locations "
        "of a file at the same commit (both reached it at once) before computing them itself. 0: never wait.",
        minimum=0,
        maximum=86400,
    )


#: :attr:`MarkersSettings.maxComparedProduct` in force in this process: the server sets it from its settings, a
#: worker process from the work it is sent (:mod:`.relocate`). One number per process, read by every comparison of
#: two long lines (:func:`.line_similarity.long_similarity`).
_compared_product = [MarkersSettings().maxComparedProduct]


def compared_product() -> int:
    return _compared_product[0]


def compare_at_most(product: int) -> None:
    _compared_product[0] = product


def settings_in_force(settings: Any) -> None:
    """The server's markers settings (``named("markers")``; the defaults in a front without them) put in force in
    this process."""
    markers = settings.named("markers")
    compare_at_most((markers or MarkersSettings()).maxComparedProduct)
