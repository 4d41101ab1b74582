"""The Emacs client (clients/emacs) in real Emacs 28: markers, selectors and the workspace list through eglot and
through lsp-mode, with a teammate's server on the same PostgreSQL database; the package's byte-compilation and
its installation with package.el."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.test_editors_e2e import SHAPES, SOURCE, need
from tests.e2e.test_markers_e2e import create, rng
from tests.helpers import capabilities, commit_all, git, server_config, server_env

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "emacs"
SCRIPTS = ROOT / "tests" / "editors"
ELPA = "/usr/share/emacs/site-lisp/elpa"  # Debian's elpa-eglot and elpa-lsp-mode (scripts/ensure-system-deps.sh)


def lsp_mode_installed() -> None:
    if not any(p.name.startswith("lsp-mode-") for p in Path(ELPA).glob("*")):
        if os.environ.get("TETHER_REQUIRE_EDITORS") or os.environ.get("CI"):
            pytest.fail("lsp-mode is not installed (scripts/ensure-system-deps.sh installs elpa-lsp-mode)")
        pytest.skip("lsp-mode is not installed")


def repository(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q")
    (root / "calc.py").write_text(SOURCE, encoding="utf-8")
    (root / "shapes.py").write_text(SHAPES, encoding="utf-8")
    commit_all(root, "start")
    return root


async def wait_for_file(path: Path, emacs: asyncio.subprocess.Process, seconds: float) -> None:
    async with asyncio.timeout(seconds):
        while not path.exists():
            if emacs.returncode is not None:
                return  # it stopped early: its output says why
            await asyncio.sleep(0.05)


@pytest.mark.postgres
@pytest.mark.parametrize("backend", ["eglot", "lsp-mode"])
async def test_markers_and_selectors(tmp_path: Path, postgres_url: str, backend: str) -> None:
    emacs = need("emacs")
    if backend == "lsp-mode":
        lsp_mode_installed()
    root = repository(tmp_path)
    calc, shapes = (root / "calc.py").as_uri(), (root / "shapes.py").as_uri()
    teammate: Any = await server_config(TETHER_DATABASE_URL=postgres_url).start()
    await teammate.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
    out, ready = tmp_path / "out.json", tmp_path / "ready"
    try:
        await create(teammate, calc, rng(0, 0, 0, 13), "where the prompt lives", kind="bookmark")
        await create(teammate, shapes, rng(1, 4, 2, 31), "pi is rough")
        env = server_env(
            {
                "TETHER_PY": sys.executable,
                "TETHER_EMACS": str(CLIENT),
                "TETHER_FILE": str(root / "calc.py"),
                "TETHER_OUT": str(out),
                "TETHER_READY": str(ready),
                "TETHER_BACKEND": backend,
                "TETHER_DATABASE_URL": postgres_url,
                "HOME": str(tmp_path),
            }
        )
        proc = await asyncio.create_subprocess_exec(
            emacs, "--batch", "-Q", "-l", str(SCRIPTS / "emacs_markers.el"),
            cwd=root, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        # what a user types at the prompts: the kind, the note, the edited note, yes to deleting, a chain
        assert proc.stdin is not None
        proc.stdin.write(b"question\nuse sum()\nuse sum() instead\ny\nselectFunctions selectName\n")
        await proc.stdin.drain()
        await wait_for_file(ready, proc, 60)
        if ready.exists():
            await create(teammate, calc, rng(3, 0, 3, 17), "from a teammate", kind="issue")
        stdout, _ = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        await teammate.shutdown_session()
        await teammate.stop()
    transcript = stdout.decode(errors="replace")
    assert out.exists(), transcript
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert "error" not in seen, (seen, transcript)
    help_open = "Tether bookmark marker: where the prompt lives"
    assert seen["atOpen"] == [[1, "(margin left-margin)", "★", "  [bookmark] where the prompt lives", help_open]]
    assert seen["margin"] == 1
    assert "Kind (default comment): " in transcript and "Question note: " in transcript
    assert seen["added"] == "Tether: question marker added on lines 4-8: use sum()"
    assert [d[:4] for d in seen["afterAdd"]] == [
        [1, "(margin left-margin)", "★", "  [bookmark] where the prompt lives"],
        [4, "(margin left-margin)", "?", "  [question] use sum()"],
    ]
    assert seen["edited"] == "Tether: question marker updated: use sum() instead"
    assert seen["deleted"] == "Tether: marker deleted: where the prompt lives"
    assert [d[:4] for d in seen["afterEdit"]] == [[4, "(margin left-margin)", "?", "  [question] use sum() instead"]]
    assert seen["listed"] == [["question", "use sum() instead"]]
    assert seen["workspace"] == [
        ["calc.py", "4", "question", "use sum() instead"],
        ["shapes.py", "2", "comment", "pi is rough"],
    ]
    assert seen["jumped"] == ["shapes.py", 2]
    assert (seen["selected"], seen["region"]) == (1, "total")
    assert seen["selectError"].startswith("Tether: selectNth: ") and "Wrong type" not in seen["selectError"]
    assert [d[:4] for d in seen["afterTeammate"]] == [
        [4, "(margin left-margin)", "!", "  [issue] from a teammate"],
        [4, "(margin left-margin)", "?", "  [question] use sum() instead"],
    ] or [d[:4] for d in seen["afterTeammate"]] == [
        [4, "(margin left-margin)", "?", "  [question] use sum() instead"],
        [4, "(margin left-margin)", "!", "  [issue] from a teammate"],
    ]


def batch(*forms: str, home: Path) -> subprocess.CompletedProcess[str]:
    args = ["emacs", "--batch", "-Q"]
    for form in forms:
        args += ["--eval", form]
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False, env=env)


def test_byte_compiles_without_warnings(tmp_path: Path) -> None:
    need("emacs")
    lsp_mode_installed()
    for name in ("tether.el", "tether-eglot.el", "tether-lsp-mode.el"):
        done = batch(
            f'(setq package-directory-list (list "{ELPA}"))',
            "(package-initialize)",
            f'(add-to-list (quote load-path) "{CLIENT}")',
            "(setq byte-compile-error-on-warn t)",
            f'(setq byte-compile-dest-file-function (lambda (_) "{tmp_path / (name + "c")}"))',
            f'(unless (byte-compile-file "{CLIENT / name}") (kill-emacs 1))',
            home=tmp_path,
        )
        assert done.returncode == 0, f"{name}:\n{done.stderr}"
        assert "Warning" not in done.stderr, done.stderr


def test_package_install_file(tmp_path: Path) -> None:
    """package-install-file on the client's folder installs the package (its files compiled, autoloads made)
    into a fresh package directory; a new Emacs then has the commands autoloaded and eglot set up."""
    need("emacs")
    elpa = tmp_path / "elpa"
    source = tmp_path / "tether"  # a copy, as a user has it: only the client's files
    source.mkdir()
    for f in CLIENT.glob("*.el"):
        (source / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    setup = [f'(setq package-user-dir "{elpa}")', f'(setq package-directory-list (list "{ELPA}"))']
    done = batch(
        *setup,
        "(package-initialize)",
        f'(package-install-file "{source}/")',
        '(princ (format "installed:%s\\n" (package-installed-p (quote tether))))',
        home=tmp_path,
    )
    assert "installed:t" in done.stdout, done.stderr
    (installed,) = elpa.glob("tether-0.1.0")
    names = sorted(p.name for p in installed.iterdir())
    for name in ("tether.elc", "tether-eglot.elc", "tether-autoloads.el"):
        assert name in names
    done = batch(
        *setup,
        "(package-initialize)",
        '(princ (format "before:%s %s %s\\n" (featurep (quote tether)) (autoloadp (symbol-function '
        "(quote tether-select))) (commandp (quote tether-list-workspace-markers))))",
        "(tether-setup)",
        "(require (quote eglot))",
        '(princ (format "after:%s %s\\n" (featurep (quote tether-eglot)) '
        "(alist-get (quote python-mode) eglot-server-programs)))",
        home=tmp_path,
    )
    assert "before:nil t t" in done.stdout, done.stdout + done.stderr
    assert "after:t tether-eglot-contact" in done.stdout, done.stdout + done.stderr
