"""``tether.mcp``: the agents' front's own bounds; with ``tether.limits``, ``tether.selectors``,
``tether.database``, ``tether.playground`` and ``tether.tasks`` (the model endpoint ``run_prompt`` falls back on)
what ``tether-lsp mcp --settings FILE`` reads (the same ``tether`` object editors send)."""

from __future__ import annotations

from dataclasses import dataclass

from tether_lsp.handlers.actions.settings import ActionSettings
from tether_lsp.handlers.edits.settings import TaskSettings
from tether_lsp.handlers.playground.settings import PlaygroundSettings
from tether_lsp.handlers.selectors.settings import SelectorSettings
from tether_lsp.server.settings import SettingsSchema, setting


@dataclass(frozen=True)
class McpSettings:
    """``tether.mcp``: what the agents' front keeps and answers."""

    historyBytes: int = setting(
        2 * 1024 * 1024,
        "Bytes of the texts handed out to agents kept per file (the newest is always kept), so an edit made "
        "on an older version can be placed on the file as it is now.",
        minimum=64 * 1024,
    )
    historyFiles: int = setting(
        64, "Files whose handed-out texts are kept; those used least recently beyond it are forgotten.", minimum=1
    )
    maxResponseBytes: int = setting(
        1024 * 1024,
        "Largest tool answer (its JSON); a larger one is refused with isError saying how to ask for less.",
        minimum=1024,
    )
    author: str = setting(
        "agent",
        "The author of the notes agents add (notes are markers: the editors show this name with them).",
    )


@dataclass(frozen=True)
class McpHttpSettings:
    """``tether.mcp.http``: attached mode, the language server's own MCP endpoint (streamable HTTP on 127.0.0.1)."""

    enabled: bool = setting(
        False,
        "Serve MCP from the running language server over streamable HTTP on 127.0.0.1, so agents see the "
        "editor's unsaved buffers and their edits land in them (undoable); `tether-lsp mcp --attach` bridges "
        "stdio to it. Off: nothing of it is loaded.",
    )
    port: int = setting(0, "Port on 127.0.0.1 to listen on; 0: any free port.", minimum=0, maximum=65535)
    stateDir: str | None = setting(
        None,
        "Folder of the session files (the endpoint's URL and its bearer token, readable by the user only). "
        "null: `$XDG_STATE_HOME/tether/mcp`, else `~/.local/state/tether/mcp`.",
    )
    editTimeout: float = setting(
        10.0,
        "Seconds an edit waits for the editor to apply it (`workspace/applyEdit`) and send the changed buffer "
        "back; the agent is told when it does not.",
        minimum=0.1,
        maximum=600,
    )
    maxRequestBytes: int = setting(
        4 * 1024 * 1024,
        "Largest HTTP request body the endpoint reads; a larger one is refused with 413.",
        minimum=64 * 1024,
    )


def schema() -> SettingsSchema:
    """The sections the agents' front reads: the core's (``database``, ``limits``), ``selectors``, ``actions``,
    ``playground`` and ``tasks`` (what prompts are, where their ids are kept, where runs go, as on the LSP side)
    and ``mcp``."""
    sections = SettingsSchema()
    sections.register("selectors", SelectorSettings)
    sections.register("actions", ActionSettings)
    sections.register("playground", PlaygroundSettings)
    sections.register("tasks", TaskSettings)
    sections.register("mcp", McpSettings)
    sections.register("mcp.http", McpHttpSettings)
    return sections
