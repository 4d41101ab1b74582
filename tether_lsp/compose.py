"""The composition root: the runtime (``server``) and every feature (``handlers``) put together.

Kept out of both halves so that dependencies run one way: ``handlers`` imports ``server``, nothing in
``server`` imports ``handlers``, and only this module knows both.
"""

from __future__ import annotations

from . import __version__
from .handlers import features
from .mcp.attached import attach
from .server.app import TetherServer
from .server.runtime_methods import runtime_feature


def create_server() -> TetherServer:
    """A fully registered server, not yet started (also what the docs generator inspects): the runtime's
    method table, then each feature's, installed by the one router."""
    server = TetherServer("tether-lsp", __version__)
    server.router.install(runtime_feature())
    contexts = {feature.name: server.router.install(feature) for feature in features()}
    # the agents' front in this process (off unless tether.mcp.http.enabled; its notes are the live markers)
    attach(server, markers=lambda: contexts["markers"].state)
    return server
