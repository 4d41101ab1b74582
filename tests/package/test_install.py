"""The built artefacts as a user installs them: the wheel in a fresh virtual environment outside the checkout,
run from a folder that holds a ``server.py`` and a ``handlers/`` of its own (which must never be imported)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from tests.helpers import TOOL_NAMES
from tether_lsp import __version__
from tether_lsp.mcp.cli import MISSING_SDK

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("pygls", "lsprotocol", "tree-sitter", "tree-sitter-python", "tree-sitter-yaml")


def run(*cmd: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = run(sys.executable, "-m", "build", "--outdir", out, ROOT, cwd=out, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (outside the checkout) with only the built wheel installed: its bin folder."""
    env = tmp_path_factory.mktemp("venv")
    venv.create(env, with_pip=True)
    wheel = next(dist.glob("*.whl"))
    pip = run(env / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel, cwd=env)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return env / "bin"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A folder whose own ``server`` and ``handlers`` would be imported if Tether used those names."""
    folder = tmp_path / "project"
    (folder / "handlers").mkdir(parents=True)
    (folder / "server.py").write_text('raise SystemExit("HOSTILE server.py imported")\n')
    (folder / "handlers" / "__init__.py").write_text('raise SystemExit("HOSTILE handlers imported")\n')
    return folder


def test_the_wheel_holds_one_import_package_with_every_source_file(dist: Path) -> None:
    names = set(zipfile.ZipFile(next(dist.glob("*.whl"))).namelist())
    assert {n.split("/")[0] for n in names} == {"tether_lsp", f"tether_lsp-{__version__}.dist-info"}
    sources = {
        f"tether_lsp/{p.relative_to(ROOT)}" for top in ("server", "handlers") for p in (ROOT / top).rglob("*.py")
    }
    sources |= {f"tether_lsp/{p.name}" for p in (ROOT / "tether_lsp").glob("*.py")}
    sources |= {f"tether_lsp/mcp/{p.name}" for p in (ROOT / "tether_lsp" / "mcp").glob("*.py")}
    assert sources <= names, sorted(sources - names)
    assert {"tether_lsp/server/py.typed", "tether_lsp/handlers/py.typed"} <= names
    examples = {f"tether_lsp/examples/{p.relative_to(ROOT / 'examples')}" for p in (ROOT / "examples").rglob("*.*")}
    assert examples and examples <= names, sorted(examples - names)
    assert f"tether_lsp-{__version__}.dist-info/licenses/LICENSE" in names


def test_the_sdist_holds_plain_files_and_the_licence(dist: Path) -> None:
    with tarfile.open(next(dist.glob("*.tar.gz"))) as sdist:
        members = sdist.getmembers()
    assert not [m.name for m in members if m.issym() or m.islnk()]
    names = {m.name.split("/", 1)[1] for m in members if "/" in m.name}
    assert {"LICENSE", "pyproject.toml", "tether_lsp/server/app.py", "tether_lsp/handlers/__init__.py"} <= names


def test_version_names_tether_and_its_parsers_from_a_hostile_folder(installed: Path, hostile: Path) -> None:
    commands: list[list[str | Path]] = [
        [installed / "tether-lsp", "--version"],
        [installed / "python", "-m", "tether_lsp", "--version"],
    ]
    for cmd in commands:
        out = run(*cmd, cwd=hostile)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[0] == f"tether-lsp {__version__}"
        assert [line.split()[0] for line in lines[1:]] == list(PARTS)
        assert "not installed" not in out.stdout


def test_nothing_named_server_or_handlers_is_installed(installed: Path, tmp_path: Path) -> None:
    python = installed / "python"
    for name in ("server", "handlers"):
        out = run(python, "-c", f"import {name}", cwd=tmp_path)
        assert out.returncode != 0 and f"No module named '{name}'" in out.stderr
    ok = run(python, "-c", "import tether_lsp.server.app, tether_lsp.handlers; print('ok')", cwd=tmp_path)
    assert ok.stdout.strip() == "ok", ok.stderr
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path)
    installed_tops = {p.name for p in Path(site.stdout.strip()).iterdir()}
    assert not {"server", "handlers"} & installed_tops


def test_the_demo_runs_from_a_hostile_folder(installed: Path, hostile: Path) -> None:
    out = run(installed / "tether-lsp", "demo", ROOT / "examples", cwd=hostile, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "HOSTILE" not in out.stdout + out.stderr
    assert "Session closed cleanly" in out.stdout


def test_the_demo_without_a_folder_runs_over_the_shipped_examples(installed: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "unrelated"
    elsewhere.mkdir()
    out = run(installed / "tether-lsp", "demo", cwd=elsewhere, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "Opening 5 files from the examples shipped with tether-lsp" in out.stdout
    assert "Session closed cleanly" in out.stdout
    assert not list(elsewhere.iterdir())


def test_every_subcommand_answers_help(installed: Path, hostile: Path) -> None:
    top = run(installed / "tether-lsp", "--help", cwd=hostile)
    assert top.returncode == 0, top.stderr
    assert top.stdout.startswith("usage: tether-lsp")
    for name in ("demo", "examples", "select", "mcp"):
        out = run(installed / "tether-lsp", name, "--help", cwd=hostile)
        assert out.returncode == 0, f"{name}: {out.stderr}"
        assert out.stdout.startswith(f"usage: tether-lsp {name}"), out.stdout


def test_the_readmes_select_example_works_from_any_folder(installed: Path, hostile: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"^tether-lsp select .*?(?=\s+#|$)", readme, re.MULTILINE)
    assert example, "README.md shows no `tether-lsp select` example"
    env_path = f"{installed}{os.pathsep}{os.environ.get('PATH', '')}"
    out = run("bash", "-c", f'PATH="{env_path}"; {example.group(0)}', cwd=hostile)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].endswith("identifier")
    assert "HOSTILE" not in out.stdout + out.stderr


def test_mcp_without_the_extra_says_how_to_get_it(installed: Path, hostile: Path) -> None:
    out = run(installed / "tether-lsp", "mcp", "--root", hostile, cwd=hostile)
    assert out.returncode == 2
    assert MISSING_SDK in out.stderr


def test_the_mcp_extra_serves_the_tools_from_a_hostile_folder(
    dist: Path, tmp_path_factory: pytest.TempPathFactory, hostile: Path
) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    env = tmp_path_factory.mktemp("venv-mcp")
    venv.create(env, with_pip=True)
    wheel = next(dist.glob("*.whl"))
    pip = run(
        env / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{wheel}[mcp]", cwd=env
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    (hostile / "app.py").write_text("def main():\n    pass\n")
    params = StdioServerParameters(command=str(env / "bin" / "tether-lsp"), args=["mcp", "--root", "."], cwd=hostile)

    async def session() -> list[str]:
        async with Client(params) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            outline = await client.call_tool("outline", {"path": "app.py"})
            assert outline.structured_content is not None
            return [*tools, *(i["name"] for i in outline.structured_content["items"])]

    assert anyio.run(session) == [*TOOL_NAMES, "main"]
