"""`make bench` without the click bundle: the history benchmarks run on this checkout's own git history and
say which history they use, instead of stopping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def bench(module: str, *args: str, bundle: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TETHER_BENCH_BUNDLE": str(bundle)}
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240
    )


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the checkout's git history")
def test_without_the_bundle_the_history_benchmark_runs_on_the_checkouts_history(tmp_path: Path) -> None:
    out = bench("benchmarks.replacement_history", "--commits", "3", bundle=tmp_path / "absent.bundle")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert f"history: this checkout's own git history ({ROOT})" in out.stdout
    assert "absent.bundle is missing" in out.stdout
    assert "Replacement analysis on " in out.stdout


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
    probe = "from benchmarks.history import clone; print(clone())"
    env = {**os.environ, "TETHER_BENCH_BUNDLE": str(bundle), "TETHER_BENCH_CACHE": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"history: the bundle {bundle}"
    clone = Path(lines[-1])
    assert clone.parent == tmp_path / "cache"
    assert (
        subprocess.run(
            ["git", "-C", str(clone), "rev-list", "--count", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        == "3"
    )
