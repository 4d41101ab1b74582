"""The Neovim client (clients/nvim) in real headless Neovim 0.7 and 0.11 starts the server as a Python file is
read, before FileType's work (the filetype's own plugin runs first there, and Python's probes the interpreters
on PATH for pynvim: seconds on a busy machine, during which the server now boots), attaches the buffer to that
one client at FileType, and draws the markers a first server made."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import cast

from tests.e2e import test_editors_e2e as editors
from tests.e2e.test_editors_e2e import ROOT, run
from tests.e2e.test_markers_first_list_e2e import SOURCE, made_by_a_first_server

nvim = editors.nvim  # the fixture: every test here runs on Neovim 0.7 and 0.11


def repository_with_markers(tmp_path: Path) -> Path:
    """calc.py (two markers, made by a first server) and shapes.py, committed."""
    root = tmp_path / "ws"
    root.mkdir()
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "calc"]):
        if args[0] == "add":
            (root / "calc.py").write_text(SOURCE, encoding="utf-8")
            (root / "shapes.py").write_text("class Square:\n    side = 2\n", encoding="utf-8")
        subprocess.run(["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.org", *args], cwd=root, check=True)
    made = asyncio.run(made_by_a_first_server(root, (root / "calc.py").as_uri()))
    assert len(made) == 2
    return root


def test_the_server_starts_before_filetype_and_the_first_markers_are_drawn(tmp_path: Path, nvim: str) -> None:
    root = repository_with_markers(tmp_path)
    script = ROOT / "tests" / "editors" / "nvim_early_start.lua"
    seen = run([nvim, "--headless", "--clean", "-c", f"luafile {script}"], root, tmp_path / "out.json", "nvim")
    assert "error" not in seen, seen.get("error")
    assert seen["running_at_filetype"] is True  # before: False, the server started by FileType, after the ftplugin
    assert seen["drawn"] is True
    assert seen["clients"] == 1  # FileType reused the client started early
    assert seen["attached"] is True


def test_nothing_reaches_the_starting_server_before_initialized_and_the_markers_are_asked_once(
    tmp_path: Path, nvim: str
) -> None:
    """The buffer is attached while the server starts; what the client sends is recorded at Neovim's RPC layer."""
    root = repository_with_markers(tmp_path)
    script = ROOT / "tests" / "editors" / "nvim_first_list_order.lua"
    seen = run([nvim, "--headless", "--clean", "-c", f"luafile {script}"], root, tmp_path / "out.json", "nvim")
    assert "error" not in seen, seen.get("error")
    assert seen["initialized_at_filetype"] is False  # the path under test: attached before `initialized`
    assert seen["drawn"] is True
    calc, shapes = (root / "calc.py").as_uri(), (root / "shapes.py").as_uri()
    sent = cast(list[dict[str, str]], seen["sent"])
    first = [(m["method"], m["uri"]) for m in cast(list[dict[str, str]], seen["sent_to_draw"])]
    # before: a markers list (and the active editor) went out between `initialize` and `initialized`, before didOpen
    assert [method for method, _ in first[:2]] == ["initialize", "initialized"], first
    lists = [i for i, message in enumerate(first) if message == ("tether/markers/list", calc)]
    assert len(lists) == 1, first  # before: 2 (BufEnter's and the attach's)
    assert first.index(("textDocument/didOpen", calc)) < lists[0]
    assert seen["second_listed"] is True
    then = [(m["method"], m["uri"]) for m in sent][len(first) :]
    assert then.count(("tether/markers/list", shapes)) == 1, then  # before: 2
    assert then.index(("textDocument/didOpen", shapes)) < then.index(("tether/markers/list", shapes))


def test_the_health_check_names_the_pynvim_search_unless_it_is_skipped(tmp_path: Path, nvim: str) -> None:
    """Neovim's search for pynvim holds the first Python file's markers; the way to skip it is named, unless taken."""
    root = repository_with_markers(tmp_path)
    script = ROOT / "tests" / "editors" / "nvim_health_probe.lua"
    said = {}
    for name, before in (("default", []), ("host_prog", ["--cmd", "let g:python3_host_prog = 'python3'"])):
        seen = run(
            [nvim, "--headless", "--clean", *before, "-c", f"luafile {script}"], root, tmp_path / "o.json", "nvim"
        )
        assert "error" not in seen, seen.get("error")
        said[name] = "vim.g.loaded_python3_provider = 0 skips it" in str(seen["health"])
    assert said == {"default": True, "host_prog": False}
