"""``tether-lsp``: the language server (stdio by default, ``--tcp``, ``--ws``) and its subcommands.

Nothing but the protocol is written to stdout when serving; logs go to stderr or ``--log-file``.
Subcommands (each answers ``--help``): ``demo [DIR]`` runs a scripted headless LSP session against a real
server, ``examples`` prints the folder of the shipped examples, ``mcp --root DIR`` serves Tether's tools to
agents over MCP (``tether_lsp.mcp``), and each feature's own (``select``, ``fake-model``).
"""

from __future__ import annotations

import gc

#: No cyclic collection while the server starts: its passes over a heap growing by ~2,000 classes cost ~8% of
#: start-up; ``initialize`` freezes what start-up made and turns it back on (``server.lifecycle``), and the
#: subcommands turn it back on at once.
gc.disable()

import argparse  # noqa: E402 - after the collector is off, on purpose
import sys  # noqa: E402
from collections.abc import Sequence  # noqa: E402

from . import __version__, code_cache  # noqa: E402

#: Installed before anything imports pygls (whose lsprotocol.types defines ~570 attrs classes).
_CODE_CACHE = code_cache.install()

from .server import logs  # noqa: E402 - after the code cache, on purpose


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tether-lsp",
        description="Tether language server (stdio unless --tcp/--ws). Subcommands (each has --help): "
        "demo [DIR] (a scripted LSP session over the shipped examples, or DIR), "
        "examples (print the folder of the shipped examples), "
        "select FILE SELECTOR[:ARG,...]... (run a selector chain on a file), "
        "fake-model [--port N] (a stand-in chat model on this machine, to try the playground without an account), "
        "mcp --root DIR (serve Tether's tools to agents over MCP on stdio; needs tether-lsp[mcp]).",
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="serve over stdio (the default)")
    transport.add_argument(
        "--tcp", action="store_true", help="serve one client over TCP (the first to connect, until it exits)"
    )
    transport.add_argument(
        "--ws",
        action="store_true",
        help="serve one client over WebSocket (the first to connect, until it exits; needs tether-lsp[ws])",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind for --tcp/--ws (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="port for --tcp/--ws (default 2087)")
    parser.add_argument("--log-file", help="write logs to this file instead of stderr")
    parser.add_argument(
        "--log-level",
        choices=sorted(logs.LEVELS),
        help="default: info, except that over stdio only errors go to stderr (editors show it as errors)",
    )
    parser.add_argument("--version", action="store_true", help="print the versions of Tether and its parsers")
    return parser


def version_report() -> str:
    """Tether's version and those of the parts that decide its behaviour (for bug reports)."""
    from importlib.metadata import PackageNotFoundError, version

    def of(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "not installed"

    parts = ["pygls", "lsprotocol", "tree-sitter", "tree-sitter-python", "tree-sitter-yaml"]
    return "\n".join([f"tether-lsp {__version__}", *(f"{p} {of(p)}" for p in parts)])


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and not args[0].startswith("-"):
        gc.enable()  # a subcommand, not the server's start-up
    if args and args[0] == "demo":
        from .demo import main as demo_main

        return demo_main(args[1:])
    if args and args[0] == "mcp":
        from .mcp.cli import main as mcp_main

        return mcp_main(args[1:])
    if args and args[0] == "examples":
        from .demo import examples_main

        return examples_main(args[1:])
    if args and not args[0].startswith("-"):
        from .handlers import commands

        command = commands().get(args[0])
        if command is not None:
            return command(args[1:])
    options = _serve_parser().parse_args(args)
    if options.version:
        print(version_report())
        return 0
    logs.configure(options.log_level, options.log_file, stdio=not (options.tcp or options.ws))
    from .compose import create_server

    server = create_server()
    code_cache.save_in_background(_CODE_CACHE)
    if options.tcp:
        server.start_tcp(options.host, options.port)
    elif options.ws:
        server.start_ws(options.host, options.port)
    else:
        server.start_io()
    return server.exit_code()


if __name__ == "__main__":
    sys.exit(main())
