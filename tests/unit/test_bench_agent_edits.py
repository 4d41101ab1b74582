"""``benchmarks/agent_edits.py`` on a tiny generated repository: one commit with two hunks, where the user's first
hunk shifts the lines of the second and the second's old text (with its context) occurs twice. Each strategy's
counts are what that history must give: a line range lands on the wrong lines, a first match on the wrong copy,
Tether's edit by old text alone says ambiguous, and with a line or a base range it makes the committed file. The
figures are read from the JSON the benchmark writes beside its report (``--json``), not from its sentences."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILLER = "".join(f"A{k} = {k}\n" for k in range(10))
BEFORE = f"""import os
{FILLER}

class One:
    def run(self):
        value = 1
        return value

{FILLER}

class Two:
    def run(self):
        value = 1
        return value
"""
AFTER = BEFORE.replace("import os\n", "import os\nimport re\nimport sys\n").replace(
    "class Two:\n    def run(self):\n        value = 1", "class Two:\n    def run(self):\n        value = 2"
)


def test_each_strategy_on_a_commit_whose_hunks_move_and_repeat(tmp_path: Path) -> None:
    repo = tmp_path / "tiny"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for text in (BEFORE, AFTER):
        (repo / "m.py").write_text(text)
        subprocess.run([*git, "add", "m.py"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "c"], check=True)
    command = [sys.executable, "-m", "benchmarks.agent_edits", "--repo", str(repo), "--lines", "400"]
    env = {**os.environ, "TETHER_BENCH_CACHE": str(tmp_path / "cache")}
    written = tmp_path / "figures.json"
    out = subprocess.run(
        [*command, "--rounds", "5", "--starts", "1", "--json", str(written)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    figures = json.loads(written.read_text())
    assert figures["history"]["source"] == {"kind": "repo", "repository": str(repo), "bundle": None}
    assert (figures["history"]["commit_pairs"], figures["files"], figures["hunks"]) == (1, 1, 2)
    assert figures["calls"] == "MCP adapters, in-process"
    strategies = figures["strategies"]
    assert list(strategies) == [
        "line range",
        "first match",
        "tether old_text",
        "tether old_text + line",
        "tether range",
    ]
    for name in ("line range", "first match"):  # the user's first hunk shifted the lines; old text is found twice
        assert strategies[name] == {**counts(2, 1, 1, 0, 0), "target": None, "met": None}
    assert strategies["tether old_text"] == {**counts(2, 1, 0, 0, 1), "target": "none wrong", "met": True}
    for name in ("tether old_text + line", "tether range"):
        assert strategies[name] == {**counts(2, 2, 0, 0, 0), "target": "100% exact, none wrong", "met": True}
    one_run_or_two = {"strategy": "tether old_text", "case": "m.py: hunk 2 of 2, line 32", "outcome": "ambiguous"}
    assert [{**m, "case": m["case"].split(":", 1)[1]} for m in figures["missed"]] == [one_run_or_two]
    latency = figures["latency"]
    assert (latency["lines"], latency["rounds"]) == (400, 5)
    assert set(latency["calls"]) == {
        "select a class's methods from its node id",
        "select a function by name (whole file)",
        "select every class's methods, filtered by name",
        "edit by old_text on the version last answered",
    }
    assert all(call["p50_ms"] > 0 and call["p99_ms"] >= call["p50_ms"] for call in latency["calls"].values())
    start_up = figures["start_up"]
    assert start_up["starts"] == 1
    assert 0 < start_up["initialize_ms"]["median"] <= start_up["first_call_ms"]["median"]
    table = [line.split(" | ")[0].strip("| ") for line in out.stdout.splitlines() if line.startswith("| ")]
    assert table[2:] == list(strategies)  # the printed report has a row per strategy, after its header


def counts(edits: int, exact: int, wrong: int, refused: int, ambiguous: int) -> dict[str, int]:
    return {"edits": edits, "exact": exact, "wrong": wrong, "refused": refused, "ambiguous": ambiguous}
