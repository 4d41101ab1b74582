"""Method tables: every method a feature answers or sends, declared as data in one place per feature.

A feature is one :class:`Feature`: a ``setup`` that builds its context from the server (its state, settings,
storage and hooks into the runtime), the :class:`Method` rows it answers and the :class:`Notice` rows it sends.
The router (:mod:`.router`) registers the rows of every feature and is the only code that can register a
handler; the docs generator writes the protocol reference from the same rows. So "where is method X
handled" is one lookup: the row whose ``name`` is X (docs/architecture.md, "The method tables"; adding a request:
"How to add things").

The module knows nothing of the server class: a context is whatever the feature's ``setup`` returns.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

#: Where a handler runs. ``loop``: a plain function on the event loop; it answers before the next message is
#: read, so it must only compute on what the server holds. ``async``: a coroutine on the loop that hands its
#: blocking parts (git, the database, files, a model) to the workers. ``worker``: a plain function the router
#: runs whole in the worker pool.
Runs = Literal["loop", "async", "worker"]

C = TypeVar("C")


@dataclass(frozen=True)
class Method(Generic[C]):
    """One method the client sends: ``handler(context, params)`` answers it.

    ``params`` and ``result`` are the wire classes of a ``tether/*`` method (``params=None``: any JSON); a
    standard LSP method takes lsprotocol's and may give ``options`` (its registration options).
    ``cancellable``: ``$/cancelRequest`` stops the handler where it waits and the request is answered
    ``-32800``; when False, a request that has started runs to its end and is answered with its result (a
    write that has begun is never reported as cancelled). Loop handlers are never cancellable: they answer
    before a cancel can be read.
    """

    name: str
    handler: Callable[[C, Any], Any]
    params: type[Any] | None = None
    result: Any = None
    runs: Runs = "loop"
    cancellable: bool = False
    notification: bool = False
    options: Any = None

    @property
    def custom(self) -> bool:
        """A Tether method (its classes registered with the protocol), not one of LSP's own."""
        return self.name.startswith("tether/")

    def problem(self) -> str | None:
        """Why the row contradicts its handler, or None (the router refuses a contradicting row)."""
        is_coroutine = inspect.iscoroutinefunction(self.handler)
        if self.runs == "async" and not is_coroutine:
            return "runs 'async' but its handler is not a coroutine function"
        if self.runs != "async" and is_coroutine:
            return f"runs {self.runs!r} but its handler is a coroutine function (declare runs='async')"
        if self.runs == "loop" and self.cancellable:
            return "runs on the loop, which answers before a cancel is read: it cannot be cancellable"
        if self.notification and (self.cancellable or self.result is not None):
            return "is a notification: it has no result and cannot be cancelled"
        return None


@dataclass(frozen=True)
class Notice:
    """A notification the server sends to the client; ``params`` is its wire class (documented, checked)."""

    name: str
    params: type[Any]


@dataclass(frozen=True)
class Command(Generic[C]):
    """A ``workspace/executeCommand`` command: ``handler(context, arguments)`` runs on the loop."""

    name: str
    handler: Callable[[C, list[Any]], Any]


@dataclass(frozen=True)
class Feature(Generic[C]):
    """A feature as the router sees it: how to build its context, and its method table."""

    name: str
    setup: Callable[[Any], C]
    methods: Sequence[Method[C]]
    sends: Sequence[Notice] = ()
    commands: Sequence[Command[C]] = ()


def summary(method: Method[Any]) -> str:
    """The first paragraph of the handler's docstring, on one line: what the method does."""
    doc = inspect.getdoc(method.handler) or ""
    return doc.split("\n\n")[0].replace("\n", " ")
