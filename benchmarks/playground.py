"""Playground benchmarks against their targets. Prints figures, asserts nothing.

1. A file with 200 prompts, a one-character edit inside one of them: incremental parse + detection + map
   resolution + state, in-process (target p50 <= 5 ms), and the same over stdio (didChange -> getState).
2. How that cost grows from 10 to 1,000 prompts per file.
3. A renamed file resolved against a map of 2,000 files: with didRenameFiles (the path is given), and by
   similarity when every other file is gone from disk too (the worst case) — target p50 <= 50 ms.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.syntax import row
from tether_lsp.handlers.playground.engine import PlaygroundEngine, detect
from tether_lsp.handlers.playground.model import PlaygroundMap
from tether_lsp.handlers.playground.resolver import resolve_file_prompts
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.lspclient import make_client, raw_request
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.syntax import SyntaxCache, parse_text

WORDS = [
    "summarize",
    "translate",
    "answer",
    "explain",
    "classify",
    "extract",
    "rewrite",
    "politely",
    "briefly",
    "customer",
    "order",
    "menu",
]


def vocabulary(seed: int) -> list[str]:
    """A file's own words (projects have their own topics), made of random syllables."""
    rnd = random.Random(seed * 7919)
    syllables = [
        "ka",
        "lo",
        "mi",
        "ne",
        "su",
        "ta",
        "ri",
        "po",
        "ve",
        "da",
        "gu",
        "shi",
        "an",
        "el",
        "or",
        "us",
        "im",
        "ex",
    ]
    return ["".join(rnd.choice(syllables) for _ in range(rnd.randint(2, 4))) for _ in range(40)]


def prompts_file(count: int, seed: int = 1, shared: bool = True) -> str:
    rnd = random.Random(seed)
    words = WORDS if shared else vocabulary(seed)
    out = ['"""Generated prompts."""', "import textwrap", ""]
    for k in range(count):
        sentence = " ".join(rnd.choice(words) for _ in range(12))
        if k % 3 == 0:
            out.append(f'PROMPT_{k} = "You must {sentence} for {{user}} number {k}."')
        elif k % 3 == 1:
            out.append(f'client.create(system=f"Please {sentence} ({k}).", max_tokens={k})')
        else:
            out.append(f'messages_{k} = [{{"role": "user", "content": "Could you {sentence}? ({k})"}}]')
        out.append("")
    return "\n".join(out) + "\n"


def in_process(count: int, edits: int = 40) -> list[float]:
    text = prompts_file(count)
    doc = Document("file:///bench/prompts.py", "python", 1, text)
    cache = SyntaxCache()
    snapshot = cache.open(doc)
    engine = PlaygroundEngine(PlaygroundMap(), exists=lambda _u: True, on_map_change=lambda _e: None)
    tree = snapshot.tree
    assert tree is not None
    engine.update(doc.uri, "python", "python", 1, snapshot.text, tree, lambda _v: [])
    engine.active = doc.uri
    lines = text.split("\n")
    target = next(k for k, line in enumerate(lines) if line.startswith(f"PROMPT_{(count // 2) // 3 * 3}"))
    engine.cursors[doc.uri] = 0
    times = []
    for n in range(edits):
        column = 15 + (n % 10)
        t = time.perf_counter()
        doc.apply(n + 2, [ContentChange("x", (Pos(target, column), Pos(target, column)))], Encoding.UTF16)
        snapshot = cache.update(doc)
        tree = snapshot.tree
        assert tree is not None
        engine.update(doc.uri, "python", "python", snapshot.version, snapshot.text, tree, lambda _v: [])
        engine.cursors[doc.uri] = snapshot.text.index(b"PROMPT_")
        engine.state()
        times.append((time.perf_counter() - t) * 1000)
    return times


async def over_stdio(count: int = 200, edits: int = 40) -> list[float]:
    text = prompts_file(count)
    with tempfile.TemporaryDirectory() as tmp:
        client = make_client("bench")
        await client.start_io(sys.executable, "-m", "tether_lsp")
        init: dict[str, Any] = {"processId": None, "rootUri": Path(tmp).as_uri(), "capabilities": {}}
        await raw_request(client, "initialize", init)
        client.initialized(types.InitializedParams())
        uri = (Path(tmp) / "prompts.py").as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        client.protocol.notify(
            "tether/editor/didChangeActiveEditor",
            {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 14}},
        )
        await raw_request(client, "tether/playground/getState", {})
        times = []
        for n in range(edits):
            change: Any = types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(3, 20), types.Position(3, 20)), text="x"
            )
            t = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version=n + 2, uri=uri), [change]
                )
            )
            state = await raw_request(client, "tether/playground/getState", {})
            times.append((time.perf_counter() - t) * 1000)
        assert state["prompt"] is not None
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()  # type: ignore[no-untyped-call]
    return times


def rename_against(
    files: int, per_file: int = 5, shared: bool = False, all_gone: bool = True
) -> tuple[list[float], list[float]]:
    pmap = PlaygroundMap()
    sources = {}
    for k in range(files):
        text = prompts_file(per_file, seed=k, shared=shared)
        data = text.encode()
        parsed = detect("python", parse_text("python", data), data)
        sources[k] = parsed
        resolve_file_prompts(pmap, f"file:///ws/m{k}.py", parsed, exists=lambda _u: True)
    given, guessed = [], []
    rnd = random.Random(5)
    for n in range(20):
        k = rnd.randrange(files)
        old = next(
            e.uri for e in pmap.files.values() if e.uri.endswith(f"/m{k}.py") or e.uri.endswith(f"m{k}-{n - 1}.py")
        )
        new = f"file:///ws/moved/m{k}-{n}.py"
        t = time.perf_counter()
        resolve_file_prompts(pmap, new, sources[k], exists=lambda _u: True, renamed_from=old)
        given.append((time.perf_counter() - t) * 1000)
        newer = f"file:///ws/again/m{k}-{n}.py"

        def exists(uri: str, moved: str = new) -> bool:
            return False if all_gone else uri != moved  # only the file that was moved is gone, or every file

        t = time.perf_counter()
        resolve_file_prompts(pmap, newer, sources[k], exists=exists)
        guessed.append((time.perf_counter() - t) * 1000)
        assert pmap.by_uri(new) is None, "found by similarity"
        for entry in pmap.files.values():
            if entry.uri == newer:
                entry.uri = f"file:///ws/m{k}-{n}.py"
    return given, guessed


def main() -> None:
    print("Playground: a one-character edit inside a prompt -> map + state (in-process, incremental parse)")
    for count in (10, 100, 200, 500, 1000):
        row(f"{count} prompts in the file", in_process(count))
    print("Over stdio: didChange + tether/playground/getState round trip, 200 prompts")
    row("round trip", asyncio.run(over_stdio()))
    given, guessed = rename_against(2000, all_gone=False)
    print("A renamed file against a map of 2,000 files (5 prompts each, each file its own vocabulary)")
    row("workspace/didRenameFiles (path given)", given)
    row("found by similarity (the other files still on disk)", guessed)
    _, worst = rename_against(2000)
    row("found by similarity, every other file gone from disk too", worst)
    _, adversarial = rename_against(2000, shared=True)
    print("The same when all 10,000 prompts are drawn from one 12-word vocabulary (adversarial)")
    row("found by similarity, every other file gone from disk too", adversarial)


if __name__ == "__main__":
    main()
