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

from tests.e2e.test_tasks_e2e import CALC, RESPONSE, UTIL
from tests.fakemodel import Answer, RunningModel
from tests.helpers import server_env

ROOT = Path(__file__).resolve().parents[2]
SOURCE = """SYSTEM_PROMPT = "You are a helpful assistant for the café menu."


def total(items):
    s = 0
    for i in items:
        s += i
    return s
"""


OLD_TOTAL = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
#: Longer than the function it replaces (7 lines for 5), with indentation, a tab-free comment and non-ASCII.
LONGER = (
    "def total(items):\n    if not items:\n        return 0\n    result = 0\n    for item in items:\n"
    "        result += item  # café ☕\n    return result"
)
SHAPES = """class Circle:
    def area(self):
        return 3.14 * self.r**2

    def grow(self, k):
        self.r *= k


class Square:
    def side(self):
        return self.s

    def area(self):
        return self.s**2
"""


NVIM_011 = ROOT / ".cache" / "nvim-0.11" / "bin" / "nvim"  # scripts/ensure-nvim-0.11.sh (make system-deps)


@pytest.fixture(params=["0.7", "0.11"])
def nvim(request: pytest.FixtureRequest) -> str:
    """Debian's Neovim 0.7.2 and the 0.11 release: every Neovim test runs on both."""
    if request.param == "0.7":
        return need("nvim")
    if not NVIM_011.exists():
        if os.environ.get("TETHER_REQUIRE_EDITORS") or os.environ.get("CI"):
            pytest.fail("Neovim 0.11 is not installed (scripts/ensure-nvim-0.11.sh installs it)")
        pytest.skip("run scripts/ensure-nvim-0.11.sh first")
    return str(NVIM_011)


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
    (root / "shapes.py").write_text(SHAPES, encoding="utf-8")
    (root / "preview.py").write_text(OLD_TOTAL + "\n", encoding="utf-8")
    return root


def run(command: list[str], root: Path, out: Path, client_dir: str, **extra: str) -> dict[str, object]:
    env = server_env(
        {
            "TETHER_PY": sys.executable,
            "TETHER_FILE": str(root / "calc.py"),
            "TETHER_SHAPES": str(root / "shapes.py"),
            "TETHER_PREVIEW": str(root / "preview.py"),
            "TETHER_LONGER": LONGER.replace("\n", "\\n"),
            "TETHER_OUT": str(out),
            "TETHER_NVIM": str(ROOT / "clients" / "nvim"),
            "TETHER_EMACS": str(ROOT / "clients" / "emacs"),
            "HOME": str(root.parent),
            **extra,
        }
    )
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert out.exists(), f"{client_dir} wrote nothing:\n{done.stdout}\n{done.stderr}"
    result: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_neovim(tmp_path: Path, nvim: str) -> None:
    root = workspace(tmp_path)
    script = ROOT / "tests" / "editors" / "nvim_session.lua"
    command = [nvim, "--headless", "--clean", "-c", f"luafile {script}"]
    seen = run(command, root, tmp_path / "out.json", "nvim", GIT_AUTHOR_NAME="Ada")  # the markers' author
    assert "error" not in seen, seen.get("error")
    assert seen["ready"] is True
    # :TetherSelect selectMethods, then :TetherSelect selectFirst: the first method of each class, selected
    assert (seen["methods"], seen["first"], seen["mode"]) == (4, 2, "v")
    assert seen["selected"] == "def area(self):\n        return 3.14 * self.r**2"
    assert seen["next"] == "def side(self):\n        return self.s"  # ]s
    assert seen["afterMove"] == 0  # a move of the user's own ends the structural cursors
    assert seen["bad"] == "message"
    # a marker on lines 4-8, a line typed above it: the location list jumps to where the code is now
    assert seen["loclist"] == 1
    assert (seen["jumped"], seen["jumpedBuffer"]) == ([5, 0], "calc.py")
    assert seen["sign"] == {"row": 4, "note": "  ? Ada: use sum()"}  # at the end of the marker's first line
    assert seen["quickfix"] == 1
    assert seen["prompt"] == "SYSTEM_PROMPT"
    health = str(seen["health"])  # :checkhealth tether
    assert "server program found" in health and "server runs: tether-lsp" in health and "client running" in health
    # the replacement preview: 5 struck lines, all 7 new ones under them with their indentation; <Tab> accepts
    assert seen["struck"] == 5
    assert seen["previewLines"] == LONGER.split("\n")
    assert seen["accepted"] == LONGER + "\n"
    assert seen["previewAfter"] == 0


def test_emacs_eglot(tmp_path: Path) -> None:
    emacs = need("emacs")
    root = workspace(tmp_path)
    script = ROOT / "tests" / "editors" / "emacs_session.el"
    seen = run([emacs, "--batch", "-Q", "-l", str(script)], root, tmp_path / "out.json", "emacs")
    assert seen["created"] == "use sum()"
    assert seen["markers"] == [["use sum()", 4]]
    assert (seen["methods"], seen["first"]) == (4, 2)  # two commands, the second from the first's cursors
    assert seen["region"] == "def area(self):\n        return 3.14 * self.r**2"
    assert seen["afterMove"] == 0
    assert seen["listMode"] == "tether-markers-mode"
    assert seen["jumpedTo"] == ["calc.py", 5]  # RET in the list: the marker's code, one line down now
    assert seen["overlay"] == "  [comment] use sum()"
    assert seen["selected"] == 1
    assert seen["point_line"] == 5
    assert seen["prompt"] == "SYSTEM_PROMPT"
    # the replacement preview: the old function struck, the new block after it (every line), TAB accepts
    assert seen["struck"] == OLD_TOTAL.rstrip("\n")
    assert seen["previewBlock"] == "\n" + LONGER
    assert seen["accepted"] == LONGER + "\n\n"  # the whole buffer: the blank line kept, and the final newline
    assert seen["previewAfter"] is False


def task_workspace(tmp_path: Path) -> tuple[Path, int, list[str], list[str]]:
    """calc.py (open in the editor, with the @run line) and util.py (closed); the first answer changes both and
    creates tests/test_calc.py, the second rewrites the first's result and is cancelled halfway."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    (root / "util.py").write_text(UTIL, encoding="utf-8")
    task_line = CALC.split("\n").index(next(x for x in CALC.split("\n") if "@run" in x))
    pieces = [RESPONSE[k : k + 7] for k in range(0, len(RESPONSE), 7)]
    second = (
        "<change><path>calc.py</path>\n<range-to-replace>\n    return sum(items)\n</range-to-replace>\n"
        "<replacement>\n    return CANCELLED_RUN\n"
    )
    halfway = [second[k : k + 7] for k in range(0, len(second), 7)] + ["x"] * 400
    return root, task_line, pieces, halfway


EXPECTED_CALC = CALC.replace(
    "    s = 0\n    for i in items:\n        s += i\n    return s\n", "    return sum(items)\n"
)


def check_task_files(root: Path) -> None:
    assert (root / "calc.py").read_text(encoding="utf-8") == EXPECTED_CALC  # the open file, after a save
    assert (root / "util.py").read_text(encoding="utf-8") == UTIL + "\n\ndef triple(x):\n    return x * 3\n"
    assert (root / "tests" / "test_calc.py").read_text(encoding="utf-8").startswith("from calc import total")


def test_emacs_task(tmp_path: Path) -> None:
    """M-x tether-run-task is asynchronous with no client-side timeout, applies Tether's edits without asking,
    saves the files it changed that were not visited; tether-cancel-task undoes the change being written."""
    emacs = need("emacs")
    root, task_line, pieces, halfway = task_workspace(tmp_path)
    with RunningModel(Answer(chunks=pieces, chunk_delay=0.01), Answer(chunks=halfway, chunk_delay=0.02)) as model:
        script = ROOT / "tests" / "editors" / "emacs_task.el"
        seen = run(
            [emacs, "--batch", "-Q", "-l", str(script)],
            root,
            tmp_path / "out.json",
            "emacs",
            TETHER_SETTINGS=json.dumps({"tasks": {"endpoint": model.url("/v1")}}),
            TETHER_TASK_LINE=str(task_line),
        )
    assert "error" not in seen, seen.get("error")
    assert seen["returnedAtOnce"] is True
    assert isinstance(seen["ticks"], int) and seen["ticks"] >= 5
    assert seen["status"] == ["calc.py:applied", "util.py:applied", "test_calc.py:created"]
    assert seen["hiddenModified"] == []
    check_task_files(root)
    assert seen["cancelCode"] == -32800
    assert seen["afterCancel"] == EXPECTED_CALC


def test_neovim_task(tmp_path: Path, nvim: str) -> None:
    """:TetherRun is asynchronous (a timer ticks while the model streams), the open file changes in its buffer,
    the closed one and the new one on disk (no hidden modified buffer left); :TetherCancel undoes a change."""
    root, task_line, pieces, halfway = task_workspace(tmp_path)
    with RunningModel(Answer(chunks=pieces, chunk_delay=0.01), Answer(chunks=halfway, chunk_delay=0.02)) as model:
        settings = {"tasks": {"endpoint": model.url("/v1")}}
        script = ROOT / "tests" / "editors" / "nvim_task.lua"
        seen = run(
            [nvim, "--headless", "--clean", "-c", f"luafile {script}"],
            root,
            tmp_path / "out.json",
            "nvim",
            TETHER_SETTINGS=json.dumps(settings),
            TETHER_TASK_LINE=str(task_line),
        )
    assert "error" not in seen, seen.get("error")
    assert seen["returnedAtOnce"] is True
    assert isinstance(seen["ticks"], int) and seen["ticks"] >= 5  # the editor kept running its timers
    assert seen["status"] == ["calc.py:applied", "util.py:applied", "test_calc.py:created"]
    assert seen["hiddenModified"] == []  # nothing left unsaved in a hidden buffer
    expected_calc = CALC.replace(
        "    s = 0\n    for i in items:\n        s += i\n    return s\n", "    return sum(items)\n"
    )
    assert (root / "calc.py").read_text(encoding="utf-8") == expected_calc  # the open file, after :write
    assert (root / "util.py").read_text(encoding="utf-8") == UTIL + "\n\ndef triple(x):\n    return x * 3\n"
    assert (root / "tests" / "test_calc.py").read_text(encoding="utf-8").startswith("from calc import total")
    assert seen["writingSeen"] is True and seen["cancelCode"] == -32800
    after_cancel, notes = str(seen["afterCancel"]), list(seen["notes"])  # type: ignore[call-overload]
    assert "CANCELLED_RUN" not in after_cancel and after_cancel + "\n" == EXPECTED_CALC
    assert any("Tether task: change" in n for n in notes)  # the server's progress, shown


def playground_session(tmp_path: Path, command: list[str], client_dir: str) -> dict[str, object]:
    """One editor's playground script against the fake model; returns what it saw, and what the model got."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "prompts.py").write_text('TRANSLATE_PROMPT = "Translate {text} into French, keeping names."\n')
    answer = ["Traduction", " : ", "Un café ☕", " (fr)"]
    with RunningModel(Answer(chunks=answer, chunk_delay=0.2)) as model:
        settings = {"playground": {"endpoint": model.url("/v1"), "model": "fake-chat"}}
        seen = run(
            command,
            root,
            tmp_path / "out.json",
            client_dir,
            TETHER_SETTINGS=json.dumps(settings),
            TETHER_FILE=str(root / "prompts.py"),
        )
        seen["sent"] = model.requests[0]["messages"] if model.requests else None
    return seen


def check_playground(seen: dict[str, object]) -> None:
    """The prompt under the cursor, a variable set and saved, a streamed run in the history, the value back."""
    assert "error" not in seen, seen.get("error")
    opened, after_set, finished = (str(seen[k]) for k in ("opened", "afterSet", "finished"))
    assert "▶ TRANSLATE_PROMPT" in opened and "text = (not set: e)" in opened
    assert "text = Un café ☕" in after_set
    assert seen["sawStreaming"] is True  # a piece was shown before the run ended
    assert "Traduction : Un café ☕ (fr)" in finished and "Runs:" in finished and "fake-chat" in finished
    assert seen["sent"] == [{"role": "user", "content": "Translate Un café ☕ into French, keeping names."}]
    assert "text = Un café ☕" in str(seen["reopened"])  # saved with the prompt, read back


def test_neovim_playground(tmp_path: Path, nvim: str) -> None:
    """:TetherPlayground: the prompt under the cursor in a floating window, a variable set with `e`, a run with
    `r` streaming in, kept in the history, and the variable restored when the window is opened again."""
    script = ROOT / "tests" / "editors" / "nvim_playground.lua"
    check_playground(playground_session(tmp_path, [nvim, "--headless", "--clean", "-c", f"luafile {script}"], "nvim"))


def test_emacs_playground(tmp_path: Path) -> None:
    """M-x tether-playground: the prompt under the cursor, a variable set (saved with the prompt), a run whose
    answer streams in and lands in the history, the variable read back from the server."""
    emacs = need("emacs")
    script = ROOT / "tests" / "editors" / "emacs_playground.el"
    check_playground(playground_session(tmp_path, [emacs, "--batch", "-Q", "-l", str(script)], "emacs"))
