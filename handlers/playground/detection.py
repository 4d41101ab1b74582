"""One batch of changed documents whose prompts are found off the loop, and where each is found.

A large document goes to a worker process (``tether.limits.processes``) as its text, parsed there: neither the
parse nor the walk over the tree then holds the interpreter the loop runs in. A small one goes to a worker thread
with a copy of the server's tree: the process hop would cost it more than it saves (``processMinBytes``).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tether_lsp.server.errors import RequestFailed
from tether_lsp.server.host import Host
from tether_lsp.server.settings import LimitSettings

from .scan import Detected, scan, scan_texts
from .settings import PlaygroundSettings

if TYPE_CHECKING:
    from tree_sitter import Tree

    from tether_lsp.server.syntax import Snapshot

log = logging.getLogger(__name__)

#: Documents at least this large go to a worker process when there is one (``tether.playground.processMinBytes``).
#: Measured: the hop itself costs 0.4 ms (a call that does nothing; a thread's 0.07 ms) and the child's parse and walk
#: as long as the loop's parse and the thread's walk (1,000 lines of Python: 11 ms against 2.6 + 9.6 ms); 8 KiB (300
#: lines of Python) is where the thread path holds the interpreter the loop needs for about 4 ms (0.9 ms parsing on
#: the loop, 3.1 ms walking). Below it the hop's fixed cost, and a second tree kept in the child, buy back less.
PROCESS_MIN_BYTES = PlaygroundSettings().processMinBytes

#: A document's version and what its prompts were found in (a copy of the server's tree, or the text alone).
ThreadJob = tuple[str, int, str, bytes, "Tree"]  # uri, version, language, text, tree
ProcessJob = tuple[str, int, str, bytes]  # uri, version, language, text
#: A version's prompts (None: a text held as text only, too large or deep to parse).
Found = tuple[str, int, Detected | None]


def in_process(host: Host, size: int) -> bool:
    """Whether a document of ``size`` bytes is read in a worker process."""
    least = host.settings.section(PlaygroundSettings).processMinBytes
    return size >= least and host.settings.section(LimitSettings).processes > 0


@dataclass
class Batch:
    keywords: Sequence[str] | None
    yaml_keys: Sequence[str] | None
    threads: list[ThreadJob] = field(default_factory=list)
    processes: list[ProcessJob] = field(default_factory=list)
    #: The process that found the prompts (this one when a thread did), once :meth:`find` has run.
    found_in: int | None = None

    def __bool__(self) -> bool:
        return bool(self.threads or self.processes)

    def texts(self) -> dict[tuple[str, int], bytes]:
        """The text of each document version the batch reads, by uri and version."""
        texts = {(uri, version): text for uri, version, _language, text, _tree in self.threads}
        return texts | {(uri, version): text for uri, version, _language, text in self.processes}

    async def find(self, host: Host, snapshot: Callable[[str, int], Snapshot | None]) -> list[Found]:
        """Every document's prompts; when worker processes keep dying, the large ones' too in a thread, from the
        server's trees (``snapshot``)."""
        by_process, by_thread = await asyncio.gather(self._in_process(host, snapshot), self._in_thread(host))
        return by_process + by_thread

    async def _in_thread(self, host: Host, jobs: list[ThreadJob] | None = None) -> list[Found]:
        jobs = self.threads if jobs is None else jobs
        if not jobs:
            return []
        keywords, yaml_keys = self.keywords, self.yaml_keys

        def scan_all() -> list[Found]:
            return [
                (uri, v, scan(language, tree, text, keywords, yaml_keys, uri)) for uri, v, language, text, tree in jobs
            ]

        found = await host.run_blocking(scan_all)
        self.found_in = os.getpid()
        return found

    async def _in_process(self, host: Host, snapshot: Callable[[str, int], Snapshot | None]) -> list[Found]:
        if not self.processes:
            return []
        texts = [(uri, language, text) for uri, _v, language, text in self.processes]
        try:
            pid, found = await host.run_in_process(
                scan_texts, texts, self.keywords, self.yaml_keys, host.grammar_limits()
            )
        except RequestFailed as exc:
            if exc.data.get("kind") != "workerProcessDied":
                raise
            log.warning("playground: %s; finding those prompts in a thread instead", exc)
            return await self._in_thread(host, _trees(self.processes, snapshot))
        self.found_in = pid
        return [(uri, v, detected) for (uri, v, _l, _t), detected in zip(self.processes, found, strict=True)]


def _trees(jobs: list[ProcessJob], snapshot: Callable[[str, int], Snapshot | None]) -> list[ThreadJob]:
    """Loop: the server's trees of these versions (each its own copy), those it still has."""
    trees: list[ThreadJob] = []
    for uri, version, language, text in jobs:
        found = snapshot(uri, version)
        tree = found.tree if found is not None else None
        if tree is not None:
            trees.append((uri, version, language, text, tree.copy()))
    return trees
