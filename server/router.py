"""The router: every feature's method table registered with pygls, and kept for lookups and the docs.

It is the only code that registers handlers (``TetherServer.feature`` refuses), so a method exists on the wire
exactly when a table row declares it. Each row is checked against its handler first (:meth:`Method.problem`),
and a name declared twice is refused: both are mistakes a test of the assembled server catches at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from pygls.lsp.server import LanguageServer

from .methods import Command, Feature, Method, Notice
from .protocol import TetherProtocol
from .reporting import guarded


class Routable(Protocol):
    """What the router needs of the server."""

    protocol: TetherProtocol

    def run_blocking(self, fn: Callable[..., Any], *args: Any) -> Coroutine[Any, Any, Any]: ...


@dataclass(frozen=True)
class Route:
    """An installed row: the feature that declared it and the row itself."""

    feature: str
    method: Method[Any]


class Router:
    """The installed method tables of one server."""

    def __init__(self, server: Routable) -> None:
        self._server = server
        self._routes: dict[str, Route] = {}
        self._notices: dict[str, tuple[str, Notice]] = {}
        self._commands: dict[str, str] = {}

    def install(self, feature: Feature[Any]) -> Any:
        """Build the feature's context (``feature.setup``) and register its rows; returns the context."""
        for method in feature.methods:
            problem = method.problem()
            if problem is not None:
                raise ValueError(f"{feature.name}: {method.name} {problem}")
            self._check_new(method.name, feature.name)
        for notice in feature.sends:
            self._check_new(notice.name, feature.name)
        for command in feature.commands:
            if command.name in self._commands:
                raise ValueError(
                    f"{feature.name}: command {command.name} is already declared by {self._commands[command.name]}"
                )
        context = feature.setup(self._server)
        for method in feature.methods:
            self._register(feature.name, method, context)
        for notice in feature.sends:
            self._notices[notice.name] = (feature.name, notice)
            self._server.protocol.methods.add_outgoing(notice.name, notice.params)
        for command in feature.commands:
            self._commands[command.name] = feature.name
            LanguageServer.command(self._server, command.name)(_bind_command(command, context))  # type: ignore[arg-type]
        return context

    def route(self, name: str) -> Route | None:
        """Where method ``name`` is handled: its feature and table row (None: not a method of this server)."""
        return self._routes.get(name)

    def routes(self) -> list[Route]:
        """Every installed row, in the order installed."""
        return list(self._routes.values())

    def notices(self) -> list[tuple[str, Notice]]:
        """Every notification the server declares it sends, with its feature."""
        return list(self._notices.values())

    def _check_new(self, name: str, feature: str) -> None:
        owner = self._routes[name].feature if name in self._routes else self._notices.get(name, (None,))[0]
        if owner is not None:
            raise ValueError(f"{feature}: {name} is already declared by {owner}")

    def _register(self, feature: str, method: Method[Any], context: Any) -> None:
        if method.custom:
            self._server.protocol.methods.add(
                method.name, method.params, method.result, request=not method.notification
            )
        handler = _bind(method, context, self._server)
        LanguageServer.feature(self._server, method.name, method.options)(guarded(handler))  # type: ignore[arg-type]
        self._routes[method.name] = Route(feature, method)


def _bind(method: Method[Any], context: Any, server: Routable) -> Callable[[Any], Any]:
    """The row as the one-argument callable pygls calls with the params, run where the row says."""
    handler = method.handler
    bound: Callable[[Any], Any]
    if method.runs == "loop":

        def bound(params: Any) -> Any:
            return handler(context, params)

    elif method.runs == "worker":

        async def bound(params: Any) -> Any:
            work = server.run_blocking(handler, context, params)
            return await (work if method.cancellable else run_to_end(work))

    else:

        async def bound(params: Any) -> Any:
            work = handler(context, params)
            return await (work if method.cancellable or method.notification else run_to_end(work))

    # named and documented as the handler (logs, the docs), but not wrapping it: pygls reads the signature
    bound.__name__ = bound.__qualname__ = getattr(handler, "__name__", method.name)
    bound.__doc__ = handler.__doc__
    return bound


def _bind_command(command: Command[Any], context: Any) -> Callable[..., Any]:
    """The command as pygls calls it: with the command's arguments spread."""
    handler = command.handler

    def bound(*arguments: Any) -> Any:
        return handler(context, list(arguments))

    bound.__name__ = bound.__qualname__ = getattr(handler, "__name__", command.name)
    bound.__doc__ = handler.__doc__
    return bound


async def run_to_end(work: Awaitable[Any]) -> Any:
    """Await ``work`` to its end even when the awaiting request is cancelled: work that has begun (a write, say)
    finishes and its result is the answer. Only cancelling the work itself (the loop closing) stops it."""
    task = asyncio.ensure_future(work)
    while True:
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():
                raise
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
