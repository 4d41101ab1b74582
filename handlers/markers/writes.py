"""This process's writes of markers, counted: what is read of the files with markers (:mod:`.marked_files`) is kept
until the count moves. Apart so that the store can count without importing what reads it."""

from __future__ import annotations

import threading

_lock = threading.Lock()
_count = 0


def markers_written() -> None:
    """Any thread, once a write of markers is committed (or another process's is noticed): the files with markers
    may have changed. After the commit, never before: a read that started before it is then never kept."""
    global _count
    with _lock:
        _count += 1


def writes_counted() -> int:
    """How many times :func:`markers_written` was called in this process."""
    return _count
