"""While a HEAD sync runs, the interpreter passes between threads every ``sync.SWITCH_S`` (the loop waits at most
that to take it back from the sync's thread after each of its reads and writes), and Python's own interval is
back once the last sync running ends."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from tests.helpers import commit_all, git
from tether_lsp.handlers.markers import sync, tracking

from .test_head_change_work import FILES, module, seed, served, shift


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name in FILES:
        (root / name).write_text(module(name[0]), encoding="utf-8")
    commit_all(root, "c0")
    return root


def test_a_sync_runs_with_quick_switches_and_gives_the_interval_back(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = sys.getswitchinterval()
    assert before > sync.SWITCH_S
    seen: list[float] = []
    real = tracking.at_head

    def at_head(*args: object, **kwargs: object) -> tracking.HeadResult:
        seen.append(sys.getswitchinterval())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(f"{sync.__name__}.tracking.at_head", at_head)  # the sync reads it through its lazy stand-in
    host, state = served(repo)
    try:
        seed(state, repo)
        state.sync.sync_repo(repo)
        shift(repo, "a.py", 1)
        commit_all(repo, "c1")
        state.sync.sync_repo(repo)
    finally:
        host.close()
    assert seen and set(seen) == {sync.SWITCH_S}
    assert sys.getswitchinterval() == before


def test_overlapping_syncs_give_the_interval_back_when_the_last_one_ends() -> None:
    before = sys.getswitchinterval()
    first_in, second_done, first_may_end = threading.Event(), threading.Event(), threading.Event()
    during: list[float] = []

    def first() -> None:
        with sync.quick_switches():
            first_in.set()
            assert first_may_end.wait(30)
            during.append(sys.getswitchinterval())

    runner = threading.Thread(target=first)
    runner.start()
    assert first_in.wait(30)
    with sync.quick_switches():
        during.append(sys.getswitchinterval())
    second_done.set()
    during.append(sys.getswitchinterval())  # the first sync still runs
    first_may_end.set()
    runner.join(30)
    assert during == [sync.SWITCH_S, sync.SWITCH_S, sync.SWITCH_S]
    assert sys.getswitchinterval() == before
