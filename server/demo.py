"""What every section of ``tether-lsp demo`` shares: the opened files, printing, ranges, and the runtime's own
sections (what the server holds for each file, an expand-selection). The driver that starts the server
and runs every feature's section is ``tether_lsp.demo``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from .lspclient import raw_request
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


def collect(folder: Path) -> list[OpenFile]:
    files: list[OpenFile] = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in LANGUAGE_IDS and ".venv" not in path.parts:
            uri = path.resolve().as_uri()
            if language_for(LANGUAGE_IDS[path.suffix], uri) is None:
                continue
            files.append(OpenFile(path, uri, LANGUAGE_IDS[path.suffix], path.read_text(encoding="utf-8")))
    return files
