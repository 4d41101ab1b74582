"""Attached mode: the running language server serves the agents' front itself, over streamable HTTP on 127.0.0.1
(``tether.mcp.http.*``, off by default), so agents read the editor's unsaved buffers and their edits land in the
editor (:mod:`..attached_source`, through :mod:`.editor_link`); ``tether-lsp mcp --attach`` bridges an agent's
stdio to it (:mod:`..bridge`).

This module is what the language server loads at start-up: the settings sections and a settings listener, no
more. The endpoint (:mod:`..http`: the MCP SDK, Starlette, uvicorn) is imported and started on a thread of its own
when the setting turns true, and stopped when it turns false or the server shuts down; settings changes never
wait on it on the LSP loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..settings import McpHttpSettings, McpSettings

if TYPE_CHECKING:
    from tether_lsp.handlers.markers.state import MarkersState
    from tether_lsp.server.app import TetherServer
    from tether_lsp.server.settings import Settings

    from ..context import Context
    from ..http import Endpoint
    from .editor_link import EditorLink

log = logging.getLogger(__name__)

#: Seconds shutdown waits for the endpoint's thread to end.
STOP_WAIT = 5.0


class Attachment:
    """The language server's MCP endpoint: started, restarted and stopped as ``tether.mcp.http`` says."""

    def __init__(self, server: TetherServer, markers: Callable[[], MarkersState] | None = None) -> None:
        server.register_settings("mcp", McpSettings)
        server.register_settings("mcp.http", McpHttpSettings)
        self.server = server
        #: The markers feature's live state, for the agents' notes (what an agent notes shows in the editor).
        self.markers = markers
        self.context: Context | None = None
        self.endpoint: Endpoint | None = None
        self._link: EditorLink | None = None
        self._wanted: McpHttpSettings | None = None
        self._generation = 0
        self._switching = threading.Lock()
        server.on_settings(self._settings_now)
        server.on_shutdown(self.close)

    # --- on the LSP loop -----------------------------------------------------------------------------------

    def _settings_now(self, settings: Settings) -> None:
        http = settings.section(McpHttpSettings)
        if self.context is not None:
            self.context.configure(settings)
        wanted = http if http.enabled else None
        if _restart_key(wanted) == _restart_key(self._wanted):
            return  # editTimeout is read at each edit: no restart (a new port and token) for it
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # settings read without a session (the docs generator, tests of settings)
            return
        if wanted is not None and self._link is None:
            from .editor_link import EditorLink

            self._link = EditorLink(
                self.server, loop, lambda: self.server.settings.section(McpHttpSettings).editTimeout
            )
        self._wanted = wanted
        self._generation += 1
        threading.Thread(
            target=self._switch, args=(self._generation, wanted, settings), name="tether-mcp-switch", daemon=True
        ).start()

    # --- on a thread of its own ----------------------------------------------------------------------------

    def _switch(self, generation: int, wanted: McpHttpSettings | None, settings: Settings) -> None:
        with self._switching:
            if generation != self._generation:
                return  # a later change decides
            self._stop()
            if wanted is not None and not self.server.stopping:
                try:
                    self._start(wanted, settings)
                except Exception as exc:
                    log.error("MCP endpoint not started: %s", exc, exc_info=not isinstance(exc, OSError))

    def _start(self, wanted: McpHttpSettings, settings: Settings) -> None:
        from .. import discovery
        from ..http import Endpoint

        assert self._link is not None
        link = self._link
        if self.context is None:
            self.context = attached_context(link, settings)
            if self.markers is not None:
                from ..notes_backend import LiveNotes

                self.context.notes = LiveNotes(self.markers(), lambda: self.server.settings.section(McpSettings).author)

        def roots() -> list[Path]:
            return link.workspace().folders

        folder = discovery.state_dir(wanted.stateDir)
        self.endpoint = Endpoint(self.context, wanted.port, folder, wanted.maxRequestBytes, roots)
        self.endpoint.start()

    def _stop(self) -> None:
        endpoint, self.endpoint = self.endpoint, None
        if endpoint is not None:
            if endpoint.stop(STOP_WAIT):
                log.info("MCP endpoint on %s stopped", endpoint.url)
            else:
                log.warning("MCP endpoint on %s did not stop within %g s", endpoint.url, STOP_WAIT)

    def close(self) -> None:
        """At shutdown (off the loop): stop the endpoint, remove its session files and close the agents' context."""
        self._generation += 1
        with self._switching:
            self._stop()
            if self.context is not None:
                self.context.close()


def attached_context(link: EditorLink, settings: Settings) -> Context:
    """The agents' front over the editor's workspace as ``link`` reaches it (imports the front: call it when the
    endpoint starts, not at start-up)."""
    from ..attached_source import WorkspaceSource
    from ..context import Context

    source = WorkspaceSource(link, 0)
    # edits made on an older version are carried through the editor's own history
    context = Context([], settings, source=source, exact_edits=source.exact_edits)
    source.max_bytes = context.limits.maxFileBytes
    # the server's own parses of open buffers, and its worker processes for the heavy work
    context.trees.shared = source.server_tree
    context.in_process = link.in_process
    return context


def _restart_key(http: McpHttpSettings | None) -> tuple[object, ...] | None:
    """What the running endpoint was made with: a change of it makes a new endpoint."""
    return None if http is None else (http.port, http.stateDir, http.maxRequestBytes)


def attach(server: TetherServer, markers: Callable[[], MarkersState] | None = None) -> Attachment:
    """Give ``server`` its MCP endpoint settings (``tether.mcp.*``); nothing else loads until they enable it."""
    return Attachment(server, markers)
