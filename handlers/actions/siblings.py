"""A container's members as a sequence made on demand: a module can have thousands of statements, and an action
on one of them looks at a few neighbours, so each member object is built only when asked for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload

from .model import Member


class Siblings(Sequence[Member]):
    """``make(box, k)`` for ``k`` in ``range(count)``, built when indexed."""

    def __init__(self, box: Any, count: int, make: Callable[[Any, int], Member]) -> None:
        self._box, self._count, self._make = box, count, make

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Member: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Member]: ...

    def __getitem__(self, index: int | slice) -> Member | Sequence[Member]:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(self._count))]
        if not -self._count <= index < self._count:
            raise IndexError(index)
        return self._make(self._box, index % self._count)
