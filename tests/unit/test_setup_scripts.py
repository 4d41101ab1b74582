"""The set-up scripts `make test` runs install Debian packages as a user would let them: through sudo when not
root, and waiting for another apt run's lock instead of failing at once. apt-get, sudo, id and dpkg are stand-ins
on PATH that log their calls; the scripts run from a copy of the checkout's layout."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCKED = "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)"
STAND_INS = {
    "id": "echo 1000\n",
    "sudo": 'SUDO_USER=tester exec "$@"\n',
    "dpkg": "exit 1\n",  # no Debian package is installed
    "sleep": "exit 0\n",  # the lock wait polls; no need to really wait here
    # the first `apt-get update` meets another run's lock on the package lists, as in the field
    "apt-get": f"""echo "apt-get $* as=${{SUDO_USER:-caller}}" >> "$FAKE_LOG"
if [ "$*" = "update -qq" ] && [ ! -f "$FAKE_LOG.updated" ]; then
  touch "$FAKE_LOG.updated"; echo "{LOCKED}" >&2; exit 100
fi
""",
}
REAL = ("bash", "dirname", "grep", "ls", "touch", "cat", "mkdir", "head", "tar", "cp", "mktemp", "rm")


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the scripts in the checkout's layout, and an environment whose PATH holds only the stand-ins
    and the plain tools the scripts use (so chromium, rg, git, nvim, emacs, pkg-config all look missing)."""
    root = tmp_path / "checkout"
    for rel in ("scripts/apt-install.sh", "scripts/ensure-system-deps.sh", "clients/vscode/e2e/setup.sh"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, root / rel)
    # what setup.sh finds already done (code-server cached, the extension's node_modules current)
    (root / ".cache/vscode-e2e").mkdir(parents=True)
    (root / ".cache/vscode-e2e/.installed-4.100.3").touch()
    (root / "clients/vscode/package-lock.json").touch()
    (root / "clients/vscode/node_modules/.bin").mkdir(parents=True)
    (root / "clients/vscode/node_modules/.bin/vsce").write_text("#!/bin/sh\n")
    (root / "clients/vscode/node_modules/.bin/vsce").chmod(0o755)
    (root / "clients/vscode/node_modules/.package-lock.json").touch()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in STAND_INS.items():
        (bin_dir / name).write_text("#!/bin/bash\n" + body)
        (bin_dir / name).chmod(0o755)
    for name in REAL:
        real = shutil.which(name)
        assert real, name
        (bin_dir / name).symlink_to(real)
    env = {"PATH": str(bin_dir), "FAKE_LOG": str(tmp_path / "apt.log"), "HOME": str(tmp_path)}
    return root, env


def apt_calls(env: dict[str, str]) -> list[str]:
    return Path(env["FAKE_LOG"]).read_text().splitlines()


@pytest.mark.parametrize(
    ("script", "packages"),
    [
        ("scripts/ensure-system-deps.sh", "git util-linux neovim emacs-nox"),
        ("clients/vscode/e2e/setup.sh", "chromium ripgrep libkrb5-dev pkg-config"),
    ],
)
def test_packages_go_through_sudo_and_wait_for_another_apt_run(
    layout: tuple[Path, dict[str, str]], script: str, packages: str
) -> None:
    root, env = layout
    out = subprocess.run(["bash", str(root / script)], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    calls = apt_calls(env)
    assert calls[:2] == ["apt-get update -qq as=tester"] * 2  # retried after the lock, through sudo
    (install,) = calls[2:]
    prefix = "apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "
    assert install.startswith(prefix) and install.endswith(" as=tester"), install
    assert set(packages.split()) <= set(install.removeprefix(prefix).split()[:-1])
    assert "waiting" in out.stdout
    assert LOCKED not in out.stderr


def test_an_apt_error_other_than_a_lock_fails_at_once(layout: tuple[Path, dict[str, str]]) -> None:
    root, env = layout
    apt = Path(env["PATH"]) / "apt-get"
    apt.write_text(
        '#!/bin/bash\necho "apt-get $*" >> "$FAKE_LOG"\necho "E: The repository is not signed." >&2\nexit 100\n'
    )
    out = subprocess.run(
        ["bash", str(root / "scripts/ensure-system-deps.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode != 0
    assert "not signed" in out.stderr
    assert apt_calls(env) == ["apt-get update -qq"]


def test_without_root_or_sudo_the_script_names_the_packages_to_install(layout: tuple[Path, dict[str, str]]) -> None:
    root, env = layout
    (Path(env["PATH"]) / "sudo").unlink()
    out = subprocess.run(
        ["bash", str(root / "clients/vscode/e2e/setup.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 1
    assert "not root and no sudo" in out.stderr
    assert "chromium ripgrep libkrb5-dev pkg-config" in out.stderr
    assert not Path(env["FAKE_LOG"]).exists()
