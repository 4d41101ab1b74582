"""Typed settings: ``initializationOptions`` and ``workspace/configuration`` section ``tether``.

Why this shape: ``server/`` knows no feature, yet settings must be validated in one place. Each feature
declares a frozen dataclass of its settings (field names = the camelCase keys on the wire, defaults = the
documented defaults) and registers it under a section name; :func:`parse` validates a raw JSON object
against all registered sections. A wrongly typed value is rejected with a warning naming the key and the
default is kept; unknown keys produce one warning naming them. Both nested (``{"database": {"url": ..}}``)
and dotted (``{"database.url": ..}``) keys are accepted, as editors send either.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class DatabaseSettings:
    """Where persistent data lives (markers, playground state)."""

    #: SQLAlchemy URL; a PostgreSQL URL shares data with a team. None: the default SQLite file.
    url: str | None = None


@dataclass(frozen=True, slots=True)
class LogSettings:
    """How much the server logs to the client (``window/logMessage``)."""

    level: str = "info"


_SECTIONS: dict[str, type[Any]] = {"database": DatabaseSettings, "log": LogSettings}
_CHOICES: dict[str, tuple[str, ...]] = {"log.level": ("debug", "info", "warning", "error")}


def register_section(name: str, cls: type[Any], choices: Mapping[str, tuple[str, ...]] | None = None) -> None:
    """Declare a feature's settings section (a frozen dataclass with defaults for every field)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    _SECTIONS[name] = cls
    for key, allowed in (choices or {}).items():
        _CHOICES[f"{name}.{key}"] = allowed


@dataclass(frozen=True)
class Settings:
    """A validated set of settings: one dataclass instance per registered section."""

    values: Mapping[str, Any] = field(default_factory=dict)

    def section(self, cls: type[T]) -> T:
        """The settings of the section declared by ``cls`` (defaults when none were given)."""
        for name, registered in _SECTIONS.items():
            if registered is cls:
                value = self.values.get(name)
                return value if isinstance(value, cls) else cls()
        raise KeyError(f"settings section {cls.__name__} is not registered")


def _flatten(raw: Mapping[str, Any], leaves: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects to dotted keys, stopping at registered leaves."""
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and dotted not in leaves:
            flat.update(_flatten(value, leaves, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def _leaf_keys() -> dict[str, tuple[str, type[Any], str]]:
    """Every known dotted key -> (section name, section class, field name)."""
    return {f"{name}.{f.name}": (name, cls, f.name) for name, cls in _SECTIONS.items() for f in dataclasses.fields(cls)}


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if origin is list:
        (inner,) = typing.get_args(tp) or (Any,)
        return f"a list of {_type_name(inner)}"
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", type(None): "null"}
    return names.get(tp, getattr(tp, "__name__", str(tp)))


def _check(value: Any, tp: Any) -> bool:
    """Strict JSON type check: a boolean is not a number, 1.5 is not an integer."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return any(_check(value, arg) for arg in typing.get_args(tp))
    if origin is list:
        (inner,) = typing.get_args(tp) or (Any,)
        return isinstance(value, list) and all(_check(v, inner) for v in value)
    if origin is dict or tp is dict:
        return isinstance(value, dict)
    if tp is Any:
        return True
    if tp is type(None):
        return value is None
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(tp, type):
        return isinstance(value, tp)
    return False


def parse(*sources: Mapping[str, Any] | None) -> tuple[Settings, list[str]]:
    """Validate raw settings objects (later sources override earlier ones).

    Returns the settings and human-readable warnings (unknown keys, wrong types) to log.
    """
    leaves = _leaf_keys()
    merged: dict[str, Any] = {}
    for source in sources:
        if source is not None:
            merged.update(_flatten(source, leaves))
    given: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    unknown = sorted(k for k in merged if k not in leaves)
    if unknown:
        warnings.append("ignoring unknown settings: " + ", ".join(f"tether.{k}" for k in unknown))
    for key, value in merged.items():
        if key not in leaves:
            continue
        section, cls, name = leaves[key]
        hint = typing.get_type_hints(cls)[name]
        allowed = _CHOICES.get(key)
        if not _check(value, hint):
            default = getattr(cls(), name)
            warnings.append(
                f"setting tether.{key}: expected {_type_name(hint)}, got {value!r}; keeping the default {default!r}"
            )
            continue
        if allowed is not None and value not in allowed:
            default = getattr(cls(), name)
            warnings.append(
                f"setting tether.{key}: expected one of {', '.join(allowed)}, got {value!r}; "
                f"keeping the default {default!r}"
            )
            continue
        given.setdefault(section, {})[name] = float(value) if hint is float else value
    values: dict[str, Any] = {}
    for name, cls in _SECTIONS.items():
        values[name] = cls(**given.get(name, {}))
    return Settings(values), warnings


def extract_tether(raw: Any, *, bare: bool = True) -> Mapping[str, Any] | None:
    """The ``tether`` object of an initializationOptions / didChangeConfiguration payload, if any.

    ``bare``: a payload without a ``tether`` key is itself the tether object (initializationOptions).
    """
    if not isinstance(raw, Mapping):
        return None
    inner = raw.get("tether")
    if isinstance(inner, Mapping):
        return inner
    return raw if bare else None
