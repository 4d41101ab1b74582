"""Foundation benchmarks: parsing, incremental snapshots, stdio round trips, start-up and memory.

Run with `make bench`. Prints figures; asserts nothing (tests never assert wall-clock times).
Targets: one-char didChange on 10,000 lines -> new snapshot p50 <= 6 ms; a request on the current
version never reparses; spawn -> initialize result <= 0.6 s; RSS with 50 open 10,000-line files <= 300 MB.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import psutil
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from tether_lsp.server.lspclient import make_client, raw_request

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import python_file, yaml_file
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.syntax import SyntaxCache, parse_text


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def row(label: str, samples: list[float], unit: str = "ms") -> None:
    print(f"  {label:<58} p50 {pct(samples, 50):8.2f} {unit}   p99 {pct(samples, 99):8.2f} {unit}   (n={len(samples)})")


def bench_in_process(name: str, language: str, text: str) -> None:
    data = text.encode()
    print(f"{name}: {len(data):,} bytes, {text.count(chr(10)):,} lines")
    full = []
    for _ in range(10):
        t = time.perf_counter()
        parse_text(language, data)
        full.append((time.perf_counter() - t) * 1000)
    row("full parse (tree-sitter)", full)
    print("  didChange -> new snapshot (apply the change + incremental reparse), each on the original file:")
    cache = SyntaxCache()
    doc = Document(f"file:///bench.{language}", language, 1, text)
    cache.open(doc)
    version = 1
    for kind in EDIT_KINDS:
        times = []
        for line, column in edit_sites(text, kind, 200):
            version += 1
            t = time.perf_counter()
            doc.apply(version, [ContentChange("x", (Pos(line, column), Pos(line, column)))], Encoding.UTF16)
            cache.update(doc)
            times.append((time.perf_counter() - t) * 1000)
            version += 1  # undo (not measured), so every edit lands on the original, valid file
            doc.apply(version, [ContentChange("", (Pos(line, column), Pos(line, column + 1)))], Encoding.UTF16)
            cache.update(doc)
        row(f"1 char, {kind}", times)


EDIT_KINDS = ("typing inside a word", "typing at a line end", "at column 4 (may break indentation)")


def edit_sites(text: str, kind: str, count: int) -> list[tuple[int, int]]:
    """Where each one-character edit lands: spread over the file, deterministic."""
    lines = text.split("\n")
    sites: list[tuple[int, int]] = []
    step = max(1, len(lines) // count)
    for i in range(count):
        n = (i * step + 7) % (len(lines) - 1)
        line = lines[n]
        if kind == EDIT_KINDS[0]:
            words = [j for j in range(1, len(line)) if line[j - 1].isalpha() and line[j].isalpha()]
            if not words:
                continue
            sites.append((n, len(line[: words[len(words) // 2]].encode("utf-16-le")) // 2))
        elif kind == EDIT_KINDS[1]:
            sites.append((n, len(line.encode("utf-16-le")) // 2))
        else:
            sites.append((n, min(4, len(line))))
    return sites


async def start_client() -> tuple[LanguageClient, float]:
    client = make_client("bench")
    t = time.perf_counter()
    await client.start_io(sys.executable, "-m", "tether_lsp", "--log-level", "warning")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None))
    elapsed = (time.perf_counter() - t) * 1000
    client.initialized(types.InitializedParams())
    return client, elapsed


async def stop_client(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]


def open_doc(client: LanguageClient, uri: str, language: str, text: str) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        )
    )


async def info(client: LanguageClient, uri: str) -> Any:
    return await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}})


async def bench_stdio(python: str, yaml: str) -> None:
    starts = []
    for _ in range(5):
        client, ms = await start_client()
        starts.append(ms)
        await stop_client(client)
    print("Server start (spawn python -m server -> initialize result)")
    row("spawn -> initialize result", starts)

    client, _ = await start_client()
    try:
        for name, language, text in (("python", "python", python), ("yaml", "yaml", yaml)):
            uri = f"file:///bench/{name}.{'py' if language == 'python' else 'yaml'}"
            open_doc(client, uri, language, text)
            await info(client, uri)
            lines = text.count("\n")
            round_trips = []
            version = 1
            for line, column in edit_sites(text, EDIT_KINDS[0], 200):
                version += 1
                t = time.perf_counter()
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                        content_changes=[
                            types.TextDocumentContentChangePartial(
                                range=types.Range(start=types.Position(line, column), end=types.Position(line, column)),
                                text="x",
                            )
                        ],
                    )
                )
                await client.text_document_selection_range_async(
                    types.SelectionRangeParams(
                        text_document=types.TextDocumentIdentifier(uri=uri), positions=[types.Position(line, column)]
                    )
                )
                round_trips.append((time.perf_counter() - t) * 1000)
                version += 1  # undo, so each measured edit lands on the original file
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                        content_changes=[
                            types.TextDocumentContentChangePartial(
                                range=types.Range(
                                    start=types.Position(line, column), end=types.Position(line, column + 1)
                                ),
                                text="",
                            )
                        ],
                    )
                )
            print(f"stdio, {name} ({lines:,} lines)")
            row("didChange (typing in a word) + selectionRange round trip", round_trips)
            before = (await info(client, uri))["parseCount"]
            requests = []
            for i in range(100):
                t = time.perf_counter()
                await client.text_document_selection_range_async(
                    types.SelectionRangeParams(
                        text_document=types.TextDocumentIdentifier(uri=uri), positions=[types.Position(i * 50, 2)]
                    )
                )
                requests.append((time.perf_counter() - t) * 1000)
            after = (await info(client, uri))["parseCount"]
            row("selectionRange on the current version", requests)
            print(f"  parses during 100 requests on the current version: {after - before}")
    finally:
        await stop_client(client)


async def bench_memory(python: str, yaml: str) -> None:
    client, _ = await start_client()
    try:
        server_proc = client._server
        assert server_proc is not None
        proc = psutil.Process(server_proc.pid)
        base = proc.memory_info().rss / 2**20
        for i in range(50):
            text, language = (python, "python") if i % 2 == 0 else (yaml, "yaml")
            open_doc(client, f"file:///mem/{i}.{'py' if language == 'python' else 'yaml'}", language, text)
        await info(client, "file:///mem/49.yaml")
        rss = proc.memory_info().rss / 2**20
        print("Memory")
        print(f"  RSS after start: {base:.0f} MB; with 50 open 10,000-line files (25 Python, 25 YAML): {rss:.0f} MB")
    finally:
        await stop_client(client)


def main() -> None:
    python, yaml = python_file(), yaml_file()
    print("== Tether foundation benchmarks ==")
    bench_in_process("Python", "python", python)
    bench_in_process("YAML", "yaml", yaml)
    asyncio.run(bench_stdio(python, yaml))
    asyncio.run(bench_memory(python, yaml))


if __name__ == "__main__":
    main()
