"""The shape of the package, read from its import graph: no import circle, ``server/`` never imports
``handlers/``, and a feature's engines and services import no LSP (no pygls, no lsprotocol, no wire types).

The graph is read from the source (each module parsed with :mod:`ast`, nothing imported): every ``import`` and
``from ... import`` statement counts, wherever it stands. Function-local imports count because they run too,
only later: a circle dodged by importing inside a function is still a circle. ``if TYPE_CHECKING:`` imports
count because a module that names another's types in its signatures depends on it as much as one that calls
it (and mypy reads them). Relative imports are resolved against the importing module's package and
``from package import name`` is an edge to the submodule ``package.name`` when there is one, else to the
package. Importing a submodule also runs its parent packages' ``__init__``; those implicit edges are not
counted (the ``__init__`` modules are small and would make every feature look circular). Imports made at
run time by name (``importlib``, ``lazy_module``) are not seen.

Words, as the checks use them:

* a *feature* is a package directly under ``handlers/``;
* its *LSP glue* is ``lsp.py`` and ``lsp_*.py``: where methods are registered and wire values are converted;
* *wire types* are the classes the method tables name as the params or results of methods and notifications
  (``Method`` and ``Notice`` rows, ``server/methods.py``) and the classes their fields hold, read from a fully
  registered server (``create_server()``); a *wire module* is a module that defines one; a feature gives its
  wire types a module of their own, ``wire.py`` (or ``wire_*.py``), and ``server/debug.py`` holds the
  runtime's own;
* its *engine and service modules* are every other module of the feature except ``__init__.py``,
  ``demo*.py`` (the ``tether-lsp demo`` script, a client of the whole server) and ``cli.py`` (a command line
  front). They take and return plain Python values, so any front can call them.

* the *agents' front* is ``mcp/``; a feature's *service modules* are the modules of the feature its LSP glue
  imports, and its ``settings`` and ``kinds`` modules (light declarations every front reads).

The rules: (a) no circle; (b) no module of ``server/`` imports one of ``handlers/``; (c) no engine or service
module imports pygls, lsprotocol or a wire module; (d) a feature's wire types are defined in its wire modules
only (not in its glue); (e) no feature imports another (what two features share lives in ``server/``); (f) the
agents' front imports of a feature only its service modules, so both fronts call one API and the glue of each
only converts. Only direct imports are judged: ``server/`` modules an
engine uses (positions, errors) may import lsprotocol themselves.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import attrs
import pytest

import tether_lsp
from tether_lsp.compose import create_server

PACKAGE = "tether_lsp"
ROOT = Path(tether_lsp.__file__).resolve().parent.parent
#: Where each part of the package lives in the repository (``tether_lsp/`` links the other two in).
PARTS = {f"{PACKAGE}.server": ROOT / "server", f"{PACKAGE}.handlers": ROOT / "handlers", PACKAGE: ROOT / PACKAGE}
LSP_LIBRARIES = frozenset({"pygls", "lsprotocol"})

# Rules, as the problems name them.
CIRCLE = "circle"
SERVER_IMPORTS_HANDLERS = "server imports handlers"
ENGINE_IMPORTS_LSP = "engine imports LSP"
WIRE_OUTSIDE_WIRE_MODULE = "wire type outside a wire module"
FEATURE_IMPORTS_FEATURE = "feature imports another feature"
AGENTS_FRONT_IMPORTS_INTERNALS = "agents' front imports a feature's internals"
#: Modules of a feature every front may read whatever the glue imports: declarations, not orchestration.
DECLARATIONS = frozenset({"settings", "kinds"})

#: Today's violations, each with why it is still there. Each must still occur (the test fails when one is
#: gone, so that it is struck off): the list only shrinks.
_FRONT = AGENTS_FRONT_IMPORTS_INTERNALS
_MCP, _H = f"{PACKAGE}.mcp.", f"{PACKAGE}.handlers."
KNOWN: dict[tuple[str, str, str], str] = {
    (_FRONT, _MCP + "notes", _H + "markers.calculator"): "the notes adapter still reads calculator results itself",
    (_FRONT, _MCP + "trees", _H + "selectors.index"): "the front keeps its own tree cache",
}


@dataclass
class Module:
    name: str
    is_package: bool
    #: Modules of the package it imports.
    imports: set[str] = field(default_factory=set)
    #: Top-level names of the other packages it imports (``pygls``, ``lsprotocol``, ...).
    libraries: set[str] = field(default_factory=set)


Graph = dict[str, Module]


# --- reading the graph ----------------------------------------------------------------------------------


def module_files() -> Iterator[tuple[str, Path, bool]]:
    """(module name, file, whether it is a package's ``__init__``) for every module of the package."""
    for prefix, folder in PARTS.items():
        for path in sorted(folder.rglob("*.py")):
            relative = path.relative_to(folder)
            if prefix == PACKAGE and relative.parts[0] in ("server", "handlers", "examples"):
                continue  # links to the other parts, and example files that are data
            parts = list(relative.with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            yield ".".join([prefix, *parts]), path, is_package


def imported_names(tree: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    """Every dotted name an import statement of the module names (absolute), with ``from a import b`` giving
    both ``a`` and ``a.b`` (which of them is a module is decided against the module list)."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield source
            yield from (f"{source}.{alias.name}" for alias in node.names)


def read_graph() -> Graph:
    files = list(module_files())
    graph: Graph = {name: Module(name, is_package) for name, _path, is_package in files}
    for name, path, is_package in files:
        module = graph[name]
        for imported in imported_names(ast.parse(path.read_text(encoding="utf-8")), name, is_package):
            top = imported.partition(".")[0]
            if top != PACKAGE:
                module.libraries.add(top)
            elif imported in graph and imported != name:
                module.imports.add(imported)
    return graph


def wire_modules() -> set[str]:
    """The modules defining the classes a fully registered server has as params and results, and the classes
    those hold in their fields."""
    todo: list[object] = []
    for spec in create_server().protocol.methods.all():
        todo += [spec.params, spec.result]
    seen: set[type] = set()
    while todo:
        item = todo.pop()
        todo += typing.get_args(item)
        if not isinstance(item, type) or item in seen or not attrs.has(item):
            continue
        seen.add(item)
        todo += typing.get_type_hints(item, vars(sys.modules[item.__module__])).values()
    return {cls.__module__ for cls in seen if cls.__module__.startswith(f"{PACKAGE}.")}


# --- the rules ------------------------------------------------------------------------------------------


def circles(graph: Mapping[str, Module]) -> list[list[str]]:
    """The import circles: each group of modules that import each other, directly or not (sorted)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        # Tarjan's strongly connected components, with an explicit stack of (module, its edges left).
        work = [(start, iter(sorted(graph[start].imports)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            name, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target].imports))))
                    break
                if target in on_stack:
                    low[name] = min(low[name], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[name])
                if low[name] == index[name]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == name:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return sorted(found)


def feature_of(name: str) -> str | None:
    parts = name.split(".")
    if parts[:2] != [PACKAGE, "handlers"] or len(parts) < 4:
        return None
    return parts[2]


def is_engine(name: str) -> bool:
    """An engine or service module of a feature (see the module's docstring)."""
    if feature_of(name) is None:
        return False
    leaf = name.rpartition(".")[2]
    return not (leaf in ("lsp", "wire", "cli") or leaf.startswith(("lsp_", "wire_", "demo")))


def is_glue(name: str) -> bool:
    leaf = name.rpartition(".")[2]
    return feature_of(name) is not None and (leaf == "lsp" or leaf.startswith("lsp_"))


def service_modules(graph: Mapping[str, Module]) -> dict[str, set[str]]:
    """Each feature's service modules: those its LSP glue imports, and its declarations."""
    out: dict[str, set[str]] = {}
    for name, module in graph.items():
        feature = feature_of(name)
        if feature is None:
            continue
        served = out.setdefault(feature, set())
        if name.rpartition(".")[2] in DECLARATIONS:
            served.add(name)
        if is_glue(name):
            served |= {t for t in module.imports if feature_of(t) == feature and not is_glue(t)}
    return out


def is_wire_module(name: str) -> bool:
    leaf = name.rpartition(".")[2]
    return name == f"{PACKAGE}.server.debug" or leaf == "wire" or leaf.startswith("wire_")


def problems(graph: Mapping[str, Module], wire: Iterable[str]) -> set[tuple[str, str, str]]:
    """Every violation, as (rule, module, what it imports; for a circle, its members; for a wire type, "")."""
    wire = set(wire)
    services = service_modules(graph)
    found = {(CIRCLE, members[0], " ".join(members)) for members in circles(graph)}
    found |= {(WIRE_OUTSIDE_WIRE_MODULE, name, "") for name in wire if not is_wire_module(name)}
    for name, module in graph.items():
        if name.startswith(f"{PACKAGE}.server."):
            found |= {
                (SERVER_IMPORTS_HANDLERS, name, target)
                for target in module.imports
                if target.startswith(f"{PACKAGE}.handlers")
            }
        if is_engine(name) and not module.is_package:
            found |= {(ENGINE_IMPORTS_LSP, name, library) for library in module.libraries & LSP_LIBRARIES}
            found |= {(ENGINE_IMPORTS_LSP, name, target) for target in module.imports & wire}
        feature = feature_of(name)
        if feature is not None:
            found |= {
                (FEATURE_IMPORTS_FEATURE, name, target)
                for target in module.imports
                if feature_of(target) not in (None, feature)
            }
        if name.startswith(f"{PACKAGE}.mcp."):
            found |= {
                (AGENTS_FRONT_IMPORTS_INTERNALS, name, target)
                for target in module.imports
                if (target_feature := feature_of(target)) is not None
                and target not in services.get(target_feature, set())
            }
    return found


# --- the checks -----------------------------------------------------------------------------------------


def graph_of(edges: Mapping[str, Iterable[str]], libraries: Mapping[str, Iterable[str]] | None = None) -> Graph:
    names = set(edges) | {t for targets in edges.values() for t in targets}
    graph = {n: Module(n, False) for n in names}
    for name, targets in edges.items():
        graph[name].imports |= set(targets)
    for name, libs in (libraries or {}).items():
        graph[name].libraries |= set(libs)
    return graph


P = f"{PACKAGE}."


def test_a_circle_is_found_however_long() -> None:
    graph = graph_of({P + "a": [P + "b"], P + "b": [P + "c"], P + "c": [P + "a"], P + "d": [P + "a"]})
    assert problems(graph, []) == {(CIRCLE, P + "a", f"{P}a {P}b {P}c")}


def test_server_importing_handlers_is_found() -> None:
    graph = graph_of({P + "server.app": [P + "handlers.edits.lsp"], P + "handlers.edits.lsp": [P + "server.app"]})
    found = problems(graph, [])
    assert (SERVER_IMPORTS_HANDLERS, P + "server.app", P + "handlers.edits.lsp") in found


def test_an_engine_importing_lsp_or_wire_types_is_found() -> None:
    engine, glue, wire = P + "handlers.edits.streamer", P + "handlers.edits.lsp", P + "handlers.edits.wire"
    graph = graph_of({engine: [wire], glue: [engine, wire]}, {engine: ["pygls", "asyncio"], glue: ["lsprotocol"]})
    assert problems(graph, [wire]) == {
        (ENGINE_IMPORTS_LSP, engine, "pygls"),
        (ENGINE_IMPORTS_LSP, engine, wire),
    }


def test_a_wire_type_in_the_glue_is_found() -> None:
    glue, wire = P + "handlers.markers.lsp", P + "handlers.markers.wire"
    graph = graph_of({glue: [wire]})
    assert problems(graph, [glue, wire, P + "server.debug"]) == {(WIRE_OUTSIDE_WIRE_MODULE, glue, "")}


def test_a_feature_importing_another_is_found() -> None:
    graph = graph_of({P + "handlers.edits.tasks": [P + "handlers.markers.store", P + "server.positions"]})
    assert problems(graph, []) == {(FEATURE_IMPORTS_FEATURE, P + "handlers.edits.tasks", P + "handlers.markers.store")}


def test_the_agents_front_importing_what_the_glue_does_not_is_found() -> None:
    glue, service, internal = P + "handlers.markers.lsp", P + "handlers.markers.state", P + "handlers.markers.store"
    settings, front = P + "handlers.markers.settings", P + "mcp.notes"
    graph = graph_of({glue: [service], service: [internal], front: [service, settings, internal]})
    assert problems(graph, []) == {(AGENTS_FRONT_IMPORTS_INTERNALS, front, internal)}


def test_glue_demo_and_cli_are_not_engines() -> None:
    assert is_engine(P + "handlers.playground.session")
    assert is_engine(P + "handlers.selectors.engine")
    assert not any(
        is_engine(P + f"handlers.selectors.{leaf}")
        for leaf in ("lsp", "lsp_run", "wire", "wire_runs", "demo", "demo_model", "cli")
    )
    assert not is_engine(P + "server.chat")


SOURCE = """
from __future__ import annotations
import os.path
from typing import TYPE_CHECKING
from . import lsp, streamer
from .resolve import Options
from ..markers.store import Store
if TYPE_CHECKING:
    from tether_lsp.server.app import TetherServer
def register():
    from lsprotocol import types
"""


def test_relative_local_and_type_checking_imports_are_read() -> None:
    names = set(imported_names(ast.parse(SOURCE), P + "handlers.edits.tasks", is_package=False))
    assert {
        "os.path",
        P + "handlers.edits.lsp",
        P + "handlers.edits.streamer",
        P + "handlers.edits.resolve",
        P + "handlers.markers.store",
        P + "server.app",
        "lsprotocol",
    } <= names
    # in a package's __init__, "." is the package itself
    assert P + "handlers.edits.lsp" in set(imported_names(ast.parse(SOURCE), P + "handlers.edits", is_package=True))


def test_the_real_graph_has_local_and_type_checking_edges() -> None:
    graph = read_graph()
    # the router imports each feature's glue inside register() only; the session its store under TYPE_CHECKING
    assert P + "handlers.edits.lsp" in graph[P + "handlers"].imports
    assert P + "handlers.playground.store" in graph[P + "handlers.playground.session"].imports
    assert "lsprotocol" in graph[P + "handlers.edits.lsp"].libraries


@pytest.fixture(scope="module")
def found() -> set[tuple[str, str, str]]:
    return problems(read_graph(), wire_modules())


def test_the_package_keeps_its_shape(found: set[tuple[str, str, str]]) -> None:
    new = sorted(found - KNOWN.keys())
    assert not new, "\n".join(["import rules broken:", *(f"  {rule}: {a} -> {b}" for rule, a, b in new)])


def test_known_exceptions_still_occur(found: set[tuple[str, str, str]]) -> None:
    gone = sorted(KNOWN.keys() - found)
    assert not gone, "\n".join(["fixed, strike them off KNOWN:", *(f"  {rule}: {a} -> {b}" for rule, a, b in gone)])


def test_a_second_front_loads_every_engine_and_service_without_lsp() -> None:
    """What the agents' front needs: importing all engines and services (and the runtime modules they use)
    loads neither pygls nor lsprotocol, so a front that is not LSP pays for neither."""
    engines = sorted(name for name, module in read_graph().items() if is_engine(name) and not module.is_package)
    assert len(engines) > 30
    script = "\n".join(
        [
            "import importlib, sys",
            f"for name in {engines!r}:",
            "    importlib.import_module(name)",
            "print(sorted(m for m in ('pygls', 'lsprotocol') if m in sys.modules))",
        ]
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
