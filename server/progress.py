"""Server-initiated ``$/progress`` (window/workDoneProgress/create, begin, report, end) when the client supports
it; a no-op otherwise. Reports may come from worker threads."""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)


class Progress:
    """Server-initiated ``$/progress`` when the client supports it; a no-op otherwise."""

    def __init__(self, server: LanguageServer, token: str | int | None, loop: asyncio.AbstractEventLoop) -> None:
        self.server, self.token, self.loop = server, token, loop
        self.last = -1
        self.minimum = 0  # jobs with fewer steps report nothing

    @classmethod
    async def start(cls, server: LanguageServer, title: str, client_token: str | int | None = None) -> Progress:
        """Begin a progress: on the request's own ``workDoneToken`` when the client gave one (it shows the
        progress where it wants, with a Cancel), else on a token the server asks the client to create."""
        from lsprotocol import types

        loop = asyncio.get_running_loop()
        if client_token is not None:
            begin = types.WorkDoneProgressBegin(title=title, percentage=0, cancellable=True)
            server.work_done_progress.begin(client_token, begin)
            return cls(server, client_token, loop)
        window = server.client_capabilities.window
        if not (window and window.work_done_progress):
            return cls(server, None, loop)
        token = f"tether-{uuid.uuid4().hex[:8]}"
        try:
            await server.work_done_progress.create_async(token)
        except Exception as exc:
            log.info("client refused a progress token (%s)", exc)
            return cls(server, None, loop)
        server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, percentage=0))
        return cls(server, token, loop)

    def report(self, done: int, total: int, message: str | None = None) -> None:
        """Thread-safe: at most one report per percent (and none for small jobs)."""
        from lsprotocol import types

        percent = done * 100 // max(total, 1)
        if self.token is None or total < self.minimum or percent == self.last:
            return
        self.last = percent
        token = self.token
        message = message or f"{done}/{total}"
        self.loop.call_soon_threadsafe(
            lambda: self.server.work_done_progress.report(
                token, types.WorkDoneProgressReport(message=message, percentage=percent)
            )
        )

    def end(self, message: str = "done") -> None:
        from lsprotocol import types

        if self.token is not None:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.token = None
