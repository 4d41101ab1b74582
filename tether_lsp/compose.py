"""The composition root: the runtime (``server``) and every feature (``handlers``) put together.

Kept out of both halves so that dependencies run one way: ``handlers`` imports ``server``, nothing in
``server`` imports ``handlers``, and only this module knows both.
"""

from __future__ import annotations

from . import __version__
from .handlers import register
from .server.app import TetherServer
from .server.lifecycle import register_lifecycle


def create_server() -> TetherServer:
    """A fully registered server, not yet started (also what the docs generator inspects)."""
    server = TetherServer("tether-lsp", __version__)
    register_lifecycle(server)
    register(server)
    return server
