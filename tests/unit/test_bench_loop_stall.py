"""The loop-stall and start-up benchmarks run and write their figures (``--json``): a scenario chosen by name runs
alone over the real server, and `tether-lsp mcp` answers the start-up benchmark's raw initialize. Nothing here
checks a duration against a bound: only that each figure was measured."""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
from pathlib import Path

from benchmarks import startup

ROOT = Path(__file__).resolve().parents[2]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.loop_stall", *args],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_a_scenario_chosen_by_name_runs_alone_and_writes_its_figures(tmp_path: Path) -> None:
    written = tmp_path / "figures.json"
    out = bench("--scenario", "long-line", "--json", str(written))
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    figures = json.loads(written.read_text())
    assert list(figures) == ["long-line"]
    found = figures["long-line"]
    assert found["keystrokes"] > 0
    for name in ("worst_stall_ms", "typing_p50_ms", "typing_p99_ms", "list_first_ms", "list_p50_ms", "list_max_ms"):
        assert math.isfinite(found[name]) and found[name] >= 0, name
    assert found["typing_p50_ms"] <= found["typing_p99_ms"] <= found["typing_max_ms"]
    assert "tether/markers/list on a file with a 110 KB line" in out.stdout


def test_an_unknown_scenario_is_refused_naming_the_choices() -> None:
    out = bench("--scenario", "no-such-thing")
    assert out.returncode == 2
    assert "invalid choice: 'no-such-thing'" in out.stderr
    assert "head-change" in out.stderr


def test_tether_lsp_mcp_answers_the_raw_initialize(tmp_path: Path) -> None:
    elapsed = asyncio.run(startup.mcp_initialize(tmp_path))
    assert elapsed > 0
