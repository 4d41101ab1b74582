"""The agents' front is a front like the LSP glue, not a copy of the engines: it imports engines and services,
never the LSP glue or wire types, never pygls or lsprotocol (checked on the import graph and in a fresh
interpreter), and only its SDK glue imports the MCP SDK."""

from __future__ import annotations

import subprocess
import sys

from tests.unit.test_import_graph import LSP_LIBRARIES, PACKAGE, is_wire_module, read_graph

FRONT = f"{PACKAGE}.mcp"
#: Attached mode's glue in the language server (its buffers, ``workspace/applyEdit``, the settings switch).
ATTACHED_LSP = f"{FRONT}.attached_lsp"
#: What may import the MCP SDK: its glue, the HTTP endpoint of attached mode and the ``--attach`` bridge.
SDK_GLUE = {f"{FRONT}.server", f"{FRONT}.http", f"{FRONT}.bridge"}
SERVER_APP = f"{PACKAGE}.server.app"


def test_the_front_imports_engines_and_services_only() -> None:
    graph = read_graph()
    front = {name: module for name, module in graph.items() if name == FRONT or name.startswith(f"{FRONT}.")}
    assert len(front) > 10
    for name, module in front.items():
        if not in_attached_lsp(name):
            assert not module.libraries & LSP_LIBRARIES, name
            # the engine-facing front knows neither the language server nor attached mode's glue in it
            assert not {t for t in module.imports if in_attached_lsp(t) or t.startswith(SERVER_APP)}, name
        leaves = {target.rpartition(".")[2] for target in module.imports if ".handlers." in target}
        assert not {leaf for leaf in leaves if leaf == "lsp" or leaf.startswith("lsp_")}, name
        assert not [target for target in module.imports if is_wire_module(target)], name
        if name not in SDK_GLUE:
            assert not module.libraries & {"mcp", "mcp_types"}, name
    assert f"{PACKAGE}.handlers.edits.service" in graph[f"{FRONT}.edit"].imports
    assert f"{PACKAGE}.handlers.selectors.engine" in graph[f"{FRONT}.select"].imports


def in_attached_lsp(name: str) -> bool:
    return name == ATTACHED_LSP or name.startswith(f"{ATTACHED_LSP}.")


def test_attached_modes_glue_is_where_lsp_is_imported() -> None:
    graph = read_graph()
    assert "lsprotocol" in graph[f"{ATTACHED_LSP}.editor_link"].libraries
    assert f"{PACKAGE}.server.app" in graph[f"{ATTACHED_LSP}.attachment"].imports
    assert f"{FRONT}.attached_source" in graph[f"{ATTACHED_LSP}.editor_link"].imports


def test_serving_agents_loads_neither_pygls_nor_lsprotocol() -> None:
    probe = (
        "import sys, tether_lsp.mcp.server, tether_lsp.mcp.cli; "
        "print(sorted(m for m in ('pygls', 'lsprotocol') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr
