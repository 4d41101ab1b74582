"""The command line: `tether-lsp select` and `tether-lsp demo` as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers import EXAMPLES, server_env


def tether(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tether_lsp", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=server_env(),
        cwd=cwd,
    )


def test_select_prints_ranges_and_texts(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("# café\ndef f(a, b):\n    return g(a)\n\nclass 東京:\n    def m(self): pass\n", encoding="utf-8")
    out = tether("select", str(source), "selectFunctions", "selectName")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["2:5-2:6  identifier", "    f", "6:9-6:10  identifier", "    m"]
    at = tether("select", str(source), "selectAt:3,13", "selectEnclosing:function", "selectParameters", "selectLast")
    assert at.stdout.splitlines() == ["2:10-2:11  identifier", "    b"]
    regex = tether("select", str(source), "selectClasses", "filterText:^class 東京:,?")
    assert regex.stdout.splitlines()[0] == "5:1-6:22  class_definition"


def test_select_on_yaml_and_no_result(tmp_path: Path) -> None:
    out = tether(
        "select", str(EXAMPLES / "k8s" / "deployment.yaml"), "selectPairs", "filterText:^image:", "selectValue"
    )
    assert out.returncode == 0
    assert "registry.example/orders:1.4.2" in out.stdout
    none = tether("select", str(EXAMPLES / "playbook.yml"), "selectFunctions")
    assert none.returncode == 1
    assert none.stdout == ""


def test_select_takes_several_arguments_after_a_colon_separated_by_commas(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f(a, b):\n    return g(a, 東京)\n", encoding="utf-8")
    # line 2, columns 14 to 19 as the output prints them (1-based, in characters): `a, 東京` exactly
    out = tether("select", str(source), "selectRange:2,14,2,19")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["2:14-2:15  identifier", "    a", "2:17-2:19  identifier", "    東京"]
    zero = tether("select", str(source), "selectRange:2,0,2,19")  # a 0-based column typed in the 1-based CLI
    assert zero.returncode == 2
    assert zero.stderr == (
        "tether-lsp select: selectRange:2,0,2,19: args[1]: startCharacter counts from 1 here,"
        " as lines and columns are printed; got 0\n"
    )
    spaces = tether("select", str(source), "selectRange:2 14 2 19")
    assert spaces.returncode == 2
    assert "got 1; send them as an array in args (in the CLI and editor prompts: after the name and a colon," in (
        spaces.stderr
    )
    assert "as in selectRange:startLine,startCharacter,endLine,endCharacter)" in spaces.stderr


def test_select_bad_input_exits_2(tmp_path: Path) -> None:
    bad = tether("select", str(EXAMPLES / "service.py"), "selectFoo")
    assert bad.returncode == 2
    assert "unknown selector 'selectFoo'" in bad.stderr
    assert "available: filterInnermost" in bad.stderr
    args = tether("select", str(EXAMPLES / "service.py"), "selectNth:x")
    assert args.returncode == 2
    assert "n must be an integer" in args.stderr
    missing = tether("select", str(tmp_path / "nope.py"), "selectFunctions")
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr
    text = tmp_path / "notes.txt"
    text.write_text("hi")
    assert tether("select", str(text), "selectFunctions").returncode == 2


def test_demo_runs_a_session_over_the_examples() -> None:
    out = tether("demo", str(EXAMPLES))
    assert out.returncode == 0, out.stderr
    for heading in ("== Documents ==", "== Expand selection", "== Structural selectors"):
        assert heading in out.stdout
    assert "service.py" in out.stdout
    assert "selectFunctions → selectName: retry, decorate, wrapper" in out.stdout
    assert "TRANSLATE_PROMPT) with {'language': 'Japanese'} against a local stand-in model" in out.stdout
    assert "the last one reads: «Translate the message into Japanese" in out.stdout  # the variable filled in
    assert "Ignoring notification" not in out.stdout + out.stderr
    assert out.stdout.rstrip().endswith("Session closed cleanly (shutdown, exit).")


def test_demo_on_a_folder_without_sources(tmp_path: Path) -> None:
    out = tether("demo", str(tmp_path))
    assert out.returncode == 1
    assert "no Python or YAML files" in out.stderr


def test_start_up_does_not_load_what_initialize_does_not_need() -> None:
    """SQLAlchemy (~90 ms to import) loads on the first database use and numpy on the first selector, not when
    the server is built; rapidfuzz (~50 ms) on the first comparison of lines, regex on the first pattern; the MCP
    SDK and its HTTP stack only when tether.mcp.http.enabled is true."""
    heavy: tuple[str, ...] = ("sqlalchemy", "psycopg", "numpy", "rapidfuzz", "regex")
    heavy += ("mcp", "mcp_types", "starlette", "uvicorn", "anyio", "httpx2")
    probe = (
        "import sys; from tether_lsp.compose import create_server; "
        "create_server().apply_settings({'mcp': {'http': {'enabled': False, 'port': 0}}}); "
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=server_env())
    assert out.stdout.strip() == "[]"


def test_every_subcommand_answers_help(tmp_path: Path) -> None:
    top = tether("--help", cwd=tmp_path)
    assert top.returncode == 0, top.stderr
    subcommands = ("demo", "select", "examples", "fake-model")
    for name in subcommands:
        assert name in top.stdout
        out = tether(name, "--help", cwd=tmp_path)
        assert out.returncode == 0, f"{name}: {out.stderr}"
        assert out.stdout.startswith(f"usage: tether-lsp {name}"), out.stdout
        assert "is not a directory" not in out.stdout + out.stderr


def test_demo_without_a_folder_runs_over_the_shipped_examples_from_anywhere(tmp_path: Path) -> None:
    out = tether("demo", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Opening 5 files from the examples shipped with tether-lsp" in out.stdout
    assert "selectFunctions → selectName: retry, decorate, wrapper" in out.stdout
    assert out.stdout.rstrip().endswith("Session closed cleanly (shutdown, exit).")


def test_examples_prints_the_shipped_folder_that_select_reads_from_anywhere(tmp_path: Path) -> None:
    out = tether("examples", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    folder = Path(out.stdout.strip())
    assert folder.is_absolute()
    assert sorted(p.name for p in folder.glob("*.py")) == ["prompts.py", "service.py"]
    assert (folder / "service.py").read_bytes() == (EXAMPLES / "service.py").read_bytes()
    chain = ("selectClasses", "selectMethods", "selectFirst", "selectName")
    selected = tether("select", str(folder / "service.py"), *chain, cwd=tmp_path)
    assert selected.returncode == 0, selected.stderr
    assert selected.stdout == tether("select", str(EXAMPLES / "service.py"), *chain).stdout
