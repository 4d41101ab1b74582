"""The agents' front on a long file: the latency of ``select`` and ``edit`` through the MCP tools' adapters
in-process on a generated Python file, and the time from starting ``tether-lsp mcp`` to its first answers over
stdio (the second half of ``benchmarks/agent_edits.py``'s report).

``python -m benchmarks.agent_latency [--lines N] [--rounds N]`` prints the latency part alone (no start-ups, no
history): the whole-file selector chain with a name filter (``select a function by name``) among them."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.syntax import pct
from tether_lsp.handlers.selectors.engine import resolve, run, validate
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.select import steps as select_steps
from tether_lsp.mcp.tools import table
from tether_lsp.mcp.trees import Parsed
from tether_lsp.server.positions import Encoding, LineIndex, Pos

#: The tools as the front calls them: arguments checked first.
edit, read, select = (table()[name].answer for name in ("edit", "read", "select"))


def big_file(lines: int) -> str:
    out: list[str] = ['"""A generated module."""\n', "\n"]
    k = 0
    while len(out) < lines:
        out += [
            f"class Store{k}:\n",
            f"    def get_{k}(self, key):\n",
            f"        value = self.data[key] + {k}\n",
            "        return value\n",
            "\n",
            f"    def put_{k}(self, key, value):\n",
            "        self.data[key] = value\n",
            "\n",
            "\n",
        ]
        k += 1
    return "".join(out[:lines])


def latency(lines: int, rounds: int, seed: int) -> dict[str, Any]:
    """``select`` (three chains an agent uses: a class's methods from its node id, a function found by name, every
    class's methods filtered by name) and ``edit`` (an ``old_text`` on the version the previous edit answered)."""
    text = big_file(lines)
    classes = text.count("\nclass ")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "big.py").write_text(text)
        context = Context([Path(folder)])
        first = time.perf_counter()
        ids = [
            m["node_id"]
            for m in select(context, {"path": "big.py", "selectors": ["selectClasses"]}).structured["matches"]
        ]
        cold = (time.perf_counter() - first) * 1000
        chains: dict[str, Callable[[int], dict[str, Any]]] = {
            "select a class's methods from its node id": lambda k: {"selectors": ["selectMethods"], "from": [ids[k]]},
            "select a function by name (whole file)": lambda k: {
                "selectors": ["selectFunctions", ["filterText", f"^def get_{k}\\b"]]
            },
            "select every class's methods, filtered by name": lambda k: {
                "selectors": ["selectClasses", "selectMethods", ["filterText", f"^def get_{k}\\b"]]
            },
        }
        timings: dict[str, list[float]] = {}
        in_engine: dict[str, list[float]] = {}
        parsed = context.trees.parsed(context.load("big.py"))
        for name, arguments in chains.items():
            samples, engine = timings[name], in_engine[name] = [], []
            for _ in range(rounds):
                call = {"path": "big.py", **arguments(rng.randrange(classes))}
                started = time.perf_counter()
                found = select(context, call).structured["matches"]
                samples.append((time.perf_counter() - started) * 1000)
                assert found, call
                engine.append(engine_ms(parsed, call))
        version = read(context, {"path": "big.py", "targets": [ids[0]]}).structured["version"]
        edits = timings["edit by old_text on the version last answered"] = []
        signs = {k: "+" for k in range(classes)}
        for _ in range(rounds):
            k = rng.randrange(classes)
            old = f"self.data[key] {signs[k]} {k}\n"
            signs[k] = "-" if signs[k] == "+" else "+"
            started = time.perf_counter()
            answer = edit(
                context,
                {
                    "path": "big.py",
                    "base_version": version,
                    "edits": [{"old_text": old, "new_text": f"self.data[key] {signs[k]} {k}\n"}],
                },
            ).structured
            edits.append((time.perf_counter() - started) * 1000)
            assert answer["written"], answer
            version = answer["version"]
    print(f"Latency on a {lines:,}-line Python file ({classes:,} classes), adapters in-process, {rounds} calls each")
    print(f"  first select (reads and parses the file): {cold:.1f} ms")
    calls: dict[str, dict[str, Any]] = {}
    for name, samples in timings.items():
        target = 20.0 if name.startswith("edit") else 10.0
        p50, p99 = pct(samples, 50), pct(samples, 99)
        met = "met" if p50 <= target else "MISSED"
        print(f"  {name:<48} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   (target p50 <= {target:g} ms: {met})")
        calls[name] = {"p50_ms": p50, "p99_ms": p99, "target_p50_ms": target, "met": p50 <= target}
        if name in in_engine:
            calls[name]["selector_engine_p50_ms"] = pct(in_engine[name], 50)
            print(f"  {'  of which the selector engine alone':<48} p50 {pct(in_engine[name], 50):7.2f} ms")
    return {"lines": lines, "classes": classes, "rounds": rounds, "first_select_ms": cold, "calls": calls}


def engine_ms(parsed: Parsed, call: dict[str, Any]) -> float:
    """Milliseconds the selector engine alone takes for a ``select`` call's chain (the LSP's applySelector runs the
    same), on the parse the call used."""
    steps = [validate(name, args) for name, args in select_steps(call["selectors"])]
    cursors = resolve(parsed.ids, call.get("from", []))
    lines = LineIndex(parsed.text)
    started = time.perf_counter()
    for step in steps:
        cursors = run(
            step,
            parsed.index,
            parsed.table,
            parsed.tree,
            cursors,
            lambda n, c: lines.offset_of(Pos(n, c), Encoding.UTF32),
        )
    return (time.perf_counter() - started) * 1000


def one_start(command: Path, folder: str) -> tuple[float, float]:
    """Milliseconds from starting ``tether-lsp mcp`` to its initialize answer, and to its first tools/call answer."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(command), "mcp", "--root", folder],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None
    assert stdout is not None

    def send(message: dict[str, Any]) -> None:
        stdin.write((json.dumps(message) + "\n").encode())
        stdin.flush()

    def answer(request: int) -> float:
        while json.loads(stdout.readline()).get("id") != request:
            pass
        return (time.perf_counter() - started) * 1000

    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    initialized = answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "outline", "arguments": {"path": "a.py"}},
        }
    )
    answered = answer(2)
    stdin.close()
    proc.wait(timeout=30)
    return initialized, answered


def start_up(times: int) -> dict[str, Any]:
    """``tether-lsp mcp`` started, then the answers to initialize and to a first tools/call, over stdio."""
    command = Path(sys.executable).parent / "tether-lsp"
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "a.py").write_text("def f():\n    return 1\n")
        initialized, answered = zip(*(one_start(command, folder) for _ in range(times)), strict=True)
    print(f"tether-lsp mcp start-up over stdio ({times} starts): median / max")
    print(f"  to the initialize answer:       {statistics.median(initialized):6.0f} / {max(initialized):6.0f} ms")
    print(f"  to the first tools/call answer: {statistics.median(answered):6.0f} / {max(answered):6.0f} ms")
    return {
        "starts": times,
        "initialize_ms": {"median": statistics.median(initialized), "max": max(initialized)},
        "first_call_ms": {"median": statistics.median(answered), "max": max(answered)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agent_latency")
    parser.add_argument("--lines", type=int, default=10_000, help="lines of the file latency is measured on")
    parser.add_argument("--rounds", type=int, default=100, help="select and edit calls timed")
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()
    latency(options.lines, options.rounds, options.seed)


if __name__ == "__main__":
    main()
