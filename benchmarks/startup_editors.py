"""Start-up in real editors: Neovim (0.7 and 0.11, the client of clients/nvim) and Emacs (eglot and lsp-mode,
clients/emacs) open the first file of a repository (a small one: one file of 500 lines with 5 markers; a large
one: 200 files holding 10,000 markers, 50 in that file; made at HEAD); the editor starts the server; timed inside
the editor until the client has drawn that file's markers, from two moments: the file's opening, and the
client's start of the server (``vim.lsp.start``/``start_client``; Emacs's ``make-process`` of the server).
A fresh copy of the repository each time.

Neovim's Python ftplugin asks ``has('python3')``, which probes the interpreters on PATH for pynvim (each a process;
seconds with pyenv's shims on a loaded machine). It blocks Neovim's loop: nothing the server answers is handled, and
nothing drawn, before it ends. The client starts the server as the file is read (before FileType), so the server
boots meanwhile, and the probe lies inside the time from the server's start: "to FileType's end" says how much.
The "(no probe)" rows run the same Neovim with ``g:loaded_python3_provider = 0`` (or a ``g:python3_host_prog``:
the provider's documented way to skip the search), which leaves the client's and the server's part. Neovim's
rows also say how long after the client handled the server's answer to ``initialize`` (it sends ``initialized``,
then the file's didOpen) the markers were drawn: the first list's round trip.

An editor that is not installed is skipped and said so. The editor scripts are written here, for the benchmark;
the Emacs one loads the shared set-up of the editor tests (tests/editors/emacs_backends.el).

    .venv/bin/python -m benchmarks.startup_editors [--rounds N] [--checkout DIR] [--only TEXT]

``--checkout``: the server and the clients of another checkout (e.g. a worktree of an earlier commit), so the
before and after figures come from one benchmark, interleaved. ``--only``: the editors whose name holds TEXT.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
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
local spawned = nil
for _, name in ipairs({ 'start', 'start_client' }) do -- the client starting the server: the moment is noted
  local original = vim.lsp[name]
  if original then
    vim.lsp[name] = function(...)
      spawned = spawned or vim.loop.hrtime()
      return original(...)
    end
  end
end
local initialized = nil -- the server's answer to `initialize` handled: the client sends `initialized`
local rpc = require('vim.lsp.rpc')
local rpc_start = rpc.start
rpc.start = function(...)
  local r = rpc_start(...)
  local notify = r.notify
  r.notify = function(method, ...)
    if method == 'initialized' then
      initialized = initialized or vim.loop.hrtime()
    end
    return notify(method, ...)
  end
  return r
end
local filetype = nil -- after every FileType autocommand: the ftplugin's (Python's probes for pynvim) and the client's
vim.api.nvim_create_autocmd('FileType', {
  callback = function()
    filetype = filetype or vim.loop.hrtime()
  end,
})
local ok, err = pcall(function()
  local ns = vim.api.nvim_create_namespace('tether_markers')
  local started = vim.loop.hrtime()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.drawn = vim.wait(30000, function()
    return #vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {}) > 0
  end, 5)
  local now = vim.loop.hrtime()
  out.ms = (now - started) / 1e6
  out.server_ms = spawned and (now - spawned) / 1e6 or nil
  out.filetype_ms = spawned and filetype and (filetype - spawned) / 1e6 or nil
  out.after_initialized_ms = initialized and (now - initialized) / 1e6 or nil
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
(defvar tether-bench-spawned nil "When the server's process was made.")
(advice-add 'make-process :before
            (lambda (&rest args)
              (when (equal (car (plist-get args :command)) (getenv "TETHER_PY"))
                (setq tether-bench-spawned (or tether-bench-spawned (float-time))))))
(let ((out (make-hash-table :test 'equal)) (started (float-time)))
  (condition-case err
      (progn
        (tether-test-open (getenv "TETHER_FILE"))
        (tether-test-wait "the first file's markers" (lambda () (> (length (tether-test-drawn)) 0)) 30)
        (puthash "ms" (* 1000 (- (float-time) started)) out)
        (when tether-bench-spawned (puthash "server_ms" (* 1000 (- (float-time) tether-bench-spawned)) out))
        (puthash "count" (length (tether-test-drawn)) out))
    (error (puthash "error" (error-message-string err) out)))
  (tether-test-finish out))
"""


#: name -> (files, lines per file, markers per file)
REPOSITORIES = {"small": (1, 500, 5), "large": (200, 500, 50)}


def run_editor(
    editor: Editor, template: Path, names: list[str], per_file: int, work: Path, checkout: Path = ROOT
) -> dict[str, Any]:
    """A copy of the template repository, its markers made (stored by uri: in the copy), the editor run on it."""
    n = len(list(work.glob("copy*")))
    root = work / f"copy{n}"
    shutil.copytree(template, root, symlinks=True)
    seed(root, names, per_file)
    out = work / f"out{n}.json"
    rest = os.environ.get("PYTHONPATH")
    env = {
        **os.environ,
        **SERVER_GIT,
        **(
            this_checkout()
            if checkout == ROOT
            else {"PYTHONPATH": os.pathsep.join(filter(None, [str(checkout), rest]))}
        ),
        "TETHER_PY": sys.executable,
        "TETHER_NVIM": str(checkout / "clients" / "nvim"),
        "TETHER_EMACS": str(checkout / "clients" / "emacs"),
        "TETHER_ROOT": str(checkout),
        "TETHER_FILE": str(root / names[0]),
        "TETHER_OUT": str(out),
        "HOME": str(work),
        "XDG_DATA_HOME": str(work / f"data{n}"),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        **editor.env,
    }
    done = subprocess.run(editor.command, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    if not out.exists():
        return {"error": f"the editor wrote nothing: {done.stderr[-1000:]}"}
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return seen


@dataclass(frozen=True)
class Editor:
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)


def editors(work: Path) -> dict[str, Editor]:
    nvim_script, emacs_script = work / "start.lua", work / "start.el"
    nvim_script.write_text(NVIM_SCRIPT, encoding="utf-8")
    emacs_script.write_text(EMACS_SCRIPT, encoding="utf-8")
    found: dict[str, Editor] = {}
    no_probe = ["--cmd", "let g:loaded_python3_provider = 0"]  # a configuration without the pynvim probe
    for name, nvim in (("Neovim 0.7", shutil.which("nvim")), ("Neovim 0.11", NVIM_011 if NVIM_011.exists() else None)):
        if nvim:
            script = ["-c", f"luafile {nvim_script}"]
            found[name] = Editor([str(nvim), "--headless", "--clean", *script])
            found[f"{name} (no probe)"] = Editor([str(nvim), "--headless", "--clean", *no_probe, *script])
    if shutil.which("emacs"):
        emacs = ["emacs", "--batch", "-Q", "-l", str(emacs_script)]
        found["Emacs (eglot)"] = Editor(emacs)
        if list(Path("/usr/share/emacs/site-lisp/elpa").glob("lsp-mode-*")):
            found["Emacs (lsp-mode)"] = Editor(emacs, {"TETHER_BACKEND": "lsp-mode"})
    return found


EDITORS = (
    "Neovim 0.7",
    "Neovim 0.11",
    "Neovim 0.7 (no probe)",
    "Neovim 0.11 (no probe)",
    "Emacs (eglot)",
    "Emacs (lsp-mode)",
)


def main(rounds: int = 2, checkout: Path = ROOT, only: str = "") -> dict[str, Any]:
    print(
        f"Editors: the first file's markers drawn after its opening / after the server's start ({rounds} fresh starts)"
    )
    if checkout != ROOT:
        print(f"  server and clients of {checkout}")
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:  # a server may still be writing as it ends
        work = Path(tmp)
        found = editors(work)
        for size, (files, lines, per_file) in REPOSITORIES.items():
            template = work / f"template-{size}"
            template.mkdir()
            names = make_repo(template, files, lines)
            what = f"{size} repository ({files} files, {files * per_file:,} markers)"
            for name in [e for e in EDITORS if only in e]:
                if name not in found:
                    print(f"  {name:<22} skipped: not installed")
                    continue
                seen = [run_editor(found[name], template, names, per_file, work, checkout) for _ in range(rounds)]
                bad = [s.get("error") or "markers never drawn" for s in seen if "error" in s or not s.get("count")]
                if bad:
                    print(f"  {name:<22} {what}: failed: {bad[0]}")
                    results[f"{name}, {size}"] = {"error": bad[0]}
                    continue
                times = [float(s["ms"]) for s in seen]
                served = [float(s["server_ms"]) for s in seen if s.get("server_ms") is not None]
                typed = [float(s["filetype_ms"]) for s in seen if s.get("filetype_ms") is not None]
                answered = [float(s["after_initialized_ms"]) for s in seen if s.get("after_initialized_ms") is not None]
                results[f"{name}, {size}"] = {
                    "median_ms": statistics.median(times),
                    "samples_ms": times,
                    "server_median_ms": statistics.median(served) if served else None,
                    "server_samples_ms": served,
                    "filetype_samples_ms": typed,
                    "after_initialized_samples_ms": answered,
                }
                after_start = (
                    f"{statistics.median(served):6.0f} ms ({min(served):.0f}-{max(served):.0f})" if served else "? ms"
                )
                in_filetype = f", of which to FileType's end {statistics.median(typed):.0f} ms" if typed else ""
                if answered:
                    in_filetype += f", drawn {min(answered):.0f}-{max(answered):.0f} ms after `initialized`"
                print(
                    f"  {name:<22} {what}: opening {statistics.median(times):6.0f} ms "
                    f"({min(times):.0f}-{max(times):.0f}), server start {after_start}{in_filetype}, "
                    f"{seen[0]['count']} drawn (target from the server's start <= 1000 ms)"
                )
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the server and clients of this checkout")
    parser.add_argument("--only", default="", help="only the editors whose name holds this text, e.g. Neovim")
    args = parser.parse_args()
    main(args.rounds, args.checkout.resolve(), args.only)
