"""``tether-lsp demo [DIR]``: a scripted, headless LSP session over stdio against the real server.

It starts ``python -m tether_lsp`` as a subprocess, initializes, opens every Python/YAML file under DIR (by
default the examples shipped inside the package, so the demo works from any folder after an install),
prints what the server holds for each (language, size, parse time) and an expand-selection at an interesting
position, then runs each feature's section (``tether_lsp.handlers.demo_sections``) and shuts down cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Sequence
from importlib.resources import files as package_files
from pathlib import Path
from typing import Any

from lsprotocol import types

from . import __version__
from .handlers import demo_sections
from .server.demo import OpenFile, Section, collect, say, section_files, section_selection_range
from .server.lspclient import make_client


def sections() -> list[tuple[str, Section]]:
    """The runtime's sections, then each feature's."""
    return [("documents", section_files), ("selectionRange", section_selection_range), *demo_sections()]


def shipped_examples() -> Path:
    """The examples folder installed with the package (a plain folder in the wheel and in a checkout)."""
    return Path(str(package_files(__package__ or "tether_lsp") / "examples"))


async def run(files: list[OpenFile], root_uri: str, where: str) -> int:
    client = make_client("tether-demo", __version__)

    def on_state(_params: Any) -> None:
        """A client redraws its playground view here; the demo asks ``getState`` when it prints."""

    client.feature("tether/playground/didChangeState")(on_state)
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "tether_lsp", "--log-level", "warning")
    try:
        result = await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=root_uri,
                process_id=os.getpid(),
            )
        )
        init_ms = (time.perf_counter() - started) * 1000
        client.initialized(types.InitializedParams())
        info = result.server_info
        say(
            f"Tether demo: {info.name if info else '?'} {info.version if info else ''} over stdio, "
            f"initialized in {init_ms:.0f} ms, position encoding {result.capabilities.position_encoding}"
        )
        say(f"Opening {len(files)} files from {where}")
        say()
        for f in files:
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(uri=f.uri, language_id=f.language_id, version=1, text=f.text)
                )
            )
        for _name, section in sections():
            await section(client, files)
        await client.shutdown_async(None)
        client.exit(None)
        say("Session closed cleanly (shutdown, exit).")
        return 0
    finally:
        await client.stop()  # type: ignore[no-untyped-call]


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tether-lsp demo",
        description="A scripted, headless LSP session against the real server over stdio: opens every "
        "Python and YAML file under DIR and runs each feature on them.",
    )
    parser.add_argument(
        "folder", nargs="?", type=Path, metavar="DIR", help="default: the examples shipped with tether-lsp"
    )
    folder: Path | None = parser.parse_args(list(argv)).folder
    where = str(folder)
    if folder is None:
        folder = shipped_examples()
        where = f"the examples shipped with tether-lsp ({folder})"
    if not folder.is_dir():
        print(f"tether-lsp demo: {folder} is not a directory", file=sys.stderr)
        return 2
    files = collect(folder)
    if not files:
        print(f"tether-lsp demo: no Python or YAML files under {folder}", file=sys.stderr)
        return 1
    return asyncio.run(run(files, folder.resolve().as_uri(), where))


def examples_main(argv: Sequence[str]) -> int:
    """``tether-lsp examples``: where the shipped examples are, for ``tether-lsp select`` and the editors."""
    argparse.ArgumentParser(
        prog="tether-lsp examples",
        description="Print the folder of the examples shipped with tether-lsp (read-only in an install: copy it "
        'to try edits, e.g. cp -r "$(tether-lsp examples)" tether-examples).',
    ).parse_args(list(argv))
    print(shipped_examples())
    return 0
