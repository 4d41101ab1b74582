"""Modules loaded on first use: what start-up does not need is not imported at start-up.

Why: SQLAlchemy alone costs ~90 ms to import, and nothing touches the database before the client is
initialized; a feature whose storage modules are loaded lazily answers ``initialize`` that much sooner.

Not ``importlib.util.LazyLoader``: on Python 3.11 a second thread can see its module half-loaded (an
``AttributeError`` seen in CI when two workers first used the markers store at once). Here the first
attribute read goes through ``importlib.import_module``, whose per-module lock makes every other thread
wait for the finished module.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any


class _Lazy(ModuleType):
    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self.__name__)  # thread-safe: returns the fully loaded module
        self.__dict__.update(module.__dict__)  # later reads skip this method
        return getattr(module, attribute)


def lazy_module(name: str) -> ModuleType:
    """A stand-in for module ``name`` that imports it the first time one of its attributes is read."""
    return _Lazy(name)


def imported(name: str) -> bool:
    """Whether module ``name`` is imported, and not half-way (another thread may be importing it): code that has a
    path without it can take that path rather than wait."""
    module = sys.modules.get(name)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)
