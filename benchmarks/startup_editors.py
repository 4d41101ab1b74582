"""Start-up in real editors: Neovim (0.7 and 0.11, the client of clients/nvim) and Emacs (eglot, clients/emacs)
open the first file of a repository (a small one: one file of 500 lines with 5 markers; a large one: 200 files
holding 10,000 markers, 50 in that file; made at HEAD); the editor starts the server; timed inside the editor
from the file's opening (which starts the server) until the client has drawn that file's markers. A fresh copy
of the repository each time (no location stored before).

An editor that is not installed is skipped and said so. The editor scripts are written here, for the benchmark;
the Emacs one loads the shared set-up of the editor tests (tests/editors/emacs_backends.el).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.markers import make_repo
from benchmarks.stall_common import this_checkout
from benchmarks.stall_markers import SERVER_GIT, seed

ROOT = Path(__file__).resolve().parent.parent
NVIM_011 = ROOT / ".cache" / "nvim-0.11" / "bin" / "nvim"

NVIM_SCRIPT = """
vim.opt.runtimepath:prepend(os.getenv('TETHER_NVIM'))
local tether = require('tether')
tether.setup({ cmd = { os.getenv('TETHER_PY'), '-m', 'tether_lsp' } })
local out = {}
local ok, err = pcall(function()
  local ns = vim.api.nvim_create_namespace('tether_markers')
  local started = vim.loop.hrtime()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.drawn = vim.wait(30000, function()
    return #vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {}) > 0
  end, 5)
  out.ms = (vim.loop.hrtime() - started) / 1e6
  out.count = #vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {})
end)
if not ok then
  out.error = tostring(err)
end
local f = io.open(os.getenv('TETHER_OUT'), 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qall!')
"""

EMACS_SCRIPT = """
(load (expand-file-name "tests/editors/emacs_backends.el" (getenv "TETHER_ROOT")) nil t)
(let ((out (make-hash-table :test 'equal)) (started (float-time)))
  (condition-case err
      (progn
        (tether-test-open (getenv "TETHER_FILE"))
        (tether-test-wait "the first file's markers" (lambda () (> (length (tether-test-drawn)) 0)) 30)
        (puthash "ms" (* 1000 (- (float-time) started)) out)
        (puthash "count" (length (tether-test-drawn)) out))
    (error (puthash "error" (error-message-string err) out)))
  (tether-test-finish out))
"""


#: name -> (files, lines per file, markers per file)
REPOSITORIES = {"small": (1, 500, 5), "large": (200, 500, 50)}


def run_editor(command: list[str], template: Path, names: list[str], per_file: int, work: Path) -> dict[str, Any]:
    """A copy of the template repository, its markers made (stored by uri: in the copy), the editor run on it."""
    n = len(list(work.glob("copy*")))
    root = work / f"copy{n}"
    shutil.copytree(template, root, symlinks=True)
    seed(root, names, per_file)
    out = work / f"out{n}.json"
    env = {
        **os.environ,
        **SERVER_GIT,
        **this_checkout(),
        "TETHER_PY": sys.executable,
        "TETHER_NVIM": str(ROOT / "clients" / "nvim"),
        "TETHER_EMACS": str(ROOT / "clients" / "emacs"),
        "TETHER_ROOT": str(ROOT),
        "TETHER_FILE": str(root / names[0]),
        "TETHER_OUT": str(out),
        "HOME": str(work),
        "XDG_DATA_HOME": str(work / f"data{n}"),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    if not out.exists():
        return {"error": f"the editor wrote nothing: {done.stderr[-1000:]}"}
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return seen


def editors(work: Path) -> dict[str, list[str]]:
    nvim_script, emacs_script = work / "start.lua", work / "start.el"
    nvim_script.write_text(NVIM_SCRIPT, encoding="utf-8")
    emacs_script.write_text(EMACS_SCRIPT, encoding="utf-8")
    found: dict[str, list[str]] = {}
    if shutil.which("nvim"):
        found["Neovim 0.7"] = ["nvim", "--headless", "--clean", "-c", f"luafile {nvim_script}"]
    if NVIM_011.exists():
        found["Neovim 0.11"] = [str(NVIM_011), "--headless", "--clean", "-c", f"luafile {nvim_script}"]
    if shutil.which("emacs"):
        found["Emacs (eglot)"] = ["emacs", "--batch", "-Q", "-l", str(emacs_script)]
    return found


def main(rounds: int = 2) -> dict[str, Any]:
    print(f"Editors: server start -> the first file's markers drawn ({rounds} fresh starts each)")
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        found = editors(work)
        for size, (files, lines, per_file) in REPOSITORIES.items():
            template = work / f"template-{size}"
            template.mkdir()
            names = make_repo(template, files, lines)
            what = f"{size} repository ({files} files, {files * per_file:,} markers)"
            for name in ("Neovim 0.7", "Neovim 0.11", "Emacs (eglot)"):
                if name not in found:
                    print(f"  {name:<14} skipped: not installed")
                    continue
                seen = [run_editor(found[name], template, names, per_file, work) for _ in range(rounds)]
                bad = [s.get("error") or "markers never drawn" for s in seen if "error" in s or not s.get("count")]
                if bad:
                    print(f"  {name:<14} {what}: failed: {bad[0]}")
                    results[f"{name}, {size}"] = {"error": bad[0]}
                    continue
                times = [float(s["ms"]) for s in seen]
                results[f"{name}, {size}"] = {"median_ms": statistics.median(times), "samples_ms": times}
                print(
                    f"  {name:<14} {what}: median {statistics.median(times):6.0f} ms "
                    f"({min(times):.0f}-{max(times):.0f}), {seen[0]['count']} drawn (target <= 1000 ms)"
                )
    return results
