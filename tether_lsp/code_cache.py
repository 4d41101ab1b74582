"""A disk cache of the methods attrs and dataclasses generate, so start-up does not compile them every time.

Why: importing ``lsprotocol.types`` (pygls needs it) defines about 570 attrs classes, and attrs writes and
compiles ``__init__``/``__eq__``/``__repr__``… for each: some 800 calls to ``compile`` that take about 80 ms
of the ~160 ms import, on every start of every editor window. Tether's own modules define some 200
dataclasses, whose ~550 generated methods cost as much again. The generated source is the same each time, so
its compiled code objects are kept in one ``marshal`` file in the user cache folder, keyed by a hash of the
source and its file name; the file's name carries the Python version and bytecode magic, so a code object is
only ever loaded by the interpreter that compiled it.

This wraps one private function of attrs (``attr._make._compile_and_eval``) and the ``exec`` that
``dataclasses`` calls (a name in its module, compiled here exactly as ``exec`` would: no inherited future
flags); when attrs no longer has that function, or anything about the cache is off (missing, corrupt,
unwritable, ``TETHER_CODE_CACHE=0``), they compile as they always did. Loading is a few ms; the file is
rewritten only when much was compiled anew.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from types import CodeType
from typing import Any

try:  # not hashlib: importing it loads OpenSSL (~5 ms), for a hash CPython has built in
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b


def cache_file() -> Path:
    tag = f"{sys.implementation.cache_tag}-{importlib.util.MAGIC_NUMBER.hex()}"
    # "2": the keys of this format (they carry the compile flags); older servers keep their own file
    return user_cache_dir() / f"attrs-code-2-{tag}.marshal"


def user_cache_dir() -> Path:
    """platformdirs' user cache folder of tether-lsp. On Linux it is read here as platformdirs reads it
    (``XDG_CACHE_HOME``, else ``~/.cache``): importing platformdirs there imports ``tempfile`` and, with it,
    ``shutil``, ``random`` and the compression modules, which start-up has no other use for."""
    if sys.platform == "linux" and not hasattr(sys, "getandroidapilevel"):
        base = os.environ.get("XDG_CACHE_HOME", "")
        return Path(base if base.strip() else os.path.expanduser("~/.cache")) / "tether-lsp"
    import platformdirs

    return Path(platformdirs.user_cache_dir("tether-lsp"))


def _key(script: str, filename: str, inherit: bool) -> bytes:
    return blake2b(f"{filename}\0{int(inherit)}\0{script}".encode(), digest_size=16).digest()


class CodeCache:
    """Compiled code by source hash: what was on disk, and what this process had to compile."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.known: dict[bytes, bytes] = {}
        self.used: dict[bytes, bytes] = {}  # what this process needed: the next file holds just these
        self.new: dict[bytes, bytes] = {}
        self.hits = 0
        try:
            loaded = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            loaded = {}
        if isinstance(loaded, dict):
            self.known = loaded

    def compile(self, script: str, filename: str, inherit: bool = True) -> CodeType:
        """``compile(script, filename, "exec")``; ``inherit=False``: without this module's future flags, as
        ``exec`` compiles a string for a module that has none (``dataclasses``)."""
        key = _key(script, filename, inherit)
        data = self.known.get(key)
        if data is not None:
            try:
                code = marshal.loads(data)
            except (EOFError, ValueError, TypeError):
                code = None
            if isinstance(code, CodeType):
                self.hits += 1
                self.used[key] = data
                return code
        code = compile(script, filename, "exec", dont_inherit=not inherit)
        self.new[key] = self.used[key] = marshal.dumps(code)
        return code

    @property
    def worth_saving(self) -> bool:
        """Something new beyond the odd class whose generated source varies per process (set order)."""
        return len(self.new) > max(2, len(self.used) // 50)

    def save(self) -> None:
        """Write what this process used, atomically (several servers may start at once, and entries of older
        versions of lsprotocol/attrs drop out); errors only cost speed."""
        # A name of this process and thread, as mkstemp would give (tempfile is not imported for it: it brings
        # shutil, random and the compression modules into every start that saves).
        tmp = self.path.parent / f".attrs-code-{os.getpid()}-{threading.get_ident()}"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(marshal.dumps(self.used))
            os.replace(tmp, self.path)
        except OSError:
            pass


def install(path: Path | None = None) -> CodeCache | None:
    """Route attrs' compilation through the cache (before anything defines attrs classes)."""
    if os.environ.get("TETHER_CODE_CACHE", "1") == "0":
        return None
    try:
        from attr import _make
    except ImportError:  # pragma: no cover - attrs is a dependency of pygls
        return None
    original = getattr(_make, "_compile_and_eval", None)
    if original is None or getattr(original, "__code__", None) is None or original.__code__.co_argcount != 4:
        return None  # attrs changed: leave it alone
    cache = CodeCache(path or cache_file())

    def compile_and_eval(
        script: str, globs: dict[str, Any] | None, locs: Mapping[str, object] | None = None, filename: str = ""
    ) -> None:
        eval(cache.compile(script, filename), globs, locs)

    _make._compile_and_eval = compile_and_eval
    _cache_dataclasses(cache)
    return cache


def _cache_dataclasses(cache: CodeCache) -> None:
    """Route the ``exec`` of the methods ``dataclasses`` writes through the cache (its module looks ``exec`` up
    in its globals before the builtins)."""
    import dataclasses

    if "exec" in vars(dataclasses):
        return  # someone else replaced it: leave it alone

    def cached_exec(source: Any, globs: dict[str, Any] | None = None, locs: Mapping[str, object] | None = None) -> None:
        if isinstance(source, str):
            source = cache.compile(source, "<string>", inherit=False)
        exec(source, globs, locs)

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]


def save_in_background(cache: CodeCache | None) -> None:
    """Write the cache from a daemon thread, so start-up goes on (a write cut short only costs speed)."""
    if cache is not None and cache.worth_saving:
        threading.Thread(target=cache.save, name="tether-code-cache", daemon=True).start()
