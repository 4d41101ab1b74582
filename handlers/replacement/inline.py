"""Inline completion's state across requests: the latest request wins (a newer one cancels the model call of
the older), an endpoint that is down is warned about once per outage, not once per keystroke, and a completion
withheld because it would break the file once per line."""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger(__name__)


class InlineState:
    """Latest request wins: a newer inline completion cancels the model call of the older one."""

    def __init__(self) -> None:
        self.generation = 0
        self.inflight: asyncio.Future[str] | None = None
        self.failing = False  # one warning per outage, not one per keystroke
        self.last_withheld: tuple[str, int] | None = None

    def withheld(self, uri: str, line: int) -> bool:
        """A completion at ``line`` was withheld; whether to say so (not again for the same line)."""
        new = self.last_withheld != (uri, line)
        self.last_withheld = (uri, line)
        return new

    def failed(self, reason: str) -> None:
        if not self.failing:
            log.warning("inline completion: %s (no suggestions until the endpoint answers)", reason)
        self.failing = True

    def succeeded(self) -> None:
        if self.failing:
            log.info("inline completion: the endpoint answers again")
        self.failing = False
