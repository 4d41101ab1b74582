"""Selector benchmarks over stdio on 10,000-line files, with peers measured in the same run.

Tether: `tether/applySelector` chains (the client threads ids). Peers: `textDocument/documentSymbol` of
python-lsp-server (pylsp) and jedi-language-server on the same Python file — the request a user would
otherwise make to find all functions. Prints p50/p99 and ratios; asserts nothing.
Targets: selectFunctions p50 <= 15 ms end to end; a chain step on an indexed tree p50 <= 5 ms.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from tether_lsp.server.lspclient import make_client, raw_request

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import python_file, yaml_file
from benchmarks.peers import ensure_peers
from benchmarks.syntax import pct, row

Step = tuple[Any, ...]


async def start(command: list[str], root: Path, env: dict[str, str] | None = None) -> LanguageClient:
    client = make_client("bench")
    if env is None:
        await client.start_io(*command)
    else:
        await client.start_io(*command, env=env)
    # Raw initialize: some peers answer with capabilities lsprotocol's client-side types cannot structure.
    params = {
        "processId": None,
        "rootUri": root.as_uri(),
        "capabilities": {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True}}},
    }
    await asyncio.wait_for(raw_request(client, "initialize", params), 60)
    client.initialized(types.InitializedParams())
    return client


async def stop(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]


def open_doc(client: LanguageClient, uri: str, language: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)
        )
    )


async def apply(client: LanguageClient, uri: str, step: Step, ids: list[int]) -> list[int]:
    result = await raw_request(
        client, "tether/applySelector", {"uri": uri, "selector": step[0], "args": list(step[1:]), "cursorNodeIds": ids}
    )
    return list(result["cursorNodeIds"])


async def chain(client: LanguageClient, uri: str, steps: list[Step]) -> tuple[float, list[float], int]:
    """Total ms, per-step ms, number of results."""
    ids: list[int] = []
    per_step = []
    started = time.perf_counter()
    for step in steps:
        t = time.perf_counter()
        ids = await apply(client, uri, step, ids)
        per_step.append((time.perf_counter() - t) * 1000)
        if not ids:
            break
    return (time.perf_counter() - started) * 1000, per_step, len(ids)


def edit(client: LanguageClient, uri: str, version: int, line: int, column: int, text: str, length: int = 0) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line, column), end=types.Position(line, column + length)),
                    text=text,
                )
            ],
        )
    )


SCENARIOS: dict[str, dict[str, list[Step]]] = {
    "python": {
        "selectFunctions": [("selectFunctions",)],
        "selectFunctions → selectName": [("selectFunctions",), ("selectName",)],
        "selectFunctions → filterText (a name)": [("selectFunctions",), ("filterText", r"def compute_250\b")],
        "5-step chain": [
            ("selectClasses",),
            ("selectMethods",),
            ("selectBody",),
            ("selectReturns",),
            ("selectValue",),
        ],
        "selectAt → selectEnclosing(function)": [("selectAt", 5010, 12), ("selectEnclosing", "function")],
    },
    "yaml": {
        "selectPairs": [("selectPairs",)],
        "selectPairs → selectKey": [("selectPairs",), ("selectKey",)],
        "5-step chain": [
            ("selectDocuments",),
            ("selectPairs",),
            ("filterText", "^image:"),
            ("selectValue",),
            ("selectParent",),
        ],
        "selectAt → selectEnclosing(pair)": [("selectAt", 5010, 12), ("selectEnclosing", "pair")],
    },
}


async def bench_tether(root: Path, texts: dict[str, str], runs: int) -> dict[str, float]:
    client = await start([sys.executable, "-m", "tether_lsp", "--log-level", "warning"], root)
    p50s: dict[str, float] = {}
    try:
        for language, text in texts.items():
            uri = (root / f"big.{'py' if language == 'python' else 'yaml'}").as_uri()
            open_doc(client, uri, language, text)
            print(f"Tether, {language} ({text.count(chr(10)):,} lines), over stdio")
            first_total, _, count = await chain(client, uri, SCENARIOS[language][next(iter(SCENARIOS[language]))])
            print(f"  first request on a fresh parse (no index yet): {first_total:.1f} ms ({count} results)")
            step_times: list[float] = []
            for name, steps in SCENARIOS[language].items():
                totals = []
                for _ in range(runs):
                    total, per_step, count = await chain(client, uri, steps)
                    totals.append(total)
                    step_times.extend(per_step[1:] if len(steps) > 1 else per_step)
                row(f"{name} ({count} results)", totals)
                p50s[f"{language}:{name}"] = pct(totals, 50)
            row("one chain step on an indexed tree", step_times)
            version, after_edit = 1, []
            for n in range(20):
                version += 1
                edit(client, uri, version, 100 + n * 400, 2, "x")
                total, _, _ = await chain(client, uri, SCENARIOS[language][next(iter(SCENARIOS[language]))])
                after_edit.append(total)
                version += 1
                edit(client, uri, version, 100 + n * 400, 2, "", 1)
            row(f"{next(iter(SCENARIOS[language]))} after a 1-char edit (new tree)", after_edit)
    finally:
        await stop(client)
    return p50s


async def bench_peer(name: str, command: list[str], root: Path, text: str, runs: int) -> float | None:
    try:
        client = await start(command, root)
    except Exception as exc:  # a peer that cannot start is reported, not fatal
        print(f"  {name}: could not start ({exc})")
        return None
    try:
        uri = (root / "big.py").as_uri()
        open_doc(client, uri, "python", text)
        times = []
        count = 0
        for _ in range(runs):
            t = time.perf_counter()
            symbols = await asyncio.wait_for(
                raw_request(client, "textDocument/documentSymbol", {"textDocument": {"uri": uri}}),
                120,
            )
            times.append((time.perf_counter() - t) * 1000)
            count = len(symbols or [])
        row(f"{name}: textDocument/documentSymbol ({count} top-level symbols)", times)
        return pct(times, 50)
    finally:
        await stop(client)


async def main_async(runs: int) -> None:
    python, yaml = python_file(), yaml_file()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "big.py").write_text(python, encoding="utf-8")
        (root / "big.yaml").write_text(yaml, encoding="utf-8")
        p50s = await bench_tether(root, {"python": python, "yaml": yaml}, runs)
        bin_dir = ensure_peers()
        print("Peers on the same Python file (documentSymbol: what a user would ask to find all functions)")
        pylsp = await bench_peer("pylsp", [str(bin_dir / "pylsp")], root, python, 5)
        jedi = await bench_peer("jedi-language-server", [str(bin_dir / "jedi-language-server")], root, python, 5)
    ours = p50s["python:selectFunctions"]
    print("Ratios (peer p50 / Tether selectFunctions p50)")
    for name, value in (("pylsp", pylsp), ("jedi-language-server", jedi)):
        if value is not None:
            print(f"  {name}: {value:.1f} ms / {ours:.1f} ms = {value / ours:.0f}x")


if __name__ == "__main__":
    asyncio.run(main_async(int(sys.argv[1]) if len(sys.argv) > 1 else 30))
