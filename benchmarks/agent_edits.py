"""Agents' edits on real commits: how each way of naming an edit fares when the file moved on since the agent read it.

Consecutive first-parent commits of click's history (or ``--repo``). In a Python file whose change has two or
more hunks (as ``git diff`` groups them: changes within 6 lines of each other are one hunk), each hunk in turn
is the agent's edit, written against the commit's parent as agents write search/replace: the hunk's old lines
plus one line of context each side, and the same span of the new file. Meanwhile the "user" has already made
the commit's other hunks. The right answer is the committed file, exactly.

Strategies, compared on the same cases:

* line range — the hunk's lines (as numbered in the version the agent read) replaced in the file as it is now,
  as MCP servers that edit by line range do;
* first match — the first occurrence of the old text in the file as it is now replaced, no base version;
* Tether ``edit`` with ``old_text`` and ``base_version``; with ``old_text``, ``base_version`` and the hunk's
  ``line``; with a ``range`` in ``base_version``.

Tether's are called through the MCP tools' adapters in-process (``tether_lsp.mcp.read`` and ``.edit`` on a real
file in a temporary root), not through the stdio transport. Printed per strategy: files exactly as committed,
edits written in the wrong place, refused (not found, conflict), ambiguous; then every case a Tether strategy
missed. Then the latency of ``select`` and ``edit`` on a 10,000-line file (``--lines``) and the time from
starting ``tether-lsp mcp`` to its first answers. Asserts nothing.
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.history import Blobs, changed_python, collect, sampled_pairs
from benchmarks.syntax import pct
from tether_lsp.handlers.selectors.engine import resolve, run, validate
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.edit import edit
from tether_lsp.mcp.read import read
from tether_lsp.mcp.select import select
from tether_lsp.mcp.select import steps as select_steps
from tether_lsp.mcp.trees import Parsed
from tether_lsp.server.errors import TetherError
from tether_lsp.server.positions import Encoding, LineIndex, Pos

SEED = 31
COMMITS = 300
CONTEXT = 3  # lines of context git's hunks have: changes within 2 * CONTEXT lines of each other are one hunk
STRATEGIES = (
    "line range",
    "first match",
    "tether old_text",
    "tether old_text + line",
    "tether range",
)
#: What each strategy is held to: no edit in the wrong place, and for some every file exactly as committed.
TARGETS = {
    "tether old_text": "none wrong",
    "tether old_text + line": "100% exact, none wrong",
    "tether range": "100% exact, none wrong",
}


@dataclass(frozen=True)
class Case:
    label: str
    base: bytes  # the commit's parent: what the agent read
    current: bytes  # the parent with the commit's other hunks made: the file when the edit arrives
    new: bytes  # the committed file
    old_text: str  # the hunk's old lines with a line of context each side
    new_text: str
    first: int  # 0-based lines [first, last) of old_text in base
    last: int


def hunks(a: list[bytes], b: list[bytes]) -> list[tuple[int, int, int, int]]:
    """``git diff``'s hunks as line spans ``(i1, i2, j1, j2)`` of the old and new lines that changed."""
    out = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        changed = [op for op in group if op[0] != "equal"]
        out.append((changed[0][1], changed[-1][2], changed[0][3], changed[-1][4]))
    return out


def cases_of_commit(blobs: Blobs, repo: Path, parent: str, commit: str) -> Iterator[Case]:
    for old_path, new_path in changed_python(repo, parent, commit):
        old, new = blobs.read(parent, old_path), blobs.read(commit, new_path)
        if old is None or new is None or b"\r" in old or b"\r" in new:
            continue
        try:
            old.decode("utf-8"), new.decode("utf-8")
        except UnicodeDecodeError:
            continue
        a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
        found = hunks(a, b)
        if len(found) < 2:
            continue
        for k, (i1, i2, j1, j2) in enumerate(found):
            first, last = max(i1 - 1, 0), min(i2 + 1, len(a))
            before, after = i1 - first, last - i2
            old_text, new_text = b"".join(a[first:last]), b"".join(b[j1 - before : j2 + after])
            if not old_text:
                continue
            current = b"".join(b[:j1] + a[i1:i2] + b[j2:])
            label = f"{commit[:8]}:{new_path}: hunk {k + 1} of {len(found)}, line {first + 1}"
            yield Case(label, old, current, new, old_text.decode(), new_text.decode(), first, last)


# --- the strategies ---------------------------------------------------------------------------------------


def by_line_range(case: Case) -> tuple[str, bytes | None]:
    lines = case.current.splitlines(keepends=True)
    out = b"".join(lines[: case.first]) + case.new_text.encode() + b"".join(lines[case.last :])
    return "written", out


def by_first_match(case: Case) -> tuple[str, bytes | None]:
    current, old = case.current, case.old_text.encode()
    at = current.find(old)
    if at < 0:
        return "refused: not found", None
    return "written", current[:at] + case.new_text.encode() + current[at + len(old) :]


class Tether:
    """Tether's ``edit`` through the MCP tools' adapters, on a real file in a temporary root."""

    def __init__(self, folder: Path) -> None:
        self.context = Context([folder])
        self.file = folder / "case.py"

    def base_version(self, case: Case) -> str:
        self.file.write_bytes(case.base)
        version: str = read(self.context, {"path": "case.py"}).structured["version"]
        return version

    def edit(self, case: Case, base_version: str, target: dict[str, Any]) -> tuple[str, bytes | None]:
        self.file.write_bytes(case.current)  # the user's changes, made outside
        try:
            answer = edit(
                self.context,
                {"path": "case.py", "base_version": base_version, "edits": [{**target, "new_text": case.new_text}]},
            ).structured
        except TetherError as exc:
            return f"refused: {exc.message}", None
        status = answer["results"][0]["status"]
        if not answer["written"]:
            return ("ambiguous" if status == "ambiguous" else f"refused: {status}"), None
        return "written", self.file.read_bytes()


def range_of(case: Case) -> dict[str, Any]:
    """The old text's span in the base as a ``range`` (1-based; the end is the start of the line after it)."""
    lines = case.base.splitlines(keepends=True)
    end = {"line": case.last + 1, "column": 1}
    if case.last == len(lines) and not lines[-1].endswith(b"\n"):  # the last line, without a line break
        end = {"line": case.last, "column": len(lines[-1].decode()) + 1}
    return {"start": {"line": case.first + 1, "column": 1}, "end": end}


def outcomes(case: Case, tether: Tether) -> dict[str, str]:
    """Each strategy's outcome on ``case``: exact, wrong, ambiguous or refused (with why)."""
    base_version = tether.base_version(case)
    runs: dict[str, Callable[[], tuple[str, bytes | None]]] = {
        "line range": lambda: by_line_range(case),
        "first match": lambda: by_first_match(case),
        "tether old_text": lambda: tether.edit(case, base_version, {"old_text": case.old_text}),
        "tether old_text + line": lambda: tether.edit(
            case, base_version, {"old_text": case.old_text, "line": case.first + 1}
        ),
        "tether range": lambda: tether.edit(case, base_version, {"range": range_of(case)}),
    }
    out = {}
    for name, attempt in runs.items():
        status, text = attempt()
        out[name] = status if text is None else ("exact" if text == case.new else "wrong")
    return out


def kind(outcome: str) -> str:
    return outcome.split(":", 1)[0]


def compare(cases: list[Case]) -> None:
    print("Strategies go through the MCP tools' adapters in-process (tether_lsp.mcp.read and .edit on a real")
    print("file in a temporary root), not through the stdio transport.")
    counts: dict[str, Counter[str]] = {name: Counter() for name in STRATEGIES}
    repeated = 0
    missed: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        tether = Tether(Path(folder))
        for case in cases:
            repeated += case.current.count(case.old_text.encode()) > 1
            for name, outcome in outcomes(case, tether).items():
                counts[name][kind(outcome)] += 1
                if name.startswith("tether") and kind(outcome) != "exact":
                    missed.append(f"  {name}: {case.label}: {outcome}")
    total = len(cases)
    print("| strategy | edits | exactly as committed | in the wrong place | refused | ambiguous | target |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in STRATEGIES:
        c = counts[name]
        share = 100 * c["exact"] / total if total else 0.0
        target = TARGETS.get(name, "-")
        met = ""
        if name in TARGETS:
            ok = c["wrong"] == 0 and ("100%" not in target or c["exact"] == total)
            met = " (met)" if ok else " (MISSED)"
        print(
            f"| {name} | {total} | {c['exact']} ({share:.1f}%) | {c['wrong']} | {c['refused']} | {c['ambiguous']} "
            f"| {target}{met} |"
        )
    print(f"Old text found more than once in the file as it is now (first match picks one): {repeated}")
    if missed:
        print(f"Cases a Tether strategy did not make exactly as committed ({len(missed)}):")
        print("\n".join(missed))


# --- latency ------------------------------------------------------------------------------------------------


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


def latency(lines: int, rounds: int) -> None:
    """``select`` (three chains an agent uses: a class's methods from its node id, a function found by name, every
    class's methods filtered by name) and ``edit`` (an ``old_text`` on the version the previous edit answered)."""
    text = big_file(lines)
    classes = text.count("\nclass ")
    rng = random.Random(SEED)
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
    for name, samples in timings.items():
        target = 20.0 if name.startswith("edit") else 10.0
        p50, p99 = pct(samples, 50), pct(samples, 99)
        met = "met" if p50 <= target else "MISSED"
        print(f"  {name:<48} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   (target p50 <= {target:g} ms: {met})")
        if name in in_engine:
            print(f"  {'  of which the selector engine alone':<48} p50 {pct(in_engine[name], 50):7.2f} ms")


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


def start_up(times: int) -> None:
    """``tether-lsp mcp`` started, then the answers to initialize and to a first tools/call, over stdio."""
    command = Path(sys.executable).parent / "tether-lsp"
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "a.py").write_text("def f():\n    return 1\n")
        initialized, answered = zip(*(one_start(command, folder) for _ in range(times)), strict=True)
    print(f"tether-lsp mcp start-up over stdio ({times} starts): median / max")
    print(f"  to the initialize answer:       {statistics.median(initialized):6.0f} / {max(initialized):6.0f} ms")
    print(f"  to the first tools/call answer: {statistics.median(answered):6.0f} / {max(answered):6.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--lines", type=int, default=10_000, help="lines of the file latency is measured on")
    parser.add_argument("--rounds", type=int, default=300, help="select and edit calls timed")
    parser.add_argument("--starts", type=int, default=5, help="times tether-lsp mcp is started")
    options, _ = parser.parse_known_args()
    repo, name, sample = sampled_pairs(__doc__ or "", COMMITS, SEED)
    cases = collect(repo, sample, cases_of_commit)
    files = len({c.label.rsplit(":", 1)[0] for c in cases})
    print(f"Agents' edits on {name}'s history: {len(sample)} commit pairs (seed {SEED}), {files} files with two or")
    print(f"more hunks, {len(cases)} hunks each edited by the agent while the user made the others")
    compare(cases)
    latency(options.lines, options.rounds)
    start_up(options.starts)


if __name__ == "__main__":
    main()
