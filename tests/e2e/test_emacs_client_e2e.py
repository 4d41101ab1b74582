"""The Emacs client (clients/emacs) in real Emacs 28: markers, selectors and the workspace list through eglot and
through lsp-mode, with a teammate's server on the same PostgreSQL database; the package's byte-compilation and
its installation with package.el."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from mcp import StdioServerParameters

from tests.e2e.test_editors_e2e import SHAPES, SOURCE, check_playground, need, playground_session
from tests.e2e.test_markers_e2e import create, rng
from tests.fakemodel import Answer, RunningModel
from tests.helpers import capabilities, commit_all, git, server_config, server_env
from tests.mcpclient import McpClient

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "emacs"
SCRIPTS = ROOT / "tests" / "editors"
COMMAND = Path(sys.executable).parent / "tether-lsp"
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
    teammate: Any = await server_config(TETHER_DATABASE_URL=postgres_url, GIT_AUTHOR_NAME="Ada").start()
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
                "GIT_AUTHOR_NAME": "Bea",  # the author of the markers made in Emacs
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
    help_open = "Tether bookmark marker by Ada: where the prompt lives"
    assert seen["atOpen"] == [[1, "(margin left-margin)", "★", "  [bookmark] Ada: where the prompt lives", help_open]]
    assert seen["margin"] == 1
    assert "Kind (default comment): " in transcript and "Question note: " in transcript
    assert seen["added"] == "Tether: question marker added on lines 4-8: use sum()"
    assert [d[:4] for d in seen["afterAdd"]] == [
        [1, "(margin left-margin)", "★", "  [bookmark] Ada: where the prompt lives"],
        [4, "(margin left-margin)", "?", "  [question] Bea: use sum()"],
    ]
    assert seen["edited"] == "Tether: question marker updated: use sum() instead"
    assert seen["deleted"] == "Tether: marker deleted: where the prompt lives"
    assert [d[:4] for d in seen["afterEdit"]] == [
        [4, "(margin left-margin)", "?", "  [question] Bea: use sum() instead"]
    ]
    assert seen["listed"] == [["question", "use sum() instead"]]
    assert seen["workspace"] == [
        ["calc.py", "4", "question", "Bea", "use sum() instead"],
        ["shapes.py", "2", "comment", "Ada", "pi is rough"],
    ]
    assert seen["jumped"] == ["shapes.py", 2]
    assert (seen["selected"], seen["region"]) == (1, "total")
    assert seen["selectError"].startswith("Tether: selectNth: ") and "Wrong type" not in seen["selectError"]
    assert [d[:4] for d in seen["afterTeammate"]] == [
        [4, "(margin left-margin)", "!", "  [issue] Ada: from a teammate"],
        [4, "(margin left-margin)", "?", "  [question] Bea: use sum() instead"],
    ] or [d[:4] for d in seen["afterTeammate"]] == [
        [4, "(margin left-margin)", "?", "  [question] Bea: use sum() instead"],
        [4, "(margin left-margin)", "!", "  [issue] Ada: from a teammate"],
    ]


def run_script(script: str, root: Path, tmp_path: Path, backend: str, **extra: str) -> dict[str, Any]:
    """Run a batch Emacs script of tests/editors through BACKEND (eglot or lsp-mode) in ROOT; what it saw."""
    emacs = need("emacs")
    if backend == "lsp-mode":
        lsp_mode_installed()
    out = tmp_path / "out.json"
    env = server_env(
        {
            "TETHER_PY": sys.executable,
            "TETHER_EMACS": str(CLIENT),
            "TETHER_FILE": str(root / "calc.py"),
            "TETHER_SHAPES": str(root / "shapes.py"),
            "TETHER_OUT": str(out),
            "TETHER_BACKEND": backend,
            "HOME": str(tmp_path),
            **extra,
        }
    )
    done = subprocess.run(
        [emacs, "--batch", "-Q", "-l", str(SCRIPTS / script)],
        cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.exists(), f"{script} wrote nothing:\n{done.stdout}\n{done.stderr}"
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert "error" not in seen, (seen["error"], seen.get("messages"), done.stderr[-3000:])
    return seen


@pytest.mark.parametrize("backend", ["eglot", "lsp-mode"])
async def test_markers_show_in_every_file_opened(tmp_path: Path, backend: str) -> None:
    """Each file opened shows its markers at once, the second one and a file closed and opened again too (lsp-mode
    drew only the first file's until `C-c ; g`); the note and the list name each marker's author, an agent's note
    (added with the MCP tool note_add) as `agent`."""
    need("emacs")
    root = repository(tmp_path)
    teammate: Any = await server_config(GIT_AUTHOR_NAME="Ada").start()
    await teammate.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
    await create(teammate, (root / "calc.py").as_uri(), rng(0, 0, 0, 13), "where the prompt lives", kind="bookmark")
    await teammate.shutdown_session()
    await teammate.stop()
    # an agent's note (tether-lsp mcp, note_add): its author is tether.mcp.author, "agent" by default
    agent = StdioServerParameters(command=str(COMMAND), args=["mcp", "--root", str(root)], env=server_env())
    where = {"start": {"line": 2, "column": 5}, "end": {"line": 3, "column": 32}}
    with McpClient(agent) as client:
        await asyncio.to_thread(client.ok, "note_add", {"path": "shapes.py", "target": where, "text": "pi is rough"})
    seen = await asyncio.to_thread(run_script, "emacs_markers_open.el", root, tmp_path, backend)
    help_first = "Tether bookmark marker by Ada: where the prompt lives"
    assert seen["first"] == [[1, "(margin left-margin)", "★", "  [bookmark] Ada: where the prompt lives", help_first]]
    shapes = [
        2,
        "(margin left-margin)",
        "…",
        "  [comment] agent: pi is rough",
        "Tether comment marker by agent: pi is rough",
    ]
    assert seen["second"] == [shapes]
    assert seen["reopened"] == [shapes]
    assert seen["listed"] == ["agent"]
    assert seen["columns"] == ["Line", "Kind", "Author", "Note"]
    assert seen["rows"] == [["2", "comment", "agent", "pi is rough"]]


def test_playground_through_lsp_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The playground buffer through lsp-mode as through eglot: a variable set, a streamed run in the history, the
    variable read back (lsp-mode's answers are hash tables: a run failed with `wrong-type-argument arrayp')."""
    need("emacs")
    lsp_mode_installed()
    monkeypatch.setenv("TETHER_BACKEND", "lsp-mode")
    script = SCRIPTS / "emacs_playground.el"
    check_playground(playground_session(tmp_path, ["emacs", "--batch", "-Q", "-l", str(script)], "emacs"))


@pytest.mark.parametrize("backend", ["eglot", "lsp-mode"])
def test_playground_shows_each_prompts_own_output(tmp_path: Path, backend: str) -> None:
    """A prompt run, then the cursor on a prompt never run (same file, another file): the playground shows that
    prompt with no output and no runs (it showed the first prompt's output under the other name); its run without
    values says which key sets them; back on the first prompt, its own output and run are there. The cursor on a
    constant's name selects its prompt, an f-string's `{{order}}` shown as `{order}`."""
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q")
    (root / "prompts.py").write_text(
        'TRANSLATE_PROMPT = "Translate {text} into French, keeping names."\n\n'
        'GREETING_PROMPT = "Greet {name} in a {mood} way."\n',
        encoding="utf-8",
    )
    (root / "other.py").write_text(
        'SUMMARY_PROMPT = "Summarise {doc} in one line."\n\nORDER_PROMPT = f"Confirm {{order}} for {customer}."\n',
        encoding="utf-8",
    )
    with RunningModel(Answer(chunks=["Traduction", " : ", "Un café ☕"])) as model:
        settings = {"playground": {"endpoint": model.url("/v1"), "model": "fake-chat"}}
        seen = run_script(
            "emacs_playground_prompts.el",
            root,
            tmp_path,
            backend,
            TETHER_FILE=str(root / "prompts.py"),
            TETHER_OTHER=str(root / "other.py"),
            TETHER_SETTINGS=json.dumps(settings),
        )
        assert len(model.requests) == 1  # the refused run sent nothing
    ran, same, missing, other, back = (seen[k] for k in ("ran", "sameFile", "missing", "otherFile", "back"))
    assert "Output:\nTraduction : Un café ☕\n" in ran and "Runs:" in ran
    for shown, anchor in ((same, "GREETING_PROMPT"), (other, "SUMMARY_PROMPT")):
        assert f"\n{anchor}  [cursor]\n" in shown, shown
        assert "Output" not in shown and "Traduction" not in shown and "Runs:" not in shown, shown
    assert "text = Un café ☕" not in same and "name = (not set: e)" in same
    said = "[not run: name, mood have no value: press e to set each, then r]"
    assert f"Output:\n{said}\n" in missing, missing
    assert seen["missingMessage"] == f"Tether: {said[1:-1]}"
    # the cursor on ORDER_PROMPT's name selects it; its f-string's {{order}} reads {order}, not a variable
    on_name = seen["onName"]
    assert "\nORDER_PROMPT  [cursor]\nConfirm {order} for {customer}.\n  customer = (not set: e)\n" in on_name, on_name
    assert "order = " not in on_name
    assert "\nTRANSLATE_PROMPT  [cursor]\n" in back
    assert "Output:\nTraduction : Un café ☕\n" in back and "Runs:" in back and "fake-chat" in back


@pytest.mark.parametrize("backend", ["eglot", "lsp-mode"])
def test_select_arguments_region_and_steps(tmp_path: Path, backend: str) -> None:
    """`selectRange:10,0,11,21` passes four arguments (it passed one string: "takes 4 argument(s) ... got 1"); the
    region starts a chain (it was ignored: all four methods); C-c ; ] and C-c ; [ step through the matches, the
    others highlighted, and the next selector continues from the match stepped to."""
    seen = run_script("emacs_select_steps.el", repository(tmp_path), tmp_path, backend)
    assert seen["keys"] == ["tether-select-next", "tether-select-previous"]
    assert (seen["range"], seen["rangeRegion"]) == (1, "def side(self):\n        return self.s")
    assert seen["rangeMessage"] == "Tether: 1 selected"
    assert seen["at"] == "area"  # line 13, column 8: Square.area's name
    wrong = seen["rangeWrongCount"]
    assert wrong.startswith("Tether: selectRange: ") and "takes 4 argument(s)" in wrong, wrong
    assert (seen["fromRegion"], seen["fromRegionFirst"]) == (2, "def side(self):\n        return self.s")
    assert seen["selectedMessage"] == "Tether: 1 of 4 selected (C-c ; ] next, C-c ; [ previous)"
    assert seen["current"] == "def area(self):\n        return 3.14 * self.r**2"
    assert seen["highlighted"] == [
        "def grow(self, k):\n        self.r *= k",
        "def side(self):\n        return self.s",
        "def area(self):\n        return self.s**2",
    ]
    assert seen["next"] == "def grow(self, k):\n        self.r *= k"
    assert seen["nextMessage"] == "Tether: 2 of 4 selected (C-c ; ] next, C-c ; [ previous)"
    assert seen["nextHighlighted"] == 3
    assert seen["previous"] == "def area(self):\n        return self.s**2"
    assert seen["previousMessage"] == "Tether: 4 of 4 selected (C-c ; ] next, C-c ; [ previous)"
    assert seen["cursorsKept"] == 4
    assert seen["name"] == ["area", 13]  # the name of Square.area, the match stepped to, now the region
    assert seen["afterMove"] == [0, 0]


def batch(*forms: str, home: Path) -> subprocess.CompletedProcess[str]:
    args = ["emacs", "--batch", "-Q"]
    for form in forms:
        args += ["--eval", form]
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False, env=env)


def test_byte_compiles_without_warnings(tmp_path: Path) -> None:
    """Every file of the client compiles alone (its own requires are enough) with warnings as errors."""
    need("emacs")
    lsp_mode_installed()
    names = sorted(p.name for p in CLIENT.glob("*.el"))
    assert {"tether.el", "tether-core.el", "tether-eglot.el", "tether-lsp-mode.el"} <= set(names), names
    for name in names:
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
    for name in [f.name + "c" for f in CLIENT.glob("*.el")] + ["tether-autoloads.el"]:
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


def test_select_prompt_keys(tmp_path: Path) -> None:
    """The selector prompt's keys: SPC is a space (a chain is typed in one go), not a completion."""
    need("emacs")
    done = batch(
        f'(add-to-list (quote load-path) "{CLIENT}")',
        "(require (quote tether))",
        "(with-temp-buffer (use-local-map tether-select-minibuffer-map)"
        ' (execute-kbd-macro (kbd "selectClasses SPC selectMethods SPC filterText:^def"))'
        " (princ (buffer-string)))",
        home=tmp_path,
    )
    assert done.stdout == "selectClasses selectMethods filterText:^def", done.stderr


class Terminal:
    """Emacs in a terminal (tmux, 140x40, a socket of its own); `screen` is what a user sees."""

    def __init__(self, tmp_path: Path, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.base = ["tmux", "-L", f"tether-{os.getpid()}-{tmp_path.name}"]
        subprocess.run([*self.base, "-f", "/dev/null", "new-session", "-d", "-x", "140", "-y", "40", "-c", str(cwd),
                        *command], check=True, env=env)  # fmt: skip
        self.shots: list[str] = []

    def screen(self) -> str:
        return subprocess.run([*self.base, "capture-pane", "-p"], capture_output=True, text=True, check=True).stdout

    def colored(self) -> str:
        """The screen with its colours (SGR escape sequences)."""
        return subprocess.run(
            [*self.base, "capture-pane", "-p", "-e"], capture_output=True, text=True, check=True
        ).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run([*self.base, "send-keys", *(["-l"] if literal else []), *keys], check=True)

    def wait(self, text: str, seconds: float = 20) -> str:
        deadline = time.monotonic() + seconds
        while True:
            shown = self.screen()
            if text in shown:
                self.shots.append(shown)
                return shown
            assert time.monotonic() < deadline, f"{text!r} never showed:\n{shown}"
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], check=False, capture_output=True)


async def test_terminal_emacs(tmp_path: Path) -> None:
    """What a user of `emacs -nw` sees: the marker in the margin with its note as soon as the file opens; the
    prefix keys; a chain typed with spaces; a selector error in words; a marker added with its kind."""
    emacs, _ = need("emacs"), need("tmux")
    root = repository(tmp_path)
    teammate: Any = await server_config(GIT_AUTHOR_NAME="Ada").start()
    await teammate.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
    await create(teammate, (root / "calc.py").as_uri(), rng(0, 0, 0, 13), "where the prompt lives", kind="bookmark")
    await teammate.shutdown_session()
    await teammate.stop()
    init = tmp_path / "init.el"
    init.write_text(
        f'(setq package-directory-list (list "{ELPA}"))\n(package-initialize)\n'
        f'(add-to-list (quote load-path) "{CLIENT}")\n(require (quote tether))\n'
        f'(setq tether-command (list "{sys.executable}" "-m" "tether_lsp"))\n(tether-setup)\n'
        "(add-hook (quote python-mode-hook) (function eglot-ensure))\n",
        encoding="utf-8",
    )
    env = server_env({"HOME": str(tmp_path), "TERM": "xterm-256color", "GIT_AUTHOR_NAME": "Bea"})
    term = Terminal(tmp_path, [emacs, "-nw", "-Q", "-l", str(init), "calc.py"], root, env)
    try:
        opened = term.wait("[bookmark] Ada: where the prompt lives")
        first = opened.splitlines()[1]  # under the menu bar
        assert first.startswith("★SYSTEM_PROMPT = ") and first.endswith("  [bookmark] Ada: where the prompt lives")
        assert " Tether" in opened  # the minor mode's lighter
        term.keys("C-c", "\\;", "s")
        term.wait("Selectors (TAB completes):")
        term.keys("selectFunctions selectName", literal=True)
        term.wait("Selectors (TAB completes): selectFunctions selectName")
        term.keys("Enter")
        term.wait("Tether: 1 selected")
        term.keys("C-c", "\\;", "s")
        term.wait("Selectors (TAB completes):")
        term.keys("selectNth:first", literal=True)
        term.keys("Enter")
        error = term.wait("Tether: selectNth: ")
        assert "Wrong type argument" not in error
        term.keys("M-g", "g")
        term.wait("Goto line:")
        term.keys("4", "Enter")
        term.wait(" L4 ")
        term.keys("C-c", "\\;", "a")
        term.wait("Kind (default comment):")
        term.keys("question", "Enter")
        term.wait("Question note:")
        term.keys("use sum()", literal=True)
        term.keys("Enter")
        term.wait("Tether: question marker added on line 4: use sum()")
        shown = term.wait("[question] Bea: use sum()")  # drawn when the server's answer to the list arrives
        assert shown.splitlines()[4].startswith("?def total(items):  [question] Bea: use sum()")
    finally:
        captures = os.environ.get("TETHER_EMACS_CAPTURES")
        if captures:
            Path(captures).mkdir(parents=True, exist_ok=True)
            for i, shot in enumerate(term.shots):
                (Path(captures) / f"terminal-{i}.txt").write_text(shot, encoding="utf-8")
        term.close()


def tether_init(tmp_path: Path) -> Path:
    """An init file loading the client from the checkout, eglot started by python-mode."""
    init = tmp_path / "init.el"
    init.write_text(
        f'(setq package-directory-list (list "{ELPA}"))\n(package-initialize)\n'
        f'(add-to-list (quote load-path) "{CLIENT}")\n(require (quote tether))\n'
        f'(setq tether-command (list "{sys.executable}" "-m" "tether_lsp"))\n(tether-setup)\n'
        "(add-hook (quote python-mode-hook) (function eglot-ensure))\n",
        encoding="utf-8",
    )
    return init


def save_shots(term: Terminal, name: str) -> None:
    captures = os.environ.get("TETHER_EMACS_CAPTURES")
    if captures:
        Path(captures).mkdir(parents=True, exist_ok=True)
        for i, shot in enumerate(term.shots):
            (Path(captures) / f"{name}-{i}.txt").write_text(shot, encoding="utf-8")


def backgrounds(colored: str) -> list[set[str]]:
    """For each screen row, the background colours its visible characters have (tmux writes an SGR sequence
    only where the attributes change, so the state carries over from row to row)."""
    rows: list[set[str]] = []
    background = ""
    for line in colored.split("\n"):
        seen: set[str] = set()
        for piece in re.split(r"(\x1b\[[0-9;]*m)", line):
            if piece.startswith("\x1b["):
                codes = piece[2:-1].split(";")
                k = 0
                while k < len(codes):
                    if codes[k] in ("", "0", "49"):
                        background = ""
                    elif codes[k] == "48":
                        background, k = ";".join(codes[k : k + 3]), k + 2
                    elif codes[k] == "38":
                        k += 2
                    k += 1
            elif background and piece.strip():
                seen.add(background)
        rows.append(seen)
    return rows


def test_terminal_select_steps(tmp_path: Path) -> None:
    """In `emacs -nw`: the region (Square) starts a chain, then C-c ; ] steps to the next method with the others
    highlighted on screen."""
    emacs, _ = need("emacs"), need("tmux")
    root = repository(tmp_path)
    env = server_env({"HOME": str(tmp_path), "TERM": "xterm-256color"})
    term = Terminal(tmp_path, [emacs, "-nw", "-Q", "-l", str(tether_init(tmp_path)), "shapes.py"], root, env)
    try:
        term.wait(" Tether")
        term.keys("M-g", "g")
        term.wait("Goto line:")
        term.keys("9", "Enter")
        term.wait(" L9 ")
        term.keys("C-Space", "M->", "C-c", "\\;", "s")
        term.wait("Selectors (TAB completes):")
        term.keys("selectMethods", literal=True)
        term.keys("Enter")
        term.wait("Tether: 1 of 2 selected (C-c ; ] next, C-c ; [ previous)")
        term.keys("M-<")
        term.keys("C-c", "\\;", "s")
        term.wait("Selectors (TAB completes):")
        term.keys("selectMethods", literal=True)
        term.keys("Enter")
        term.wait("Tether: 1 of 4 selected")
        term.keys("C-c", "\\;", "]")
        shown = term.wait("Tether: 2 of 4 selected")
        colored = term.colored()
        term.shots.append(colored)
        rows = shown.splitlines()
        # rows 1.. are the file's lines 1..: Circle.area (2-3), grow (5-6, the region), side (10-11), area (13-14)
        assert rows[5].strip().startswith("def grow(self, k):")
        rows_bg = backgrounds(colored)
        (others,) = rows_bg[2]  # one colour for the other matches, another for the region
        assert [rows_bg[r] for r in (2, 3, 10, 11, 13, 14)] == [{others}] * 6, colored
        (region,) = rows_bg[5]
        assert region != others and rows_bg[6] == {region}, colored
        assert rows_bg[1] == rows_bg[8] == rows_bg[9] == set()  # the classes' lines: not highlighted
    finally:
        save_shots(term, "select")
        term.close()


def setup_snippet() -> str:
    """The init-file snippet of docs/editors/emacs.md, the one clients/emacs/README.md shows too."""
    blocks = re.findall(
        r"```elisp\n(.*?)```", (ROOT / "docs" / "editors" / "emacs.md").read_text(encoding="utf-8"), re.S
    )
    (snippet,) = [b for b in blocks if "(tether-setup " in b]
    assert snippet in (CLIENT / "README.md").read_text(encoding="utf-8")
    return str(snippet)


@pytest.mark.parametrize("backend", ["eglot", "lsp-mode"])
async def test_setup_snippet_starts_tether(tmp_path: Path, backend: str) -> None:
    """The documented init snippet, as written (the folder's path filled in), in `emacs -nw`: visiting a Python
    file starts Tether by itself (a teammate's marker shows, ` Tether` in the mode line), with eglot, and with
    lsp-mode after the one question lsp-mode asks about a new project."""
    emacs, _ = need("emacs"), need("tmux")
    if backend == "lsp-mode":
        lsp_mode_installed()
    snippet = setup_snippet()
    if backend == "lsp-mode":
        alternative = ";; with lsp-mode instead of eglot:   (tether-setup 'lsp-mode)"
        assert alternative in snippet
        snippet = snippet.replace("(tether-setup 'eglot)", alternative.split(":   ")[1])
    root = repository(tmp_path)
    teammate: Any = await server_config(GIT_AUTHOR_NAME="Ada").start()
    await teammate.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=root.as_uri()))
    await create(teammate, (root / "calc.py").as_uri(), rng(0, 0, 0, 13), "where the prompt lives", kind="bookmark")
    await teammate.shutdown_session()
    await teammate.stop()
    init = tmp_path / "init.el"  # what package.el does at startup for installed packages, then the snippet
    init.write_text(
        f'(setq package-directory-list (list "{ELPA}"))\n(package-initialize)\n'
        + snippet.replace("/path/to/tether/clients/emacs", str(CLIENT)),
        encoding="utf-8",
    )
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # `tether-lsp` as written: the installed command
    env = server_env({"HOME": str(tmp_path), "TERM": "xterm-256color", "PATH": path})
    term = Terminal(tmp_path, [emacs, "-nw", "-Q", "-l", str(init), "calc.py"], root, env)
    try:
        if backend == "lsp-mode":
            term.wait("Import project root", 60)
            term.keys("i")
        opened = term.wait("[bookmark] Ada: where the prompt lives", 60)
        (first,) = [row for row in opened.splitlines() if "[bookmark]" in row]  # lsp-mode adds a breadcrumb row
        assert first.startswith("★SYSTEM_PROMPT = ")
        assert " Tether" in opened
    finally:
        save_shots(term, f"setup-{backend}")
        term.close()
