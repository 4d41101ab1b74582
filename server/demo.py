"""``tether-lsp demo [DIR]``: a scripted, headless LSP session over stdio against the real server.

It starts ``python -m server`` as a subprocess, initializes, opens every Python/YAML file under DIR, prints
what the server holds for each (language, size, parse time) and an expand-selection at an interesting
position, then shuts down cleanly. Each feature adds its section through ``handlers.demo_sections``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from . import __version__
from .lspclient import make_client, raw_request
from .syntax import language_for

LANGUAGE_IDS = {".py": "python", ".pyi": "python", ".yaml": "yaml", ".yml": "yaml"}


@dataclass
class OpenFile:
    path: Path
    uri: str
    language_id: str
    text: str


Section = Callable[[LanguageClient, list[OpenFile]], Awaitable[None]]


def say(text: str = "") -> None:
    print(text, flush=True)


def short(text: str, width: int = 70) -> str:
    one_line = " ⏎ ".join(line.strip() for line in text.splitlines() if line.strip())
    return one_line if len(one_line) <= width else one_line[: width - 1] + "…"


def to_range(r: dict[str, Any]) -> types.Range:
    """A plain-JSON range as lsprotocol's."""
    return types.Range(
        start=types.Position(r["start"]["line"], r["start"]["character"]),
        end=types.Position(r["end"]["line"], r["end"]["character"]),
    )


def slice_range(text: str, r: types.Range) -> str:
    """Text of a UTF-16 range (the demo negotiates UTF-16, as VS Code does)."""
    lines = text.splitlines(keepends=True)

    def offset(p: types.Position) -> int:
        before = sum(len(line) for line in lines[: p.line])
        line = lines[p.line] if p.line < len(lines) else ""
        units, chars = 0, 0
        for ch in line:
            if units >= p.character:
                break
            units += 2 if ord(ch) > 0xFFFF else 1
            chars += 1
        return before + chars

    return text[offset(r.start) : offset(r.end)]


def _interesting_position(f: OpenFile) -> types.Position:
    """Somewhere worth expanding from: inside the first ``return`` (Python) or a nested value (YAML)."""
    lines = f.text.splitlines()
    needle = "return " if f.language_id == "python" else ": "
    candidates = [i for i, line in enumerate(lines) if needle in line and line.startswith("    ")]
    if not candidates:
        candidates = [i for i, line in enumerate(lines) if needle in line] or [0]
    line = candidates[len(candidates) // 2]
    column = lines[line].index(needle) + len(needle) + 1 if needle in lines[line] else 0
    prefix = lines[line][:column] if lines else ""
    return types.Position(line=line, character=sum(2 if ord(c) > 0xFFFF else 1 for c in prefix))


async def section_files(client: LanguageClient, files: list[OpenFile]) -> None:
    say("== Documents ==")
    for f in files:
        info = await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": f.uri}})
        errors = "  (has syntax errors)" if info["hasSyntaxErrors"] else ""
        say(
            f"{f.path.name:<18} {info['language'] or 'plain':<7} {info['bytes']:>6} bytes {info['lines']:>4} lines "
            f"{info['nodeCount']:>5} nodes  parsed in {info['parseMs']:.2f} ms{errors}"
        )
    say()


async def section_selection_range(client: LanguageClient, files: list[OpenFile]) -> None:
    say("== Expand selection (textDocument/selectionRange) ==")
    for f in files:
        position = _interesting_position(f)
        result = await client.text_document_selection_range_async(
            types.SelectionRangeParams(text_document=types.TextDocumentIdentifier(uri=f.uri), positions=[position])
        )
        say(f"{f.path.name} at {position.line + 1}:{position.character + 1}")
        step: types.SelectionRange | None = result[0] if result else None
        n = 0
        while step is not None and n < 6:
            r = step.range
            say(
                f"  {n + 1}. {r.start.line + 1}:{r.start.character + 1}-{r.end.line + 1}:{r.end.character + 1}  "
                f"{short(slice_range(f.text, r))}"
            )
            step, n = step.parent, n + 1
        if step is not None:
            say("  … up to the whole document")
    say()


def sections() -> list[tuple[str, Section]]:
    """The runtime's sections, then each feature's (``handlers.demo_sections``)."""
    from handlers import demo_sections

    return [("documents", section_files), ("selectionRange", section_selection_range), *demo_sections()]


def collect(folder: Path) -> list[OpenFile]:
    files: list[OpenFile] = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in LANGUAGE_IDS and ".venv" not in path.parts:
            uri = path.resolve().as_uri()
            if language_for(LANGUAGE_IDS[path.suffix], uri) is None:
                continue
            files.append(OpenFile(path, uri, LANGUAGE_IDS[path.suffix], path.read_text(encoding="utf-8")))
    return files


async def run(folder: Path, files: list[OpenFile], root_uri: str) -> int:
    client = make_client("tether-demo", __version__)
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "server", "--log-level", "warning")
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
        say(f"Opening {len(files)} files from {folder}")
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
    folder = Path(argv[0]) if argv else Path("examples")
    if not folder.is_dir():
        print(f"tether-lsp demo: {folder} is not a directory", file=sys.stderr)
        return 2
    files = collect(folder)
    if not files:
        print(f"tether-lsp demo: no Python or YAML files under {folder}", file=sys.stderr)
        return 1
    return asyncio.run(run(folder, files, folder.resolve().as_uri()))
