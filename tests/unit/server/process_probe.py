"""What tests run in a worker process to look at it: a module that imports nothing else, so that what the child
has imported is what the server's processes made it import."""

from __future__ import annotations

import os
import sys


def pid_and_modules() -> tuple[int, list[str]]:
    """Child: its process id and what it has imported."""
    return os.getpid(), sorted(sys.modules)


def stdout_is_stderr() -> bool:
    """Child: whether what it writes to its standard output goes where its standard error goes."""
    return os.path.samestat(os.fstat(1), os.fstat(2))
