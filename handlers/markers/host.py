"""What the markers' services need of the process they run in: the one :class:`~tether_lsp.server.host.Host` every
feature takes (workers, the loop, settings, the databases, progress), nothing more."""

from __future__ import annotations

from tether_lsp.server.host import Host, Reporter

__all__ = ["Host", "Reporter"]
