"""``tether.actions``: how much one structural action may take on. A module of its own so that every front reads
the same setting without importing another's glue."""

from __future__ import annotations

from dataclasses import dataclass

from tether_lsp.server.settings import setting


@dataclass(frozen=True)
class ActionSettings:
    """``tether.actions``: limits of one structural action."""

    maxTargets: int = setting(
        10_000,
        "Most targets (node ids or ranges, destination included) one action may name; more is -32602.",
        minimum=1,
        maximum=1_000_000,
    )
