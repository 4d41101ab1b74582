"""Generate, from the classes the server runs on, every file that would otherwise describe them by hand.

One source of truth: the settings dataclasses (``server.settings.setting`` fields) and the features' method
tables (``server.methods``, as the router installed them) produce

* ``docs/settings.schema.json`` — a JSON Schema of the ``tether`` settings object;
* the settings table in ``docs/settings.md``;
* VS Code's ``contributes.configuration`` in ``clients/vscode/package.json`` (one typed entry per setting;
  the extension's own ``tether.server.*`` entries are kept as they are);
* the method list and the message shapes in ``docs/protocol.md``;
* the selector table in ``docs/selectors.md``;
* the tool list and the ``tether.mcp`` settings of the agents' front in ``docs/agents.md`` (its tool table,
  ``tether_lsp.mcp.tools``, and ``tether_lsp.mcp.settings``).

``python -m scripts.docgen`` rewrites them (``make docs``); ``--check`` only reports the stale ones and
exits 1, which the test suite runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attrs

from tether_lsp.compose import create_server
from tether_lsp.handlers.selectors.kinds import KIND_NAMES
from tether_lsp.handlers.selectors.vocabulary import SELECTORS
from tether_lsp.mcp import settings as mcp_settings
from tether_lsp.mcp.tools import TOOLS
from tether_lsp.server import errors as errors_mod
from tether_lsp.server import settings as settings_mod
from tether_lsp.server.errors import camel
from tether_lsp.server.languages import LANGUAGES
from tether_lsp.server.methods import Method, summary

ROOT = Path(__file__).resolve().parent.parent

# --- settings ------------------------------------------------------------------------------------------


def _json_type(tp: Any) -> dict[str, Any]:
    """A settings field's type hint as JSON Schema."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        parts = [_json_type(a) for a in typing.get_args(tp)]
        if all(set(p) == {"type"} and isinstance(p["type"], str) for p in parts):
            return {"type": [p["type"] for p in parts]}
        return {"anyOf": parts}
    if origin is list:
        (inner,) = typing.get_args(tp)
        return {"type": "array", "items": _json_type(inner)}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
    if tp in simple:
        return {"type": simple[tp]}
    raise TypeError(f"no JSON Schema for setting type {tp!r}")


def _sections() -> dict[str, type[Any]]:
    """Every settings section of a fully registered server, in registration order."""
    return create_server().settings_schema.sections()


def _settings(
    sections: dict[str, type[Any]] | None = None,
) -> Iterable[tuple[str, dataclasses.Field[Any], Any, settings_mod.SettingInfo, Any]]:
    """(dotted key, field, type hint, info, default) of every setting (of ``sections``: the server's when None),
    in registration order."""
    for section, cls in (_sections() if sections is None else sections).items():
        hints = typing.get_type_hints(cls)
        defaults = cls()
        for f in dataclasses.fields(cls):
            yield f"{section}.{f.name}", f, hints[f.name], settings_mod.info_of(f), getattr(defaults, f.name)


def _property(hint: Any, info: settings_mod.SettingInfo, default: Any) -> dict[str, Any]:
    prop: dict[str, Any] = {**_json_type(hint), "default": default, "markdownDescription": info.description}
    if info.choices is not None:
        prop["enum"] = list(info.choices)
    if info.minimum is not None:
        prop["minimum"] = info.minimum
    if info.maximum is not None:
        prop["maximum"] = info.maximum
    return prop


def settings_schema() -> dict[str, Any]:
    """The ``tether`` settings object as JSON Schema (nested sections; dotted keys are accepted too)."""
    sections: dict[str, Any] = {}
    for section, cls in _sections().items():
        properties = sections
        for part in section.split("."):  # a section "mcp.http" is the object "http" inside "mcp"
            entry = properties.setdefault(part, {"type": "object", "additionalProperties": False, "properties": {}})
            properties = entry["properties"]
        for key, _f, hint, info, default in _settings({section: cls}):
            properties[key.rsplit(".", 1)[1]] = _property(hint, info, default)
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Tether settings",
        "description": "The `tether` section of initializationOptions and workspace/configuration.",
        "type": "object",
        "properties": sections,
    }


def _md_value(value: Any) -> str:
    return f"`{json.dumps(value)}`"


def settings_table(sections: dict[str, type[Any]] | None = None) -> str:
    rows = ["| key | type | default | range / choices | meaning |", "| --- | --- | --- | --- | --- |"]
    for key, _f, hint, info, default in _settings(sections):
        limits = []
        if info.choices is not None:
            limits.append(" \\| ".join(f"`{c}`" for c in info.choices))
        if info.minimum is not None:
            limits.append(f"≥ {info.minimum:g}")
        if info.maximum is not None:
            limits.append(f"≤ {info.maximum:g}")
        kind = errors_mod.type_name(hint).replace("|", "\\|")
        rows.append(f"| `tether.{key}` | {kind} | {_md_value(default)} | {', '.join(limits)} | {info.description} |")
    return "\n".join(rows)


def vscode_package(current: dict[str, Any]) -> dict[str, Any]:
    """``package.json`` with one typed configuration entry per server setting."""
    package: dict[str, Any] = json.loads(json.dumps(current))
    config = package.setdefault("contributes", {}).setdefault("configuration", {"title": "Tether"})
    section_names = tuple(f"tether.{name}." for name in _sections())
    kept = {k: v for k, v in config.get("properties", {}).items() if not k.startswith(section_names)}
    generated = {f"tether.{key}": _property(hint, info, default) for key, _f, hint, info, default in _settings()}
    config["properties"] = {**kept, **generated}
    ids = sorted({language_id for spec in LANGUAGES for language_id in spec.language_ids})
    package["activationEvents"] = [f"onLanguage:{language_id}" for language_id in ids]  # the extension's selector
    when = f"editorTextFocus && editorLangId =~ /^({'|'.join(ids)})$/"
    for binding in package.get("contributes", {}).get("keybindings", []):
        if binding.get("command", "").startswith("tether.select"):
            binding["when"] = when  # selector keys only where the server parses the file
    return package


# --- protocol -----------------------------------------------------------------------------------------


def _name(cls: type[Any], clashing: set[str]) -> str:
    """A class's name in the reference, qualified by its feature where two features use the same name."""
    if cls.__name__ not in clashing:
        return cls.__name__
    parts = cls.__module__.split(".")
    feature = parts[2] if len(parts) > 2 and parts[1] == "handlers" else parts[1]
    return f"{feature.capitalize()}{cls.__name__}"


def _ts_type(tp: Any, seen: list[type[Any]], clashing: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """A Python type hint in the TypeScript notation of the protocol reference; queues Tether classes."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return " | ".join(_ts_type(a, seen, clashing) for a in typing.get_args(tp))
    if origin is typing.Literal:
        return " | ".join(json.dumps(a) for a in typing.get_args(tp))
    if origin in (list, tuple, typing.Sequence, Iterable) or origin is getattr(typing, "List", None):
        args = [a for a in typing.get_args(tp) if a is not Ellipsis]
        inner = _ts_type(args[0], seen, clashing) if args else "any"
        return f"({inner})[]" if " " in inner else f"{inner}[]"
    if origin is dict:
        values = typing.get_args(tp)
        return f"{{ [key: string]: {_ts_type(values[1], seen, clashing) if values else 'any'} }}"
    simple = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null", Any: "any"}
    if tp in simple:
        return simple[tp]
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return " | ".join(json.dumps(m.value) for m in tp)
    if isinstance(tp, type) and attrs.has(tp):
        if tp.__module__.startswith("tether_lsp") and tp not in seen:
            seen.append(tp)
        return _name(tp, clashing)
    return getattr(tp, "__name__", str(tp))


def _interface(cls: type[Any], seen: list[type[Any]], clashing: set[str]) -> str:
    hints = typing.get_type_hints(cls)
    lines = [f"interface {_name(cls, clashing)} {{"]
    for a in attrs.fields(cls):
        optional = "?" if a.default is not attrs.NOTHING else ""
        lines.append(f"  {camel(a.name)}{optional}: {_ts_type(hints[a.name], seen, clashing)};")
    lines.append("}")
    return "\n".join(lines)


@dataclass(frozen=True)
class _Row:
    """One line of the method list, from a table row (a method the client sends, or a notice)."""

    name: str
    kind: str
    params: Any
    result: Any
    runs: str
    summary: str
    request: bool


def _first_paragraph(obj: Any) -> str:
    return (inspect.getdoc(obj) or "").split("\n\n")[0].replace("\n", " ")


def _where(method: Method[Any]) -> str:
    """Where the handler runs, and whether ``$/cancelRequest`` stops it."""
    if method.notification or method.runs == "loop":
        return method.runs
    return f"{method.runs}, {'cancellable' if method.cancellable else 'runs to its end'}"


def _rows() -> list[_Row]:
    """Every ``tether/*`` method and notice of the assembled server, from the method tables the router holds."""
    router = create_server().router
    rows = [
        _Row(
            r.method.name,
            "client → server notification" if r.method.notification else "request",
            r.method.params,
            r.method.result,
            _where(r.method),
            summary(r.method) or _first_paragraph(r.method.params),
            not r.method.notification,
        )
        for r in router.routes()
        if r.method.custom and not r.method.name.startswith("tether/debug/")
    ]
    rows += [
        _Row(n.name, "server → client notification", n.params, None, "—", _first_paragraph(n.params), False)
        for _, n in router.notices()
    ]
    return sorted(rows, key=lambda row: row.name)


def _method_rows(rows: list[_Row], seen: list[type[Any]], clashing: set[str]) -> list[str]:
    lines = [
        "| method | kind | runs | params | result | what it does |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        params = _ts_type(row.params, seen, clashing) if row.params is not None else "any"
        result = (
            "—" if not row.request else (_ts_type(row.result, seen, clashing) if row.result is not None else "null")
        )
        name, params, result = (f"`{c}`".replace("|", "\\|") for c in (row.name, params, result))
        what = row.summary.replace("|", "\\|")
        lines.append(f"| {name} | {row.kind} | {row.runs} | {params} | {result} | {what} |")
    return lines


def _shapes(seen: list[type[Any]], clashing: set[str]) -> list[str]:
    shapes, index = [], 0
    while index < len(seen):  # rendering a class may queue the classes it refers to
        shapes.append(_interface(seen[index], seen, clashing))
        index += 1
    return shapes


def protocol_methods() -> str:
    rows = _rows()
    seen: list[type[Any]] = []
    _method_rows(rows, seen, set())
    _shapes(seen, set())  # a first pass only to learn every class reached, and which names clash
    names = [cls.__name__ for cls in seen]
    clashing = {n for n in names if names.count(n) > 1}
    seen = []
    lines = _method_rows(rows, seen, clashing)
    routes = create_server().router.routes()
    standard = sorted((r.method for r in routes if not r.method.custom), key=lambda m: m.name)
    lines += ["", "Standard LSP methods Tether implements (beyond `exit` and `$/cancelRequest`):", ""]
    lines += [f"* `{m.name}` ({_where(m)}) — {summary(m)}" for m in standard]
    lines += ["", "Message shapes (`?`: the field has a default; in params it may be omitted):", ""]
    return "\n".join([*lines, "```ts", "\n\n".join(_shapes(seen, clashing)), "```"])


def selectors_table() -> str:
    rows = ["| selector | arguments | what it selects |", "| --- | --- | --- |"]
    for s in SELECTORS.values():
        args = ", ".join(f"{a.name}: `{a.type}`" for a in s.args) or "—"
        rows.append(f"| `{s.name}` | {args} | {s.description.replace('|', chr(92) + '|')} |")
    rows += ["", "Kind names (for `selectEnclosing`, `filterKind`): " + ", ".join(f"`{k}`" for k in KIND_NAMES) + "."]
    return "\n".join(rows)


# --- the agents' front ---------------------------------------------------------------------------------


def agents_tools() -> str:
    """The tool list of ``docs/agents.md``, from the agents' front's tool table."""
    rows = ["| tool | arguments | answer | what it does |", "| --- | --- | --- | --- |"]
    for tool in TOOLS:
        args = ", ".join(f"`{n}`" if n in tool.required else f"`{n}?`" for n in tool.properties)
        result = f"`{tool.result}`".replace("|", "\\|")
        rows.append(f"| `{tool.name}` | {args} | {result} | {tool.description.replace('|', chr(92) + '|')} |")
    return "\n".join(rows)


def agents_settings() -> str:
    """The ``tether.mcp`` settings table of ``docs/agents.md``."""
    return settings_table({"mcp": mcp_settings.McpSettings, "mcp.http": mcp_settings.McpHttpSettings})


# --- files --------------------------------------------------------------------------------------------


def _splice(text: str, name: str, body: str) -> str:
    begin, end = f"<!-- BEGIN GENERATED: {name} -->", f"<!-- END GENERATED: {name} (make docs) -->"
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"no generated region {name!r}")
    return pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text)


def outputs(root: Path = ROOT) -> dict[Path, str]:
    """Every generated file's wanted content."""
    create_server()  # every feature registers its settings section and methods
    docs = root / "docs"
    package_path = root / "clients" / "vscode" / "package.json"
    package = vscode_package(json.loads(package_path.read_text(encoding="utf-8")))
    return {
        docs / "settings.schema.json": json.dumps(settings_schema(), indent=2) + "\n",
        docs / "settings.md": _splice((docs / "settings.md").read_text(encoding="utf-8"), "settings", settings_table()),
        docs / "protocol.md": _splice(
            (docs / "protocol.md").read_text(encoding="utf-8"), "methods", protocol_methods()
        ),
        docs / "selectors.md": _splice(
            (docs / "selectors.md").read_text(encoding="utf-8"), "selectors", selectors_table()
        ),
        docs / "agents.md": _splice(
            _splice((docs / "agents.md").read_text(encoding="utf-8"), "tools", agents_tools()),
            "mcp-settings",
            agents_settings(),
        ),
        package_path: json.dumps(package, indent=2, ensure_ascii=False) + "\n",
    }


def stale(root: Path = ROOT) -> list[Path]:
    """The generated files whose content is not what the code says."""
    return [p for p, text in outputs(root).items() if not p.exists() or p.read_text(encoding="utf-8") != text]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.docgen", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report files that are out of date (exit 1)")
    options = parser.parse_args(argv)
    if options.check:
        old = stale()
        for path in old:
            print(f"out of date: {path.relative_to(ROOT)} (run `make docs`)", file=sys.stderr)
        return 1 if old else 0
    for path, text in outputs().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
