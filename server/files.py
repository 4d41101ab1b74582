"""Files on disk as features read them: ``file://`` uris to paths, and bounded reads of regular files only.

Why: a marker or a task may name any uri. Reading ``/dev/zero``, a FIFO or a 30 MB log would read forever,
block forever or fill memory; so only regular files no larger than ``tether.limits.maxFileBytes`` are read,
and the check is made on the open descriptor (a path swapped for a FIFO after a ``stat`` cannot slip by).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from urllib.parse import unquote, urlparse

from .offloop import assert_off_loop


class FileRefused(ValueError):
    """The path exists but is not read: not a regular file, or over the size limit (the message says which)."""


def uri_to_path(uri: str) -> Path | None:
    """The local path of a ``file://`` uri; None for other schemes and for paths that cannot exist."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if "\x00" in path:
        return None
    return Path(path)


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes; OSError when it cannot be opened, FileRefused when it must not be read."""
    assert_off_loop(f"reading {path}")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{path} is not a regular file")
        if info.st_size > max_bytes:
            raise FileRefused(f"{path} has {info.st_size} bytes, over tether.limits.maxFileBytes ({max_bytes})")
        chunks, left = [], max_bytes + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:  # it grew while being read
            raise FileRefused(f"{path} is over tether.limits.maxFileBytes ({max_bytes})")
        return data
    finally:
        os.close(fd)


def read_text(path: Path, max_bytes: int) -> str:
    """The file as text (invalid UTF-8 replaced); errors as :func:`read_bytes`."""
    return read_bytes(path, max_bytes).decode("utf-8", errors="replace")


def file_exists(uri: str) -> bool:
    """Whether a ``file://`` uri names an existing file or folder (False for other schemes)."""
    path = uri_to_path(uri)
    return path is not None and path.exists()


def file_uri_spellings(uri: str) -> list[str]:
    """``uri`` and, when it differs, the spelling ``Path.as_uri`` gives the same file (clients percent-encode
    differently from Python; what git reports is turned into uris by ``Path.as_uri``)."""
    path = uri_to_path(uri)
    if path is None or not path.is_absolute() or path.as_uri() == uri:
        return [uri]
    return [uri, path.as_uri()]


def same_file(a: str, b: str) -> bool:
    """Two uris of one file, whatever their percent-encoding."""
    pa, pb = uri_to_path(a), uri_to_path(b)
    return pa is not None and pa == pb
