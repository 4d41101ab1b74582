"""Inline completion's state across requests: the latest request wins (a newer one cancels the model call of
the older), and an endpoint that is down is warned about once per outage, not once per keystroke."""

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

    def failed(self, reason: str) -> None:
        if not self.failing:
            log.warning("inline completion: %s (no suggestions until the endpoint answers)", reason)
        self.failing = True

    def succeeded(self) -> None:
        if self.failing:
            log.info("inline completion: the endpoint answers again")
        self.failing = False
