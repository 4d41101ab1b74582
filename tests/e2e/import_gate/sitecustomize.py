"""Loaded by a server under test when this folder leads its PYTHONPATH: the first import of a package named in
``TETHER_TEST_GATED_IMPORTS`` (comma-separated top-level names) waits until it reads a byte from the FIFO named by
``TETHER_TEST_IMPORT_GATE`` (which the test holds open). So a test can see what the server answers before those packages load:
what needs them cannot be answered until the gate opens.

An audit hook, not a finder: Python calls it on each import before taking any import lock, so the server's other
threads keep importing while one waits here."""

from __future__ import annotations

import os
import sys
import threading

_FIFO = os.environ.get("TETHER_TEST_IMPORT_GATE")
_GATED = frozenset(filter(None, os.environ.get("TETHER_TEST_GATED_IMPORTS", "").split(",")))
_opened = threading.Event()
_lock = threading.Lock()


def _gate(event: str, args: tuple[object, ...]) -> None:
    if event != "import" or _opened.is_set() or not isinstance(args[0], str):
        return
    if args[0].partition(".")[0] not in _GATED:
        return
    with _lock:  # one reader of the FIFO; the others wait for it
        if not _opened.is_set() and _FIFO:
            with open(_FIFO, "rb", buffering=0) as gate:
                gate.read(1)
            _opened.set()


if _FIFO and _GATED:
    sys.addaudithook(_gate)
