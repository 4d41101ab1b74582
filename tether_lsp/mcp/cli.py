"""``tether-lsp mcp --root DIR [--root DIR2 ...]``: serve Tether's tools to agents over MCP on stdio.

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
        description="Serve Tether's tools (outline, select, read, edit, prompts, run_prompt) to agents over MCP on "
        "stdio. Files are read and written under the roots only.",
    )
    out.add_argument(
        "--root", action="append", type=Path, required=True, metavar="DIR", help="a folder agents may work in"
    )
    out.add_argument("--settings", type=Path, metavar="FILE", help="a JSON file holding the `tether` settings object")
    out.add_argument("--log-file", help="write logs to this file instead of stderr")
    out.add_argument("--log-level", default="info", choices=sorted(logs.LEVELS), help="default: info")
    return out


def main(argv: Sequence[str]) -> int:
    options = parser().parse_args(list(argv))
    logs.configure(options.log_level, options.log_file)
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
    anyio.run(serve_stdio, context)
    return 0
