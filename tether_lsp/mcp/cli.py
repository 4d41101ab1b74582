"""``tether-lsp mcp --root DIR [--root DIR2 ...]``: serve Tether's tools to agents over MCP on stdio.
``tether-lsp mcp --attach [--workspace DIR]``: bridge stdio to the MCP endpoint of a running language server
(attached mode: the editor's buffers, edits into the editor; :mod:`.bridge`).

Reads and writes files under the roots only. Logs go to stderr, warnings and errors only unless ``--log-level``
says otherwise (agents' clients show a server's stderr to their users), or to ``--log-file`` (from info): stdout
carries the protocol.
Needs the MCP SDK: Tether's ``mcp`` extra (``pip install '/path/to/tether[mcp]'``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tether_lsp.server import logs

log = logging.getLogger(__name__)
#: What serving over MCP needs beyond Tether's own requirements: the SDK's packages.
SDK = ("mcp", "mcp_types", "anyio")
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
    out.add_argument(
        "--log-level",
        choices=sorted(logs.LEVELS),
        help="default: warning on stderr (agents' clients show a server's stderr to their users), info in --log-file",
    )
    return out


def main(argv: Sequence[str]) -> int:
    options = parser().parse_args(list(argv))
    logs.configure(options.log_level or ("info" if options.log_file else "warning"), options.log_file)
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
    from .files import Roots

    try:
        given = settings_object(options.settings)
        roots = Roots(options.root).describe()
    except ValueError as exc:
        print(f"tether-lsp mcp: {exc}", file=sys.stderr)
        return 2
    if any(not installed(name) for name in SDK):
        print(MISSING_SDK, file=sys.stderr)
        return 2
    from .handshake import EarlyAnswers

    # the first requests are answered from a thread while the SDK and the engines import here (see handshake.py)
    early = EarlyAnswers(roots).start()
    try:
        import anyio

        from .server import serve_stdio
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] in SDK:
            print(MISSING_SDK, file=sys.stderr)
            return 2
        raise
    from .context import Context
    from .settings import schema

    settings, warnings = schema().parse(given)  # what is wrong in it is said, and its default kept
    for warning in warnings:
        log.warning("settings: %s", warning)
    context = Context(options.root, settings)
    log.info("tether-lsp mcp: serving %s", roots)
    early.stop()
    try:
        anyio.run(serve_stdio, context, early)
    finally:
        context.close()
    return 0


def settings_object(path: Path | None) -> Any:
    """The ``tether`` settings object of a JSON file (holding it, or ``{"tether": {...}}``); None without one. A file
    that cannot be read or is not a JSON object raises ``ValueError`` naming it."""
    if path is None:
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"--settings {path}: {exc}") from exc
    if not isinstance(raw, dict):
        raise ValueError(f"--settings {path}: expected a JSON object")
    if isinstance(raw.get("tether"), dict) and len(raw) == 1:
        return raw["tether"]
    return raw


def installed(package: str) -> bool:
    """Whether ``package`` can be imported, found without importing it."""
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):  # ValueError: a module in sys.modules without a spec (or None)
        return False


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
