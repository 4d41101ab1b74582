"""Typing speed: what a request costs right after the user typed, against pylsp and
jedi-language-server in the same run, the systems interleaved round by round (the machines are noisy).

On a 10,000-line Python file (and, Tether only, a 10,000-line YAML file), each round and each system:

* one typed character, then the request (Tether: ``tether/applySelector selectFunctions``; on YAML
  ``selectDocuments``, a request whose answer is small, so the figure is what typing costs and not the
  encoding of 10,000 ranges; the peers: ``textDocument/documentSymbol``, what a user asks to find functions);
* 60 characters sent back to back (a client that does not debounce), then the same request;
* Tether only: ``tether/documentInfo`` after one typed character (and, on YAML, after one typed inside a
  mapping key a few lines further down: tree-sitter-yaml re-parses the rest of the file after such an edit,
  where an edit in a comment costs no parse at all).

Times run from the first change sent to the answer received. Then spawn -> ``initialize`` result for the
three servers, interleaved; Tether's first request on a file opened just after start-up; and Tether's RSS
with 50 open 10,000-line files (opened, then each queried).
Targets: one change p50 <= 10 ms; 60 changes p50 <= 25 ms and >= 30x both peers; documentInfo p50 <= 4 ms;
spawn -> initialize p50 <= jedi-language-server's; RSS <= 250 MB. Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import python_file, yaml_file
from benchmarks.peers import ensure_peers
from benchmarks.selectors import edit, open_doc, start, stop
from benchmarks.syntax import pct, row
from tether_lsp.server.lspclient import raw_request

ROUNDS = 15
BURST = 60
TETHER = [sys.executable, "-m", "tether_lsp", "--log-level", "warning"]


@dataclass
class System:
    """One server with its open documents, where typing goes, and its figures."""

    name: str
    client: LanguageClient
    request: Callable[[str], Awaitable[Any]]
    docs: dict[str, str]  # language -> uri
    version: dict[str, int] = field(default_factory=dict)
    column: dict[tuple[int, int], int] = field(default_factory=dict)  # where typing started -> where it is
    figures: dict[str, list[float]] = field(default_factory=dict)

    def type_chars(self, language: str, count: int, where: tuple[int, int]) -> None:
        uri = self.docs[language]
        for _ in range(count):
            self.version[language] = self.version.get(language, 1) + 1
            column = self.column.get(where, where[1])
            edit(self.client, uri, self.version[language], where[0], column, "x")
            self.column[where] = column + 1

    def record(self, label: str, ms: float) -> None:
        self.figures.setdefault(label, []).append(ms)


def comment_line(text: str, language: str) -> tuple[str, tuple[int, int]]:
    """The text with a comment line opened in the middle, and where typing goes (the end of that line)."""
    lines = text.split("\n")
    middle = len(lines) // 2
    while not lines[middle].strip() or (language == "yaml" and lines[middle].lstrip().startswith(("-", "#"))):
        middle += 1
    indent = lines[middle][: len(lines[middle]) - len(lines[middle].lstrip())]
    lines.insert(middle, indent + "# ")
    return "\n".join(lines), (middle, len(indent) + 2)


def inside_a_key(text: str, after: int) -> tuple[int, int]:
    """Where typing goes into a mapping key (after its first letter), on the first such line after ``after``."""
    lines = text.split("\n")
    line = after + 1
    while not re.match(r"\s*[a-z]{3,}:", lines[line]):
        line += 1
    return line, len(lines[line]) - len(lines[line].lstrip()) + 1


async def timed(action: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await action()
    return (time.perf_counter() - started) * 1000


async def one_round(system: System, language: str, line: tuple[int, int], key: tuple[int, int] | None = None) -> None:
    uri = system.docs[language]

    async def one() -> None:
        system.type_chars(language, 1, line)
        await system.request(uri)

    async def burst() -> None:
        system.type_chars(language, BURST, line)
        await system.request(uri)

    system.record(f"{language}: 1 change, then the request", await timed(one))
    system.record(f"{language}: {BURST} changes back to back, then the request", await timed(burst))
    if system.name == "Tether":

        async def info() -> None:
            system.type_chars(language, 1, line)
            await raw_request(system.client, "tether/documentInfo", {"textDocument": {"uri": uri}})

        system.record(f"{language}: 1 change, then tether/documentInfo", await timed(info))
        if key is not None:

            async def info_after_key() -> None:
                system.type_chars(language, 1, key)
                await raw_request(system.client, "tether/documentInfo", {"textDocument": {"uri": uri}})

            system.record(f"{language}: 1 change inside a key, then tether/documentInfo", await timed(info_after_key))


async def start_system(name: str, command: list[str], root: Path, texts: dict[str, str]) -> System:
    client = await start(command, root)
    if name == "Tether":

        async def request(uri: str) -> Any:
            params = {"uri": uri, "selector": "selectDocuments" if uri.endswith(".yaml") else "selectFunctions"}
            return await raw_request(client, "tether/applySelector", {**params, "args": [], "cursorNodeIds": []})

    else:

        async def request(uri: str) -> Any:
            return await asyncio.wait_for(
                raw_request(client, "textDocument/documentSymbol", {"textDocument": {"uri": uri}}), 120
            )

    docs = {}
    for language, text in texts.items():
        uri = (root / f"{name.replace(' ', '_')}.{'py' if language == 'python' else 'yaml'}").as_uri()
        open_doc(client, uri, language, text)
        docs[language] = uri
    system = System(name, client, request, docs)
    for uri in docs.values():
        await request(uri)  # warm: the first parse and any index are not what typing costs
    return system


async def bench_typing(root: Path, bin_dir: Path) -> None:
    python, py_where = comment_line(python_file(), "python")
    yaml, yaml_where = comment_line(yaml_file(), "yaml")
    lines = {"python": py_where, "yaml": yaml_where}
    keys = {"yaml": inside_a_key(yaml, yaml_where[0])}
    systems = [
        await start_system("Tether", TETHER, root, {"python": python, "yaml": yaml}),
        await start_system("pylsp", [str(bin_dir / "pylsp")], root, {"python": python}),
        await start_system("jedi-language-server", [str(bin_dir / "jedi-language-server")], root, {"python": python}),
    ]
    try:
        for r in range(ROUNDS):
            order = systems[r % len(systems) :] + systems[: r % len(systems)]
            for system in order:
                for language in system.docs:
                    await one_round(system, language, lines[language], keys.get(language))
    finally:
        for system in systems:
            await stop(system.client)
    print(f"Typing into 10,000-line files: {ROUNDS} rounds, systems interleaved (ms from the first change sent)")
    for system in systems:
        print(f"  {system.name}")
        for label, samples in system.figures.items():
            row(label, samples)
    tether = systems[0].figures
    print("Ratios (peer documentSymbol p50 / Tether selectFunctions p50, same run)")
    for peer in systems[1:]:
        for label in ("python: 1 change, then the request", f"python: {BURST} changes back to back, then the request"):
            ours, theirs = pct(tether[label], 50), pct(peer.figures[label], 50)
            what = label.removeprefix("python: ")
            print(f"  {peer.name}, {what}: {theirs:.1f} / {ours:.1f} ms = {theirs / ours:.1f}x")


async def spawn_to_initialize(command: list[str], root: Path) -> float:
    started = time.perf_counter()
    client = await start(command, root)
    elapsed = (time.perf_counter() - started) * 1000
    await stop(client)
    return elapsed


async def bench_startup(root: Path, bin_dir: Path, rounds: int = 7) -> None:
    commands = {
        "Tether": TETHER,
        "pylsp": [str(bin_dir / "pylsp")],
        "jedi-language-server": [str(bin_dir / "jedi-language-server")],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            times[name].append(await spawn_to_initialize(command, root))
    print(f"Spawn -> initialize result ({rounds} rounds, interleaved)")
    for name, samples in times.items():
        row(name, samples)
    ours, jedi = pct(times["Tether"], 50), pct(times["jedi-language-server"], 50)
    print(f"  Tether / jedi-language-server: {ours / jedi:.2f}")


async def bench_memory(root: Path) -> None:
    python, yaml = python_file(), yaml_file()
    client = await start(TETHER, root)
    try:
        assert client._server is not None
        proc = psutil.Process(client._server.pid)
        base = proc.memory_info().rss / 2**20
        uris = []
        for i in range(50):
            text, language = (python, "python") if i % 2 == 0 else (yaml, "yaml")
            uri = f"file:///mem/{i}.{'py' if language == 'python' else 'yaml'}"
            open_doc(client, uri, language, text)
            uris.append(uri)
        await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uris[-1]}})
        opened = proc.memory_info().rss / 2**20
        for uri in uris:
            selector = "selectPairs" if uri.endswith(".yaml") else "selectFunctions"
            await raw_request(
                client, "tether/applySelector", {"uri": uri, "selector": selector, "args": [], "cursorNodeIds": []}
            )
        queried = proc.memory_info().rss / 2**20
    finally:
        await stop(client)
    print("Tether RSS with 50 open 10,000-line files (25 Python, 25 YAML)")
    print(f"  after start {base:.0f} MB; opened {opened:.0f} MB; after a selector on every file {queried:.0f} MB")


async def first_requests(client: LanguageClient, root: Path, python: str, yaml: str) -> tuple[float, float]:
    """Open a YAML file and ask for its documentInfo, then a Python file and list its functions (ms each)."""
    uri = (root / "first.yaml").as_uri()
    open_doc(client, uri, "yaml", yaml)
    started = time.perf_counter()
    await raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}})
    info = (time.perf_counter() - started) * 1000
    uri = (root / "first.py").as_uri()
    open_doc(client, uri, "python", python)
    started = time.perf_counter()
    params = {"uri": uri, "selector": "selectFunctions", "args": [], "cursorNodeIds": []}
    await raw_request(client, "tether/applySelector", params)
    return info, (time.perf_counter() - started) * 1000


async def bench_first_open(root: Path, rounds: int = 5) -> None:
    """A fresh server, a file opened half a second after ``initialize`` (as an editor does): how long the
    first request on it takes (the grammar's first parse, and whatever the first use loads)."""
    python, yaml = python_file(), yaml_file()
    yaml_info, python_selector = [], []
    for _ in range(rounds):
        client = await start(TETHER, root)
        try:
            await asyncio.sleep(0.5)  # the editor's own start-up: not a synchronisation, nothing waits on it
            info, selector = await first_requests(client, root, python, yaml)
            yaml_info.append(info)
            python_selector.append(selector)
        finally:
            await stop(client)
    print(f"Tether: the first request on a 10,000-line file opened 0.5 s after initialize ({rounds} fresh servers)")
    row("YAML: tether/documentInfo", yaml_info)
    row("Python: applySelector selectFunctions", python_selector)


async def main_async() -> None:
    bin_dir = ensure_peers()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        await bench_typing(root, bin_dir)
        await bench_startup(root, bin_dir)
        await bench_first_open(root)
        await bench_memory(root)


if __name__ == "__main__":
    asyncio.run(main_async())
