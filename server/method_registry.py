"""The custom ``tether/*`` methods one server knows, both directions, and the message classes pygls structures.

Why a registry of our own: pygls structures a custom method's params into an untyped object unless
``get_message_type`` names a class for the whole message; each registered method gets one, made from its params
class on first use. The same table lists every method for the generated protocol reference.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

import attrs


@dataclass(frozen=True)
class MethodSpec:
    """A custom method: its params class (None: any JSON), result class, whether it is a request, and who
    sends it (``client``: the editor, handled here; ``server``: a notification Tether sends)."""

    method: str
    params: type[Any] | None
    result: type[Any] | None
    request: bool
    sender: str = "client"


class MethodRegistry:
    """The custom methods one server knows, both directions; owned by its protocol, filled by ``register``."""

    def __init__(self) -> None:
        self._incoming: dict[str, MethodSpec] = {}
        self._outgoing: dict[str, MethodSpec] = {}
        self._message_types: dict[str, type[Any]] = {}

    def add(self, method: str, params: type[Any] | None, result: type[Any] | None = None, *, request: bool) -> None:
        """Declare a method the client sends: its params (and result) classes."""
        self._incoming[method] = MethodSpec(method, params, result, request)
        self._message_types.pop(method, None)

    def add_outgoing(self, method: str, params: type[Any]) -> None:
        """Declare a notification the server sends (documented with the rest; never dispatched here)."""
        self._outgoing[method] = MethodSpec(method, params, None, False, "server")

    def get(self, method: str) -> MethodSpec | None:
        """The spec of a method the client sends, or None."""
        return self._incoming.get(method)

    def all(self) -> list[MethodSpec]:
        """Every custom method, both directions, by name (for the generated protocol reference)."""
        return sorted([*self._incoming.values(), *self._outgoing.values()], key=lambda spec: spec.method)

    def message_type(self, spec: MethodSpec) -> type[Any]:
        """The attrs class of a whole message of ``spec``'s method (made once, then kept)."""
        cached = self._message_types.get(spec.method)
        if cached is None:
            cached = self._message_types[spec.method] = _make_message_type(spec)
        return cached


def _make_message_type(spec: MethodSpec) -> type[Any]:
    fields: dict[str, Any] = {}
    if spec.request:
        message_id: Any = int | str
        fields["id"] = attrs.field(type=message_id)
    params_type = spec.params if spec.params is not None else typing.Any
    fields["params"] = (
        attrs.field(type=params_type) if spec.params is not None else attrs.field(type=params_type, default=None)
    )
    fields["method"] = attrs.field(type=str, default=spec.method)
    fields["jsonrpc"] = attrs.field(type=str, default="2.0")
    name = "".join(part[:1].upper() + part[1:] for part in spec.method.replace("/", "_").split("_"))
    return attrs.make_class(name + ("Request" if spec.request else "Notification"), fields)


def all_optional(cls: type[Any]) -> bool:
    return attrs.has(cls) and all(a.default is not attrs.NOTHING for a in attrs.fields(cls))
