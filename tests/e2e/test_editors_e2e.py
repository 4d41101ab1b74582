"""The editor clients for real: headless Neovim (clients/nvim) and batch Emacs + eglot (clients/emacs) start the
server, create and list a marker after typing, run a selector chain and ask the playground for the prompt
under the cursor. The scripts write what they saw to a JSON file this test reads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import server_env

ROOT = Path(__file__).resolve().parents[2]
SOURCE = """SYSTEM_PROMPT = "You are a helpful assistant for the café menu."


def total(items):
    s = 0
    for i in items:
        s += i
    return s
"""


def need(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        if os.environ.get("TETHER_REQUIRE_EDITORS") or os.environ.get("CI"):
            pytest.fail(f"{program} is not installed (scripts/ensure-system-deps.sh installs it)")
        pytest.skip(f"{program} is not installed")
    return found


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "calc.py").write_text(SOURCE, encoding="utf-8")
    return root


def run(command: list[str], root: Path, out: Path, client_dir: str) -> dict[str, object]:
    env = server_env(
        {
            "TETHER_PY": sys.executable,
            "TETHER_FILE": str(root / "calc.py"),
            "TETHER_OUT": str(out),
            "TETHER_NVIM": str(ROOT / "clients" / "nvim"),
            "TETHER_EMACS": str(ROOT / "clients" / "emacs"),
            "HOME": str(root.parent),
        }
    )
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert out.exists(), f"{client_dir} wrote nothing:\n{done.stdout}\n{done.stderr}"
    result: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_neovim(tmp_path: Path) -> None:
    nvim = need("nvim")
    root = workspace(tmp_path)
    script = ROOT / "tests" / "editors" / "nvim_session.lua"
    seen = run([nvim, "--headless", "--clean", "-c", f"luafile {script}"], root, tmp_path / "out.json", "nvim")
    assert seen["ready"] is True
    assert seen["created"] == "use sum()"
    assert seen["markers"] == [{"note": "use sum()", "line": 4}]  # followed the line typed above it
    assert seen["quickfix"] == 1
    assert seen["selected"] == 1
    assert seen["cursor"] == [5, 4]  # on `total`, the function's name
    assert seen["prompt"] == "SYSTEM_PROMPT"


def test_emacs_eglot(tmp_path: Path) -> None:
    emacs = need("emacs")
    root = workspace(tmp_path)
    script = ROOT / "tests" / "editors" / "emacs_session.el"
    seen = run([emacs, "--batch", "-Q", "-l", str(script)], root, tmp_path / "out.json", "emacs")
    assert seen["created"] == "use sum()"
    assert seen["markers"] == [["use sum()", 4]]
    assert seen["selected"] == 1
    assert seen["point_line"] == 5
    assert seen["prompt"] == "SYSTEM_PROMPT"
