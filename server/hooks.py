"""How features hook into the runtime: named, typed registrations instead of shared lists.

A feature's ``register`` calls ``server.on_document``, ``on_settings``, ``on_initialized``,
``on_shutdown_begin`` and ``on_shutdown``; the runtime runs each kind of hook at its moment, in the order the
hooks were added, and one hook failing never stops the others (it is logged). The lists stay private here,
so that what a feature may do with them is what the methods say.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from .errors import is_shutting_down
from .settings import Settings
from .syntax import Snapshot

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DocumentEvent:
    """What happened to a document; listeners run after the snapshot is updated."""

    kind: str  # "open" | "change" | "close" | "save"
    uri: str
    snapshot: Snapshot | None


#: The server the hooks are given (a type parameter: this module sits below the server that uses it).
S = TypeVar("S")
DocumentListener = Callable[[DocumentEvent], None]
SettingsListener = Callable[[Settings], None]
ShutdownHook = Callable[[], None]


class Hooks(Generic[S]):
    """The hooks features added, by kind, and running them."""

    def __init__(self) -> None:
        self._document: list[DocumentListener] = []
        self._settings: list[SettingsListener] = []
        self._initialized: list[Callable[[S], Awaitable[None]]] = []
        self._shutdown_begin: list[ShutdownHook] = []
        self._shutdown: list[ShutdownHook] = []

    def on_document(self, listener: DocumentListener) -> None:
        self._document.append(listener)

    def on_settings(self, listener: SettingsListener) -> None:
        self._settings.append(listener)

    def on_initialized(self, hook: Callable[[S], Awaitable[None]]) -> None:
        self._initialized.append(hook)

    def on_shutdown_begin(self, hook: ShutdownHook) -> None:
        self._shutdown_begin.append(hook)

    def on_shutdown(self, hook: ShutdownHook) -> None:
        self._shutdown.append(hook)

    def document_changed(self, event: DocumentEvent) -> None:
        for listener in self._document:
            try:
                listener(event)
            except Exception:  # one feature failing never fails another
                log.exception("document listener %r failed on %s %s", listener, event.kind, event.uri)

    def settings_changed(self, settings: Settings) -> None:
        for listener in self._settings:
            listener(settings)

    async def initialized(self, server: S) -> None:
        for hook in self._initialized:
            try:
                await hook(server)
            except Exception as exc:  # one feature failing never fails another
                if is_shutting_down(exc):  # the client shut down before start-up work ended: nothing failed
                    log.debug("initialized hook %r: the server is shutting down", hook)
                else:
                    log.exception("initialized hook %r failed", hook)

    def shutdown_begins(self) -> None:
        _run_each(self._shutdown_begin)

    def shutdown(self) -> None:
        _run_each(self._shutdown)


def _run_each(hooks: list[ShutdownHook]) -> None:
    for hook in hooks:
        try:
            hook()
        except Exception:
            log.exception("shutdown hook %r failed", hook)
