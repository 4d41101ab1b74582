"""``benchmarks/agent_edits.py`` on a tiny generated repository: one commit with two hunks, where the user's first
hunk shifts the lines of the second and the second's old text (with its context) occurs twice. Each strategy's
counts are what that history must give: a line range lands on the wrong lines, a first match on the wrong copy,
Tether's edit by old text alone says ambiguous, and with a line or a base range it makes the committed file."""

from __future__ import annotations

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
    out = subprocess.run(
        [*command, "--rounds", "5", "--starts", "1"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    text = out.stdout
    assert "1 files with two or\nmore hunks, 2 hunks" in text
    assert "through the MCP tools' adapters in-process" in text
    rows = {line.split(" | ")[0].strip("| "): line for line in text.splitlines() if line.startswith("| ")}
    assert rows["line range"].startswith("| line range | 2 | 1 (50.0%) | 1 | 0 | 0 |")
    assert rows["first match"].startswith("| first match | 2 | 1 (50.0%) | 1 | 0 | 0 |")
    assert rows["tether old_text"] == "| tether old_text | 2 | 1 (50.0%) | 0 | 0 | 1 | none wrong (met) |"
    for name in ("tether old_text + line", "tether range"):
        assert rows[name] == f"| {name} | 2 | 2 (100.0%) | 0 | 0 | 0 | 100% exact, none wrong (met) |"
    assert "Cases a Tether strategy did not make exactly as committed (1):" in text
    assert "m.py: hunk 2 of 2, line 32: ambiguous" in text  # One.run and Two.run read alike
    assert "Latency on a 400-line Python file" in text
    assert "select a class's methods from its node id" in text and "edit by old_text" in text
    assert "to the first tools/call answer" in text
