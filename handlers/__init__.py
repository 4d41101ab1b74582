"""Tether's features. :func:`register` is the one router: every feature's handlers are listed here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.app import TetherServer


def register(server: TetherServer) -> None:
    """Register every feature's handlers on ``server`` (no handler registers itself on import)."""
    from .selectors import lsp as selectors

    selectors.register(server)
