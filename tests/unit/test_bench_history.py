"""`make bench` without the click bundle: the history benchmarks run on this checkout's own git history and
say which history they use, instead of stopping. What they used is read from the JSON a benchmark writes beside
its report (``--json``) and from :func:`benchmarks.history.source`, not from their sentences."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.history import Source

ROOT = Path(__file__).resolve().parents[2]


def bench(module: str, *args: str, bundle: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TETHER_BENCH_BUNDLE": str(bundle)}
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240
    )


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the checkout's git history")
def test_without_the_bundle_the_history_benchmark_runs_on_the_checkouts_history(tmp_path: Path) -> None:
    absent, written = tmp_path / "absent.bundle", tmp_path / "figures.json"
    out = bench("benchmarks.replacement_history", "--commits", "3", "--json", str(written), bundle=absent)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    figures = json.loads(written.read_text())
    assert figures["history"]["source"] == {"kind": "checkout", "repository": str(ROOT), "bundle": str(absent)}
    assert figures["history"]["commit_pairs"] == 3
    assert figures["cases"] == sum(p["cases"] for p in figures["placements"].values())  # the analysis ran
    assert Source("checkout", ROOT, absent).said() in out.stdout.splitlines()  # and the report says so


def test_a_given_bundle_is_cloned_and_named(tmp_path: Path) -> None:
    repo = tmp_path / "tiny"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for n in range(3):
        (repo / "m.py").write_text(f"def f():\n    return {n}\n")
        subprocess.run([*git, "add", "m.py"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", f"c{n}"], check=True)
    bundle = tmp_path / "tiny.bundle"
    subprocess.run([*git, "bundle", "create", "-q", str(bundle), "--all"], check=True)
    probe = "import json; from benchmarks.history import clone, source; clone(); print(json.dumps(source().figures()))"
    env = {**os.environ, "TETHER_BENCH_BUNDLE": str(bundle), "TETHER_BENCH_CACHE": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    *said, found = out.stdout.splitlines()
    clone = tmp_path / "cache" / "tiny"
    assert json.loads(found) == {"kind": "bundle", "repository": str(clone), "bundle": str(bundle)}
    assert said == [Source("bundle", clone, bundle).said()]  # clone() says which history it uses
    assert (
        subprocess.run(
            ["git", "-C", str(clone), "rev-list", "--count", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        == "3"
    )
