"""Files as the agents' front sees them: paths confined to the roots, texts read from disk with a version (a short
hash of the content), outside changes noticed before every tool call, and atomic writes.

Confinement: a path is resolved (``..`` folded, every symlink followed) before anything is read or written, and
refused unless the real path lies inside one of the roots, which are themselves resolved. Writes go to the real
path, through a temporary file in the same folder and a rename, so a reader sees the old text or the new one,
never half of one; the file's permissions are kept.

Text: UTF-8, with or without a byte-order mark (kept as it was). Files with a NUL byte count as binary, other
encodings are refused with a message that says so; nothing is decoded with replacement characters, so a write
can never change bytes the agent did not touch.

Outside changes: each file's size, modification time and inode are remembered with its version; when they
differ the file is read and hashed again. A file modified within the last two seconds is always hashed again,
because a second write in the same clock tick may leave size and time unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tether_lsp.server.documents import ByteEdit
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.files import FileRefused, read_bytes

BOM = b"\xef\xbb\xbf"
#: Byte-order marks of the encodings refused, and their names.
OTHER_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
#: Seconds after a modification during which size and time are not trusted to show a change.
RACY_SECONDS = 2.0


def version_of(data: bytes) -> str:
    """A file's version: the first 12 hex digits of the SHA-256 of its bytes."""
    return hashlib.sha256(data).hexdigest()[:12]


@dataclass(frozen=True)
class FileText:
    """One version of a file inside the roots."""

    path: Path  # the real path (symlinks resolved)
    shown: str  # how answers name it: relative to its root
    data: bytes  # the bytes on disk, byte-order mark included
    version: str

    @property
    def bom(self) -> bool:
        return self.data.startswith(BOM)

    @property
    def text(self) -> bytes:
        """The UTF-8 text engines work on (without the byte-order mark)."""
        return self.data[len(BOM) :] if self.bom else self.data


def check_text(data: bytes, shown: str, field: str = "path") -> None:
    """Refuse what is not UTF-8 text, naming the file and why."""
    for mark, name in OTHER_BOMS:
        if data.startswith(mark):
            raise InvalidParams(field, f"{shown} is {name} text (byte-order mark); only UTF-8 files are read")
    if b"\x00" in data:
        raise InvalidParams(field, f"{shown} is a binary file (it holds NUL bytes); only text files are read")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidParams(
            field,
            f"{shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); only UTF-8 files "
            "are read",
        ) from None


class Roots:
    """The folders an agent may read and write in, and the confinement of every path to them."""

    def __init__(self, folders: list[Path]) -> None:
        if not folders:
            raise ValueError("at least one --root is needed")
        resolved = []
        for folder in folders:
            real = folder.resolve()
            if not real.is_dir():
                raise ValueError(f"--root {folder}: not a folder")
            resolved.append(real)
        self.folders = resolved

    def describe(self) -> str:
        return ", ".join(str(f) for f in self.folders)

    def resolve(self, given: str, field: str = "path") -> tuple[Path, str]:
        """The real path of ``given`` (relative to a root, or absolute inside one) and how answers show it."""
        if not given or "\x00" in given:
            raise InvalidParams(field, "expected a file path relative to a root (or absolute inside one)")
        candidates = [Path(given)] if os.path.isabs(given) else [root / given for root in self.folders]
        # a relative path names the file in the first root that has it (the first root when none has)
        existing = [c for c in candidates if os.path.lexists(c)]
        candidate = (existing or candidates)[0]
        real = Path(os.path.realpath(candidate))
        _usable(real, given, field)
        for root in self.folders:
            if real == root or real.is_relative_to(root):
                if real == root:
                    raise InvalidParams(field, f"{given!r} is a root folder, not a file")
                return real, self.shown(real, root)
        raise InvalidParams(
            field, f"{given!r} resolves to {real}, outside the roots ({self.describe()}): refused", kind="outsideRoots"
        )

    def shown(self, real: Path, root: Path) -> str:
        """Relative to its root; absolute when a relative name would lead to an earlier root's file."""
        relative = real.relative_to(root).as_posix()
        for other in self.folders:
            if other == root:
                return relative
            if os.path.lexists(other / relative):
                return str(real)
        return relative  # pragma: no cover - root is one of the folders


def _usable(real: Path, given: str, field: str) -> None:
    """Refuse a path the file system cannot look up at all (a name too long, a loop of links), naming it: a
    file that does not exist yet is fine (the tool says so itself)."""
    try:
        os.lstat(real)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        raise InvalidParams(field, f"{given[:80]!r} cannot be used as a path: {exc.strerror}") from None


@dataclass(frozen=True)
class _Seen:
    size: int
    mtime_ns: int
    inode: int
    file: FileText


class Files:
    """Reads files inside the roots, noticing outside changes (see the module docstring), and writes them."""

    unsaved_writes = False  # written to disk

    def __init__(self, roots: Roots, max_bytes: int) -> None:
        self.roots = roots
        self.max_bytes = max_bytes
        self._seen: dict[Path, _Seen] = {}

    def load(self, given: str, field: str = "path") -> FileText:
        """The file's current text (read again only when it changed on disk)."""
        real, shown = self.roots.resolve(given, field)
        try:
            info = os.stat(real)
        except FileNotFoundError:
            self._seen.pop(real, None)
            raise InvalidParams(field, f"{shown}: no such file (deleted or renamed?)", kind="fileNotFound") from None
        except OSError as exc:
            raise InvalidParams(field, f"{shown}: {exc.strerror}") from None
        if stat.S_ISDIR(info.st_mode):
            raise InvalidParams(field, f"{shown} is a folder, not a file")
        seen = self._seen.get(real)
        fresh = time.time_ns() - info.st_mtime_ns > RACY_SECONDS * 1e9
        if (
            seen is not None
            and fresh
            and (seen.size, seen.mtime_ns, seen.inode) == (info.st_size, info.st_mtime_ns, info.st_ino)
            and seen.file.shown == shown
        ):
            return seen.file
        try:
            data = read_bytes(real, self.max_bytes)
        except FileRefused as exc:
            raise InvalidParams(field, str(exc).replace(str(real), shown, 1), kind="fileRefused") from None
        except OSError as exc:
            raise InvalidParams(field, f"{shown}: {exc.strerror}") from None
        check_text(data, shown, field)
        file = FileText(real, shown, data, version_of(data))
        if seen is not None and seen.file.version == file.version:
            file = seen.file if seen.file.shown == shown else file
        self._seen[real] = _Seen(info.st_size, info.st_mtime_ns, info.st_ino, file)
        return file

    def write(self, file: FileText, data: bytes, edits: Sequence[ByteEdit] = ()) -> FileText:
        """Replace the file's bytes atomically (a temporary file in the same folder, then a rename); ``edits``, the
        same change as edits, are for sources that send edits (:mod:`.source`)."""
        real = file.path
        folder = real.parent
        if os.path.realpath(real) != str(real):  # a folder on the way became a symlink since the path was checked
            raise InvalidParams("path", f"{file.shown} moved behind a symlink while being edited: refused")
        try:
            mode = stat.S_IMODE(os.stat(real).st_mode)
            fd, temp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tether", dir=folder)
        except OSError as exc:
            raise InvalidParams("path", f"{file.shown}: cannot write ({exc.strerror}); nothing was changed") from None
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temp, mode)
            os.replace(temp, real)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            if isinstance(exc, OSError):
                raise InvalidParams(
                    "path", f"{file.shown}: cannot write ({exc.strerror}); nothing was changed"
                ) from None
            raise
        info = os.stat(real)
        written = FileText(real, file.shown, data, version_of(data))
        self._seen[real] = _Seen(info.st_size, info.st_mtime_ns, info.st_ino, written)
        return written
