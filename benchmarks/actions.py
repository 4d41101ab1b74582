"""Structural actions over stdio: what ``tether/applyAction`` costs on a 10,000-line Python file and a 10,000-line
YAML file, from the request sent to the answer received (the client's view), for each action on a target in the
middle of the file, plus ``textDocument/codeAction`` at a cursor. The targets come from selector chains, as an
editor's would. Target: p50 <= 20 ms per action. Prints figures; asserts nothing.

Usage: ``python -m benchmarks.actions [--runs 30] [--json FILE]``
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import figures
from benchmarks.corpus import python_file, yaml_file
from benchmarks.selectors import apply, open_doc, start, stop
from benchmarks.syntax import pct, row
from tether_lsp.server.lspclient import raw_request

PY_URI_NAME, YAML_URI_NAME = "big.py", "big.yaml"


async def timed(client: Any, method: str, params: dict[str, Any], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await raw_request(client, method, params)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def bench(root: Path, runs: int) -> dict[str, float]:
    python, yaml = python_file(), yaml_file()
    py_uri, yaml_uri = (root / PY_URI_NAME).as_uri(), (root / YAML_URI_NAME).as_uri()
    client = await start([sys.executable, "-m", "tether_lsp", "--log-level", "warning"], root)
    out: dict[str, float] = {}
    try:
        open_doc(client, py_uri, "python", python)
        open_doc(client, yaml_uri, "yaml", yaml)
        functions = await apply(client, py_uri, ("selectFunctions",), [])
        middle = functions[len(functions) // 2 : len(functions) // 2 + 2]
        params = await apply(client, py_uri, ("selectParameters",), middle[:1])
        items = await apply(client, yaml_uri, ("selectChildren",), [])
        items = await apply(client, yaml_uri, ("selectChildren",), items[len(items) // 2 : len(items) // 2 + 1])
        document = {"uri": py_uri, "version": 1}
        cases: list[tuple[str, str, dict[str, Any]]] = [
            ("python: remove a function", "remove", {"targets": {"cursorNodeIds": middle[:1]}}),
            ("python: clone a function", "clone", {"targets": {"cursorNodeIds": middle[:1]}}),
            ("python: swap two functions", "swap", {"targets": {"cursorNodeIds": middle}}),
            ("python: moveUp a function", "moveUp", {"targets": {"cursorNodeIds": middle[1:]}}),
            ("python: wrap a function in try", "wrap", {"targets": {"cursorNodeIds": middle[:1]}, "wrapper": "try"}),
        ]
        if params:
            cases.append(("python: remove a parameter", "remove", {"targets": {"cursorNodeIds": params[-1:]}}))
        print(f"tether/applyAction, request to answer ({runs} runs each; 10,000-line files)")
        for label, action, more in cases:
            samples = await timed(
                client, "tether/applyAction", {"textDocument": document, "action": action, **more}, runs
            )
            row(label, samples)
            out[label] = pct(samples, 50)
        if items:
            label = "yaml: remove an entry"
            samples = await timed(
                client,
                "tether/applyAction",
                {
                    "textDocument": {"uri": yaml_uri, "version": 1},
                    "action": "remove",
                    "targets": {"cursorNodeIds": items[:1]},
                },
                runs,
            )
            row(label, samples)
            out[label] = pct(samples, 50)
        line = python.count("\n", 0, python.index("def ", len(python) // 2))
        position = {"line": line + 1, "character": 4}
        label = "python: codeAction (Move up / Move down) at a cursor"
        samples = await timed(
            client,
            "textDocument/codeAction",
            {
                "textDocument": {"uri": py_uri},
                "range": {"start": position, "end": position},
                "context": {"diagnostics": []},
            },
            runs,
        )
        row(label, samples)
        out[label] = pct(samples, 50)
    finally:
        await stop(client)
    worst = max(out.values())
    print(f"slowest p50: {worst:.2f} ms (target <= 20 ms)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", type=Path, help="also write the figures to this file, as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(bench(Path(tmp), args.runs))
    figures.write(out)


if __name__ == "__main__":
    main()
