"""How long the event loop goes without running: the measure behind "the loop never blocks".

A task wakes every millisecond and records how late it woke; the worst lateness is the longest stretch the
loop spent on something else (a handler, a parse, the GIL held by a worker). Started only when
``TETHER_LOOP_WATCH=1`` (benchmarks, tests): waking a thousand times a second is not free.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field

TICK_S = 0.001


@dataclass
class LoopWatch:
    worst_s: float = 0.0
    ticks: int = 0
    _task: asyncio.Task[None] | None = field(default=None, repr=False)

    @staticmethod
    def wanted() -> bool:
        return os.environ.get("TETHER_LOOP_WATCH") == "1"

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    def reset(self) -> None:
        self.worst_s, self.ticks = 0.0, 0

    async def _run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(TICK_S)
            late = time.perf_counter() - before - TICK_S
            self.ticks += 1
            if late > self.worst_s:
                self.worst_s = late
