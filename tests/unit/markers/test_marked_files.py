"""A lookup of one file's markers costs that file, not the repository: the files with markers are read once per
generation of writes and looked for on disk once per (HEAD, index), so a file without markers reads no other file's
markers and looks for no file (the typist's ``codeLens`` right after a checkout). Renames stay followed: a
``git mv`` (its index change), a rename committed and checked out, markers written meanwhile."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git
from tether_lsp.handlers.markers.calculator import Location
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.handlers.markers.store import MarkerStore
from tether_lsp.server.thread_host import ThreadHost

from .test_state_service import placing

BODY = "def f(x):\n    return x + 1\n"
FILES = 30


def marked_repo(root: Path, state: MarkersState) -> list[Path]:
    """``FILES`` committed files (names of one length: a rename between two keeps the index's size), one marker each."""
    paths = [root / f"m{k:02}.py" for k in range(FILES)]
    for path in paths:
        path.write_text(BODY)
    (root / "plain.py").write_text(BODY)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "files")
    for path in paths:
        state.create(placing(path.as_uri(), Location(1, 1, 2, 17)), "note", "comment")
    return paths


def settle(host: ThreadHost, state: MarkersState, root: Path) -> None:
    """Until the HEAD syncs that lookups asked for have ended (none runs on past the test)."""
    done = threading.Event()

    def wait() -> None:
        asyncio.ensure_future(state.sync.synced(root)).add_done_callback(lambda _: done.set())

    host.call_on_loop(wait)
    assert done.wait(60)


@contextmanager
def watching(monkeypatch: pytest.MonkeyPatch, paths: list[Path]) -> Iterator[dict[str, list[Any]]]:
    """Records each read of every marker's file name and each look on disk for one of ``paths``, by this thread (the
    lookups' own; the HEAD sync's thread works meanwhile)."""
    seen: dict[str, list[Any]] = {"read": [], "looked": []}
    names, me = {str(p) for p in paths}, threading.get_ident()
    stat, uris_under = os.stat, MarkerStore.uris_under

    def spy_stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) in names and threading.get_ident() == me:
            seen["looked"].append(str(path))
        return stat(path, *args, **kwargs)

    def spy_uris_under(self: MarkerStore, prefix: str) -> list[str]:
        if threading.get_ident() == me:
            seen["read"].append(prefix)
        return uris_under(self, prefix)

    with monkeypatch.context() as patched:
        patched.setattr(os, "stat", spy_stat)
        patched.setattr(MarkerStore, "uris_under", spy_uris_under)
        yield seen


def test_a_file_without_markers_reads_no_other_file_and_looks_for_none(
    served: tuple[Path, MarkersState, ThreadHost], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state, host = served
    paths = marked_repo(root, state)
    typed = (root / "typed.py").as_uri()  # open, not on disk, no marker: the benchmark's typist
    plain = (root / "plain.py").as_uri()
    assert state.locate_now(typed, "x = 1\n").located == []  # the first lookup at this HEAD looks for them once
    with watching(monkeypatch, paths) as seen:
        for _ in range(3):
            assert state.locate_now(typed, "x = 1\n").located == []
            assert state.locate_now(plain, None).located == []
    assert seen == {"read": [], "looked": []}
    with watching(monkeypatch, paths) as seen:  # a file with markers looks at itself alone
        assert [len(state.locate_now(p.as_uri(), None).located) for p in paths[:2]] == [1, 1]
    assert seen["read"] == [] and set(seen["looked"]) <= {str(p) for p in paths[:2]}

    (root / "plain.py").write_text(BODY + "# more\n")
    git(root, "commit", "-q", "-am", "a new HEAD")
    with watching(monkeypatch, paths) as seen:
        for _ in range(3):
            assert state.locate_now(typed, "x = 1\n").located == []
    assert seen["read"] == []  # no marker written: the same files have markers
    assert sorted(seen["looked"]) == sorted(str(p) for p in paths)  # once at the new HEAD, not at each lookup
    settle(host, state, root)


def test_a_staged_rename_is_followed_after_lookups_were_kept(served: tuple[Path, MarkersState, ThreadHost]) -> None:
    root, state, host = served
    paths = marked_repo(root, state)
    typed = (root / "typed.py").as_uri()
    assert state.locate_now(typed, "x = 1\n").located == []
    git(root, "mv", "m03.py", "n03.py")  # same length: the index keeps its size, its checksum changes
    (moved,) = state.locate_now((root / "n03.py").as_uri(), None).located
    assert (moved.record.uri, moved.location) == ((root / "n03.py").as_uri(), Location(1, 1, 2, 17))
    assert state.locate_now(paths[3].as_uri(), None).located == []
    settle(host, state, root)


def test_a_rename_checked_out_and_markers_written_meanwhile_are_followed(
    served: tuple[Path, MarkersState, ThreadHost],
) -> None:
    root, state, host = served
    marked_repo(root, state)
    typed = (root / "typed.py").as_uri()
    git(root, "checkout", "-q", "-b", "renamed")
    git(root, "mv", "plain.py", "later.py")
    git(root, "commit", "-q", "-m", "plain -> later")
    git(root, "checkout", "-q", "main")
    assert state.locate_now(typed, "x = 1\n").located == []  # kept: plain.py has no marker, nothing is gone
    state.create(placing((root / "plain.py").as_uri(), Location(2, 5, 2, 17)), "new", "comment")
    git(root, "checkout", "-q", "renamed")
    (moved,) = state.locate_now((root / "later.py").as_uri(), None).located
    assert (moved.record.note, moved.record.uri) == ("new", (root / "later.py").as_uri())
    settle(host, state, root)
