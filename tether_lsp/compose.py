"""The composition root: the runtime (``server``) and every feature (``handlers``) put together.

Kept out of both halves so that dependencies run one way: ``handlers`` imports ``server``, nothing in
``server`` imports ``handlers``, and only this module knows both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from . import __version__
from .handlers import features
from .handlers.markers.lsp import Markers
from .mcp.attached_lsp.attachment import attach
from .server.app import TetherServer
from .server.runtime_methods import runtime_feature

C = TypeVar("C")


def create_server() -> TetherServer:
    """A fully registered server, not yet started (also what the docs generator inspects): the runtime's
    method table, then each feature's, installed by the one router."""
    server = TetherServer("tether-lsp", __version__)
    server.router.install(runtime_feature())
    contexts = [server.router.install(feature) for feature in features()]
    markers = context_of(contexts, Markers)
    # the agents' front in this process (off unless tether.mcp.http.enabled; its notes are the live markers)
    attach(server, markers=lambda: markers.state)
    return server


def context_of(contexts: Iterable[object], kind: type[C]) -> C:
    """The one installed feature context of type ``kind`` (what another part of the process is given of it)."""
    found = [context for context in contexts if isinstance(context, kind)]
    if len(found) != 1:
        raise LookupError(f"{len(found)} feature contexts are {kind.__name__}s, not one")
    return found[0]
