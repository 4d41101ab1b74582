"""Start-up: how long until a user gets a first answer, Tether against pylsp and jedi-language-server in the same
run, interleaved round by round (the systems' order rotates; the machine is noisy).

Each round and each language server: spawn -> the ``initialize`` result; then, right after ``initialized``, a
10,000-line Python file opened and its first answer (Tether: ``tether/applySelector selectFunctions``; the peers:
``textDocument/documentSymbol``, the request :mod:`benchmarks.typing` compares it with), timed from the
``didOpen`` sent to the answer. In the same rounds: ``tether-lsp mcp --root DIR`` spawned -> its ``initialize``
result (raw JSON-RPC over stdio, one message a line). Then, when they are installed, Neovim and Emacs (eglot):
the editor opens a file of a small repository and of one holding 10,000 markers and starts the server; the time
until the first file's markers are drawn (:mod:`benchmarks.startup_editors`).

Tether runs as installed: its modules' bytecode compiled once, as pip does at install for the peers' (which
have theirs next to their sources). A checkout run with ``PYTHONDONTWRITEBYTECODE=1`` in the environment
compiles every module from source at each start instead (some 0.9 of 3 billion instructions up to
``initialize``); so the Tether servers get a bytecode folder of their own (``PYTHONPYCACHEPREFIX``), filled by
one unmeasured start that also answers a first selector; ``--source`` measures the compiling start instead.

Targets: spawn -> initialize <= 2x pylsp; first selector answer >= 25x faster than the peers'; ``tether-lsp mcp``
-> initialize <= 0.5 s; markers drawn <= 1 s. Prints medians and ratios; asserts nothing.
Usage: ``python -m benchmarks.startup [--rounds N] [--no-editors] [--source] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import figures as written
from benchmarks import startup_editors
from benchmarks.corpus import python_file
from benchmarks.peers import ensure_peers
from benchmarks.selectors import open_doc, start, stop
from benchmarks.stall_common import this_checkout
from tether_lsp.server.lspclient import raw_request

TETHER = [sys.executable, "-m", "tether_lsp", "--log-level", "warning"]
MCP = [str(Path(sys.executable).parent / "tether-lsp"), "mcp", "--log-level", "warning"]


def tether_env(bytecode: Path | None) -> dict[str, str]:
    """The environment of a Tether server: this checkout first; with ``bytecode``, compiled modules kept there."""
    env = {**os.environ, **this_checkout()}
    if bytecode is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    return env


async def first_answer(
    name: str, command: list[str], root: Path, text: str, n: int, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """(spawn -> initialize result, didOpen -> first answer) in ms, on a fresh server."""
    started = time.perf_counter()
    client = await start(command, root, env)
    initialized = (time.perf_counter() - started) * 1000
    try:
        uri = (root / f"first_{name.replace(' ', '_')}_{n}.py").as_uri()
        opened = time.perf_counter()
        open_doc(client, uri, "python", text)
        if name == "Tether":
            params = {"uri": uri, "selector": "selectFunctions", "args": [], "cursorNodeIds": []}
            await raw_request(client, "tether/applySelector", params)
        else:
            await asyncio.wait_for(
                raw_request(client, "textDocument/documentSymbol", {"textDocument": {"uri": uri}}), 120
            )
        answered = (time.perf_counter() - opened) * 1000
    finally:
        await stop(client)
    return initialized, answered


async def mcp_initialize(root: Path, env: dict[str, str] | None = None) -> float:
    """``tether-lsp mcp`` spawned -> its ``initialize`` result, in ms."""
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *MCP,
        "--root",
        str(root),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env if env is not None else tether_env(None),
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write((json.dumps(hello) + "\n").encode())
    await proc.stdin.drain()
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    elapsed = (time.perf_counter() - started) * 1000
    if "result" not in json.loads(line):
        raise RuntimeError(f"tether-lsp mcp answered initialize with {line!r}")
    proc.stdin.close()
    await asyncio.wait_for(proc.wait(), 30)
    return elapsed


async def servers(rounds: int, source: bool = False) -> dict[str, dict[str, list[float]]]:
    bin_dir = ensure_peers()
    commands = {
        "Tether": TETHER,
        "pylsp": [str(bin_dir / "pylsp")],
        "jedi-language-server": [str(bin_dir / "jedi-language-server")],
    }
    text = python_file(10_000)
    times: dict[str, dict[str, list[float]]] = {name: {"initialize": [], "first": []} for name in commands}
    times["tether-lsp mcp"] = {"initialize": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        env = tether_env(None if source else Path(tmp) / "bytecode")
        envs = {"Tether": env}
        if not source:  # the start that writes the bytecode, unmeasured
            await first_answer("Tether", TETHER, root, text, -1, env)
            await mcp_initialize(root, env)
        names = list(commands)
        for r in range(rounds):
            for name in names[r % 3 :] + names[: r % 3]:
                initialized, answered = await first_answer(name, commands[name], root, text, r, envs.get(name))
                times[name]["initialize"].append(initialized)
                times[name]["first"].append(answered)
            times["tether-lsp mcp"]["initialize"].append(await mcp_initialize(root, env))
    return times


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def report(times: dict[str, dict[str, list[float]]], source: bool = False) -> dict[str, Any]:
    rounds = len(times["Tether"]["initialize"])
    print(f"Spawn -> initialize result, and open a 10,000-line file -> first answer ({rounds} rounds, interleaved)")
    how = "compiling its modules from source at each start (--source)" if source else "with its compiled bytecode"
    print(f"  Tether runs {how}; the peers with theirs (compiled at install)")
    for name, figures in times.items():
        first = ""
        if "first" in figures:
            answers = figures["first"]
            first = f"   first answer median {median(answers):7.0f} ms ({min(answers):.0f}-{max(answers):.0f})"
        spread = f"{min(figures['initialize']):.0f}-{max(figures['initialize']):.0f}"
        print(f"  {name:<22} initialize median {median(figures['initialize']):6.0f} ms ({spread}){first}")
    tether = {k: median(v) for k, v in times["Tether"].items()}
    out: dict[str, Any] = {name: {k: median(v) for k, v in f.items()} for name, f in times.items()}
    for peer in ("pylsp", "jedi-language-server"):
        theirs = {k: median(v) for k, v in times[peer].items()}
        ratios = {
            "initialize": tether["initialize"] / theirs["initialize"],
            "first": theirs["first"] / tether["first"],
        }
        out[f"ratios vs {peer}"] = ratios
        print(
            f"  Tether / {peer} initialize: {ratios['initialize']:.2f}x (target <= 2 vs pylsp);   "
            f"{peer} / Tether first answer: {ratios['first']:.1f}x (target >= 25)"
        )
    print(f"  tether-lsp mcp -> initialize median {out['tether-lsp mcp']['initialize']:.0f} ms (target <= 500)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-editors", action="store_true", help="skip Neovim and Emacs")
    parser.add_argument("--json", type=Path, help="also write the figures to this file, as JSON")
    parser.add_argument(
        "--source", action="store_true", help="Tether without bytecode (as PYTHONDONTWRITEBYTECODE=1 leaves a checkout)"
    )
    args = parser.parse_args()
    logging.getLogger("pygls.protocol").setLevel(logging.ERROR)  # the servers' notifications nobody follows here
    results = {"servers": report(asyncio.run(servers(args.rounds, args.source)), args.source)}
    if not args.no_editors:
        results["editors"] = startup_editors.main()
    written.write(results)


if __name__ == "__main__":
    main()
