"""memory.py: the mmap threshold is fixed where glibc allows it, and nothing breaks where it does not."""

from __future__ import annotations

import ctypes
import sys

import pytest

from tether_lsp.server import memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_the_threshold_is_fixed_on_linux() -> None:
    assert memory.fix_mmap_threshold() is True


def test_an_allocator_without_mallopt_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoMallopt:
        def __init__(self, _name: object) -> None:
            pass

        def __getattr__(self, name: str) -> object:
            raise AttributeError(name)

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert memory.fix_mmap_threshold() is False


def test_other_systems_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert memory.fix_mmap_threshold() is False
