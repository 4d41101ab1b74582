"""The markers' settings (``tether.markers``), in a module of their own: the store reads one, and importing it
from the SQLite watch (which names the markers state, which names the store) made an import circle."""

from __future__ import annotations

from dataclasses import dataclass

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
    computeWaitSeconds: float = setting(
        300.0,
        "On PostgreSQL, how long this server waits for a teammate's server that is computing the markers' locations "
        "of a file at the same commit (both reached it at once) before computing them itself. 0: never wait.",
        minimum=0,
        maximum=86400,
    )
