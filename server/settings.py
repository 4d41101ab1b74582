"""Typed settings: ``initializationOptions`` and ``workspace/configuration`` section ``tether``.

Why this shape: ``server/`` knows no feature, yet settings must be validated in one place. Each feature
declares a frozen dataclass of its settings (field names = the camelCase keys on the wire, defaults = the
documented defaults), each field made with :func:`setting` so that it carries its description, range and
choices, and registers it under a section name; :func:`parse` validates a raw JSON object against all
registered sections. A wrongly typed or out-of-range value is rejected with a warning naming the key and
the default is kept; unknown keys produce one warning naming them. Both nested (``{"database": {"url": ..}}``)
and dotted (``{"database.url": ..}``) keys are accepted, as editors send either.

These dataclasses are the one description of the settings: the JSON Schema, the settings reference in
``docs/`` and VS Code's ``contributes.configuration`` are generated from them (``tether_lsp.docgen``).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .errors import type_name

T = TypeVar("T")


@dataclass(frozen=True)
class SettingInfo:
    """What a setting means and which values it accepts beyond its type (kept in the field's metadata)."""

    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None


def setting(
    default: Any = dataclasses.MISSING,
    description: str = "",
    *,
    factory: Callable[[], Any] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: Sequence[str] | None = None,
) -> Any:
    """A settings field: its default (or ``factory`` for lists), a one-sentence description, its limits."""
    if not description:
        raise ValueError("every setting needs a description")
    info = SettingInfo(description, minimum, maximum, tuple(choices) if choices is not None else None)
    if factory is not None:
        return field(default_factory=factory, metadata={"tether": info})
    return field(default=default, metadata={"tether": info})


def info_of(f: dataclasses.Field[Any]) -> SettingInfo:
    """The description and limits of a settings field (a bare field has none)."""
    info = f.metadata.get("tether")
    return info if isinstance(info, SettingInfo) else SettingInfo("")


@dataclass(frozen=True, slots=True)
class DatabaseSettings:
    """Where persistent data lives (markers, playground state)."""

    url: str | None = setting(
        None,
        "SQLAlchemy URL of the database. A PostgreSQL URL (`postgresql+psycopg://user@host/db`, needs "
        "`tether-lsp[postgres]`) shares markers with a team. null: a SQLite file in `.git/tether/tether.db` of "
        "the workspace's clone, else in the user data folder. `TETHER_DATABASE_URL` in the environment works too.",
    )


@dataclass(frozen=True, slots=True)
class LogSettings:
    """How much the server logs to the client (``window/logMessage``)."""

    level: str = setting(
        "info",
        "The least severe log level sent to the client as `window/logMessage`.",
        choices=("debug", "info", "warning", "error"),
    )


@dataclass(frozen=True, slots=True)
class LimitSettings:
    """Bounds that keep one hostile or huge input from taking the server down (``tether.limits``)."""

    maxMessageBytes: int = setting(
        64 * 1024 * 1024,
        "Largest LSP message read; a larger Content-Length is a framing error and the message is skipped.",
        minimum=1024,
    )
    maxTreeBytes: int = setting(
        8 * 1024 * 1024,
        "Largest document that is parsed. A larger one is held as text only: tree features answer -32803 "
        "`documentTooLarge`, markers still work.",
        minimum=0,
    )
    yamlMaxNesting: int = setting(
        200,
        "Deepest block nesting of a YAML document that is parsed (tree-sitter-yaml crashes past 253 levels). "
        "A deeper document is held as text only: tree features answer -32803 `documentTooDeep`.",
        minimum=1,
        maximum=240,
    )
    pythonMaxNesting: int = setting(
        200,
        "Deepest indentation of a Python document that is parsed (tree-sitter-python crashes at 384 levels; "
        "CPython refuses more than 100). A deeper document is held as text only: tree features answer -32803 "
        "`documentTooDeep`.",
        minimum=1,
        maximum=380,
    )
    treeCacheBytes: int = setting(
        3 * 512 * 1024,
        "Source bytes of open documents whose syntax trees stay in memory (a tree costs about 35 times its "
        "text: 1.5 MiB holds six 10,000-line files in about 60 MB). The trees of the documents used least "
        "recently beyond it are dropped and parsed again, with the same node ids, when next needed.",
        minimum=0,
    )
    maxSelectionRangeDepth: int = setting(
        200,
        "Most levels in one `textDocument/selectionRange` answer: the innermost ones, then the whole document "
        "(a deeper chain could not be serialised).",
        minimum=2,
        maximum=300,
    )
    maxFileBytes: int = setting(
        8 * 1024 * 1024,
        "Largest file read from disk (markers on files that are not open, task context). Only regular files "
        "are read; others are refused with -32602 naming the uri.",
        minimum=0,
    )
    historyBytes: int = setting(
        2 * 1024 * 1024,
        "Bytes of past versions kept per open document (as the edits between them), so edits a model made on "
        "an older version can still be placed.",
        minimum=64 * 1024,
    )
    historySeconds: float = setting(
        600.0,
        "Every version that was current within this many seconds is kept (within historyBytes): a model "
        "that answers after minutes of typing finds the version it saw.",
        minimum=1,
    )
    workers: int = setting(
        4,
        "Threads for blocking work (git, the database, files that are not open); taken when the first such "
        "work starts.",
        minimum=1,
        maximum=32,
    )
    processes: int = setting(
        2,
        "Worker processes for heavy pure work (finding the prompts of large files, relocating markers at a HEAD "
        "change), so that it never holds the interpreter that answers the editor; never more than the machine's "
        "cores. Each is a Python process of its own (25 MB, and up to 40 MB more for the trees it keeps; about "
        "30 MB of its own after a 10,000-marker HEAD change), forked by one more process (20 MB), started in the "
        "background after `initialized`. 0: that work runs in the worker threads instead.",
        minimum=0,
        maximum=16,
    )
    processTreeBytes: int = setting(
        512 * 1024,
        "Source bytes of the documents whose syntax trees each worker process keeps between its jobs, so that a "
        "document's next version parses from its last tree (about twice as fast as from nothing). A tree costs "
        "about 35 times its text: 512 KiB keeps some 18 MB per process. 0: every text is parsed from nothing.",
        minimum=0,
    )
    maxResponseBytes: int = setting(
        16 * 1024 * 1024,
        "Largest answer read from a model endpoint (whole body, or all streamed lines together); reading "
        "stops there and the answer counts as failed.",
        minimum=1024,
    )


#: The runtime's own sections; a feature adds its own to its server's :class:`SettingsSchema`.
CORE_SECTIONS: dict[str, type[Any]] = {"database": DatabaseSettings, "log": LogSettings, "limits": LimitSettings}


class SettingsSchema:
    """The settings sections one server knows (the core's, then each feature's), and their validation."""

    def __init__(self) -> None:
        self._sections: dict[str, type[Any]] = dict(CORE_SECTIONS)

    def register(self, name: str, cls: type[Any]) -> None:
        """Declare a feature's settings section (a frozen dataclass with defaults for every field)."""
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls!r} is not a dataclass")
        self._sections[name] = cls

    def sections(self) -> dict[str, type[Any]]:
        """Every registered section by name, in registration order (for the generated schema and docs)."""
        return dict(self._sections)

    def parse(self, *sources: Mapping[str, Any] | None) -> tuple[Settings, list[str]]:
        """Validate raw settings objects (later sources override earlier ones).

        Returns the settings and human-readable warnings (unknown keys, wrong types) to log.
        """
        return _parse(self._sections, sources)


@dataclass(frozen=True)
class Settings:
    """A validated set of settings: one dataclass instance per section of the schema that made it."""

    values: Mapping[str, Any] = field(default_factory=dict)
    sections: Mapping[str, type[Any]] = field(default_factory=lambda: dict(CORE_SECTIONS))

    def section(self, cls: type[T]) -> T:
        """The settings of the section declared by ``cls`` (defaults when none were given)."""
        for name, registered in self.sections.items():
            if registered is cls:
                value = self.values.get(name)
                return value if isinstance(value, cls) else cls()
        raise KeyError(f"settings section {cls.__name__} is not registered")

    def named(self, name: str) -> Any | None:
        """Another feature's section by its name (defaults when none were given; None when not registered), so
        one feature can fall back on another's settings without importing it."""
        cls = self.sections.get(name)
        return None if cls is None else self.section(cls)


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


def _leaf_keys(sections: Mapping[str, type[Any]]) -> dict[str, tuple[str, type[Any], dataclasses.Field[Any]]]:
    """Every known dotted key -> (section name, section class, field)."""
    return {f"{name}.{f.name}": (name, cls, f) for name, cls in sections.items() for f in dataclasses.fields(cls)}


def _out_of_range(value: Any, info: SettingInfo) -> str | None:
    """Why ``value`` breaks the setting's choices or range, or None."""
    if info.choices is not None and value not in info.choices:
        return f"expected one of {', '.join(info.choices)}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if info.minimum is not None and value < info.minimum:
            return f"expected at least {info.minimum:g}"
        if info.maximum is not None and value > info.maximum:
            return f"expected at most {info.maximum:g}"
    return None


def fits_json_type(value: Any, tp: Any) -> bool:
    """Strict JSON type check: a boolean is not a number, 1.5 is not an integer."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return any(fits_json_type(value, arg) for arg in typing.get_args(tp))
    if origin is list:
        (inner,) = typing.get_args(tp) or (Any,)
        return isinstance(value, list) and all(fits_json_type(v, inner) for v in value)
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


def _json(value: Any) -> str:
    """A value in the JSON words settings are written in (``null``, ``true``, ``"info"``), for warnings."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _parse(
    sections: Mapping[str, type[Any]], sources: tuple[Mapping[str, Any] | None, ...]
) -> tuple[Settings, list[str]]:
    leaves = _leaf_keys(sections)
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
        section, cls, f = leaves[key]
        hint = typing.get_type_hints(cls)[f.name]
        problem = f"expected {type_name(hint)}" if not fits_json_type(value, hint) else _out_of_range(value, info_of(f))
        if problem is not None:
            default = getattr(cls(), f.name)
            warnings.append(
                f"setting tether.{key}: {problem}, got {_json(value)}; keeping the default {_json(default)}"
            )
            continue
        given.setdefault(section, {})[f.name] = float(value) if hint is float else value
    values = {name: cls(**given.get(name, {})) for name, cls in sections.items()}
    return Settings(values, dict(sections)), warnings


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
