"""``tether-lsp mcp --root DIR [--root DIR2 ...]``: serve Tether's tools to agents over MCP on stdio.
``tether-lsp mcp --attach [--workspace DIR]``: bridge stdio to the MCP endpoint of a running language server
(attached mode: the editor's buffers, edits into the editor; :mod:`.bridge`).

Reads and writes files under the roots only. Logs go to stderr (or ``--log-file``): stdout carries the protocol.
Needs the MCP SDK: Tether's ``mcp`` extra (``pip install '/path/to/tether[mcp]'``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from tether_lsp.server import logs

log = logging.getLogger(__name__)
MISSING_SDK = "tether-lsp mcp needs the MCP SDK: install Tether with its mcp extra (pip install '/path/to/tether[mcp]')"


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(
        prog="tether-lsp mcp",
        description="Serve Tether's tools (outline, select, read, edit, notes, prompts, run_prompt) to agents over "
        "MCP on stdio. Files are read and written under the roots only.",
    )
    out.add_argument("--root", action="append", type=Path, metavar="DIR", help="a folder agents may work in")
    out.add_argument(
        "--attach",
        action="store_true",
        help="instead of serving files from disk, bridge stdio to the MCP endpoint of the running Tether language "
        "server whose workspace holds --workspace (its setting tether.mcp.http.enabled must be true)",
    )
    out.add_argument(
        "--workspace", type=Path, metavar="DIR", help="with --attach: the folder to find a session for (default: .)"
    )
    out.add_argument(
        "--state-dir",
        type=Path,
        metavar="DIR",
        help="with --attach: where the sessions' files are (the editor's tether.mcp.http.stateDir; default: "
        "$XDG_STATE_HOME/tether/mcp, else ~/.local/state/tether/mcp)",
    )
    out.add_argument("--settings", type=Path, metavar="FILE", help="a JSON file holding the `tether` settings object")
    out.add_argument("--log-file", help="write logs to this file instead of stderr")
    out.add_argument("--log-level", default="info", choices=sorted(logs.LEVELS), help="default: info")
    return out


def main(argv: Sequence[str]) -> int:
    options = parser().parse_args(list(argv))
    logs.configure(options.log_level, options.log_file)
    if options.attach:
        if options.root or options.settings:
            print(
                "tether-lsp mcp: --attach takes no --root or --settings (the editor's session has them)",
                file=sys.stderr,
            )
            return 2
        return attach(options.workspace or Path.cwd(), options.state_dir)
    if not options.root:
        print("tether-lsp mcp: give --root DIR (or --attach)", file=sys.stderr)
        return 2
    from .context import Context
    from .settings import load

    try:
        settings, warnings = load(options.settings)
        context = Context(options.root, settings)
    except ValueError as exc:
        print(f"tether-lsp mcp: {exc}", file=sys.stderr)
        return 2
    for warning in warnings:
        log.warning("settings: %s", warning)
    try:
        import anyio

        from .server import serve_stdio
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] in ("mcp", "mcp_types", "anyio"):
            print(MISSING_SDK, file=sys.stderr)
            return 2
        raise
    log.info("tether-lsp mcp: serving %s", context.files.roots.describe())
    try:
        anyio.run(serve_stdio, context)
    finally:
        context.close()
    return 0


def attach(workspace: Path, state: Path | None) -> int:
    """Bridge stdio to the session whose workspace holds ``workspace``."""
    from .discovery import find, state_dir

    try:
        session = find(state_dir(str(state) if state else None), workspace)
    except LookupError as exc:
        print(f"tether-lsp mcp --attach: {exc}", file=sys.stderr)
        return 2
    try:
        import anyio

        from .bridge import bridge
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] in ("mcp", "mcp_types", "anyio", "httpx2"):
            print(MISSING_SDK, file=sys.stderr)
            return 2
        raise
    log.info("tether-lsp mcp --attach: %s (pid %d, %s)", session.url, session.pid, ", ".join(map(str, session.roots)))
    anyio.run(bridge, session)
    return 0
