"""Modules loaded on first use: what start-up does not need is not imported at start-up.

Why: SQLAlchemy alone costs ~90 ms to import, and nothing touches the database before the client is
initialized; a feature whose storage modules are loaded lazily answers ``initialize`` that much sooner.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """``name`` as a module object whose code runs the first time one of its attributes is read."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
