"""The VS Code extension for real: code-server (VS Code 1.100) with clients/vscode installed, driven in headless
Chromium (clients/vscode/e2e/run.mjs): "Tether: Select…", the playground's prompt in the status bar, a
replacement preview (struck old unit) accepted with Tab and saved."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_editors_e2e import LONGER, SHAPES
from tests.e2e.test_editors_e2e import SOURCE as EDITOR_SOURCE
from tests.e2e.test_replacement_e2e import COMPLETION, SITE
from tests.e2e.test_tasks_e2e import CALC, RESPONSE
from tests.fakemodel import Answer, RunningModel
from tests.helpers import server_env

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = """TRANSLATE_PROMPT = "Translate {text} into French, keeping the product names."
GREETING_PROMPT = "Greet the customer warmly and ask how you can help today."
"""
NOTES = "def total(items):\n    s = sum(items)\n    return round(s, 2)  # café\n\n\ndef other():\n    pass\n"
ANSWER = ["Traduction", " : ", "Un café ☕", " (en français)"]
SECOND = "Bon appétit !"  # the second run's answer has this line more
#: The third run's answer: long and slow (the user moves to another prompt and back while it streams, then cancels)
LONG = ["Une longue réponse"] + [f" mot{k}" for k in range(100)]
CACHE = ROOT / ".cache" / "vscode-e2e"
SOURCE = EDITOR_SOURCE + "\n"  # a blank last line: the cursor goes there for the replacement preview
#: The task's model changes only the file the task runs in (the first change of the tasks test's answer).
TASK_RESPONSE = RESPONSE[: RESPONSE.index("</change>") + len("</change>")].replace("calc.py", "task.py")
#: A marker's note longer than the view is wide.
NOTE = "Why is the total rounded here? The invoice sums cents, so rounding twice loses a cent on large orders"
#: A completion typed on the blank line between SHAPES' `area` and `grow`: it replaces `grow`.
GROW = "def grow(self, k):\n        self.r *= k * 2"


CODE_SERVER = CACHE / "node_modules" / ".bin" / "code-server"
SHOTS = ROOT / ".cache" / "screenshots" / "vscode"  # ignored by git: look at them after a run


@pytest.fixture(scope="module")
def vsix() -> Path:
    """The .vsix as `make vsix` builds it: the wheel of this checkout inside, the extension bundled."""
    ready = (
        CODE_SERVER.exists() and (ROOT / "clients" / "vscode" / "node_modules").exists() and shutil.which("chromium")
    )
    if not ready:
        if os.environ.get("TETHER_REQUIRE_EDITORS") or os.environ.get("CI"):
            pytest.fail("code-server / chromium missing: clients/vscode/e2e/setup.sh installs them")
        pytest.skip("run clients/vscode/e2e/setup.sh first")
    shutil.rmtree(SHOTS, ignore_errors=True)  # only this run's pictures
    SHOTS.mkdir(parents=True)
    wheels = ROOT / "clients" / "vscode" / "server"
    shutil.rmtree(wheels, ignore_errors=True)
    wheel = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert wheel.returncode == 0, wheel.stdout[-2000:] + wheel.stderr[-2000:]
    package = ROOT / "clients" / "vscode" / "tether.vsix"
    built = subprocess.run(
        ["npm", "run", "package"], cwd=ROOT / "clients" / "vscode", capture_output=True, text=True, check=False
    )
    assert built.returncode == 0 and package.exists(), built.stdout[-2000:] + built.stderr[-2000:]
    return package


def drive(env: dict[str, str], out: Path, timeout: float) -> dict[str, Any]:
    """Run the scripted session (clients/vscode/e2e/run.mjs) and read what it saw."""
    done = subprocess.run(
        ["node", str(ROOT / "clients" / "vscode" / "e2e" / "run.mjs")],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {"error": done.stderr}
    return seen


def test_vscode_installs_the_server_when_none_is_found(tmp_path: Path, vsix: Path) -> None:
    """No tether.server.path, no tether-lsp on PATH: the notification offers to install the wheel shipped in the
    .vsix into the extension's own environment (pip, from the package index); the server then answers."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "calc.py").write_text(SOURCE, encoding="utf-8")
    base_python = Path(getattr(sys, "_base_executable", sys.executable)).parent
    path = os.pathsep.join([str(base_python), "/usr/local/bin", "/usr/bin", "/bin"])  # python3, node; no tether-lsp
    env = server_env(
        {
            "WORKSPACE": str(workspace),
            "VSIX": str(vsix),
            "E2E_CACHE": str(CACHE),
            "CODE_SERVER": str(CODE_SERVER),
            "OUT": str(tmp_path / "out.json"),
            "SHOT": str(SHOTS / "vscode.png"),
            "SCENARIO": "install",
            "PATH": path,
        }
    )
    seen = drive(env, tmp_path / "out.json", 480)
    assert "error" not in seen, seen.get("error", "") + "\n" + seen.get("serverLog", "")
    assert "no tether-lsp on PATH" in seen["notFound"] and "Install Tether" in seen["notFound"]
    assert seen["installed"] == "ready"
    assert seen["works"] == "SYSTEM_PROMPT"


def test_vscode_extension(tmp_path: Path, vsix: Path) -> None:
    code_server = CODE_SERVER
    workspace = tmp_path / "ws"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "calc.py").write_text(SOURCE, encoding="utf-8")
    (workspace / "site.yml").write_text(SITE, encoding="utf-8")
    (workspace / "task.py").write_text(CALC, encoding="utf-8")
    (workspace / "shapes.py").write_text(SHAPES, encoding="utf-8")
    (workspace / "prompts.py").write_text(PROMPTS, encoding="utf-8")
    (workspace / "notes.py").write_text(NOTES, encoding="utf-8")
    task_line = CALC.split("\n").index(next(x for x in CALC.split("\n") if "@run" in x))
    out, shot = tmp_path / "out.json", SHOTS / "vscode.png"
    env = server_env(
        {
            "WORKSPACE": str(workspace),
            "VSIX": str(vsix),
            "E2E_CACHE": str(CACHE),
            "CODE_SERVER": str(code_server),
            # no --log-file: the server logs to stderr, which the extension shows in its output channel
            "SERVER_CMD": json.dumps([sys.executable, "-m", "tether_lsp"]),
            "OUT": str(out),
            "SHOT": str(shot),
            "TASK_LINE": str(task_line),
            "TASK_TEXT": CALC,
            "LONGER": LONGER.replace("\n", "\\n"),
            "GROW": GROW.replace("\n", "\\n"),
            "NOTE": NOTE,
        }
    )
    pieces = [TASK_RESPONSE[k : k + 9] for k in range(0, len(TASK_RESPONSE), 9)]
    # the first run is cancelled while its change is being written: a line of it is in, more keeps coming
    cut = TASK_RESPONSE.index("    return sum(items)\n") + len("    return sum(items)\n")
    halfway = [TASK_RESPONSE[k : min(k + 9, cut)] for k in range(0, cut, 9)] + ["x"] * 600
    # the AI completion the inline step gets; the task's model streaming its change token by token
    with (
        RunningModel(Answer(COMPLETION)) as model,
        RunningModel(Answer(chunks=halfway, chunk_delay=0.05), Answer(chunks=pieces)) as tasks_model,
        # the first run streams slowly (its partial answers are seen), the second answers at once, differently
        RunningModel(
            Answer(chunks=ANSWER, chunk_delay=0.4),
            Answer(chunks=[*ANSWER, "\n", SECOND]),
            Answer(chunks=LONG, chunk_delay=0.3),
        ) as chat_model,
    ):
        env["TETHER_SETTINGS"] = json.dumps(
            {
                "inference": {"endpoint": model.url("/api/generate"), "delay": 0},
                "tasks": {"endpoint": tasks_model.url("/v1")},
                "playground": {"endpoint": chat_model.url("/v1"), "model": "fake-chat"},
            }
        )
        seen = drive(env, out, 240)
    assert "error" not in seen, seen.get("error", "") + "\n" + seen.get("serverLog", "")
    assert seen["selection"] == {"line": 4, "col": 10, "selected": 5}  # `total` selected (the cursor at its end)
    assert seen["playground"] == "SYSTEM_PROMPT"
    assert seen["preview"] == "replace: replaces the function 'total'"
    assert seen["struck"] >= 1  # the old unit is decorated
    assert seen["previewLines"] == LONGER.split("\n")  # every new line shown, with its indentation
    # the new code is all in view and covers none of the struck code, in one editor group and in the narrower
    # second one (where it used to be drawn past the editor's right edge)
    for box in (seen["previewBox"], seen["previewBoxSplit"]):
        (left, top, right, bottom), (area_left, area_top, area_right, area_bottom) = box["image"], box["area"]
        assert area_left <= left and right <= area_right and area_top <= top and bottom <= area_bottom, box
        assert box["struckLines"] == 5 and top >= box["struckBottom"] - 1, box
    # "replacement pending" in the status bar exactly while one is: gone after Escape, Tab, and the inline one's Tab
    assert seen["pendingShown"] is True
    assert (seen["pendingAfterEscape"], seen["pendingAfterTab"], seen["pendingAfterInline"]) == ("gone",) * 3
    old = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
    expected = SOURCE.replace(old, LONGER + "\n")
    assert seen["saved"] == expected  # the old function replaced, the cursor line kept
    # the model's completion under `shell:`: previewed as a replacement, accepted with Tab
    assert seen["inline"] == "pending"
    assert seen["yaml"] == SITE.replace(
        '\n        command: >-\n          "{{ old command that should be deleted }}"\n        register: old_result',
        COMPLETION,
    )
    # the task: streamed into the open document, reported "applied", and the file on disk says so after a save
    assert "Cancel" in seen["taskProgress"]  # a progress notification that can be cancelled
    assert seen["taskCancelled"] == "cancelled"
    assert "return sum(items)" not in seen["taskAfterCancel"]  # what was written was undone
    assert seen["taskMessage"] == "task.py: applied"
    # reviewed in the editor: Accept / Reject above the change; one Ctrl+Z takes the whole task back, exactly
    assert any("Accept" in t for t in seen["taskLenses"]) and any("Reject" in t for t in seen["taskLenses"])
    assert seen["taskReviewStatus"] == "Tether task: 1 change to review"
    shown = "\n".join(line for line in CALC.split("\n") if line)  # as the editor's DOM gives it: no blank lines
    assert seen["taskUndone"] == shown
    assert seen["taskRejected"] == shown  # Reject writes the old lines back, in one step
    assert seen["taskAccepted"] == "accepted"
    assert seen["taskLog"] == "session.md"
    assert seen["taskFile"] == CALC.replace(
        "    s = 0\n    for i in items:\n        s += i\n    return s\n", "    return sum(items)\n"
    )
    # structural cursors across commands: 4 methods, the first of each class, their names; typing renames both.
    # Before that, `grow` was replaced from the blank line above it, which separates it from `area`: kept, without
    # the spaces typed on it
    assert (seen["methods"], seen["first"], seen["names"]) == (4, 2, 2)
    grown = SHAPES.replace("\n\n    def grow(self, k):\n        self.r *= k\n", "\n\n    " + GROW + "\n")
    assert seen["shapes"] == grown.replace(
        "def area(self):\n        return 3.14", "def renamed(self):\n        return 3.14"
    ).replace("def side(self)", "def renamed(self)")
    assert seen["afterEdit"] == "cleared"
    assert "selectNextSibling" in seen["pick"] and "sibling" in seen["pick"].lower()  # the server's description
    # selectAt's boxes: what they expect, the cursor's position filled in; the status bar's Ln 10, Col 9 typed in
    # selects `renamed` on line 10 (it was taken 0-based: line 11)
    assert (
        seen["selectAtLine"]["value"] == "10" and 'as "Ln" in the status bar (1-based' in seen["selectAtLine"]["prompt"]
    )
    assert seen["selectAtColumn"]["value"] == "9" and 'as "Col" in the status bar' in seen["selectAtColumn"]["prompt"]
    assert seen["selectAt"] == "Ln 10, Col 16 (7 selected)"
    # Next Sibling after the last class: nothing matched, the class stays selected and "1 cursor" stays
    assert "selectNextSibling: nothing matched" in seen["nothingMatched"] and "1 cursor" in seen["nothingMatched"]
    assert seen["nothingMatchedKept"] == {"selection": True, "cursor": True}
    assert seen["afterNothing"] == 6  # Previous Sibling went on from it: the first class (ending on line 6)
    # the playground panel: it follows the cursor, streams a run, keeps it, and restores the typed variable
    assert (seen["panelFirst"], seen["panelSecond"]) == ("TRANSLATE_PROMPT", "GREETING_PROMPT")
    assert seen["panelOutput"] == "".join(ANSWER)
    assert any(p != seen["panelOutput"] and "".join(ANSWER).startswith(p) for p in seen["panelPartials"])  # streamed
    assert seen["panelHistory"] == 1 and seen["panelHistoryAfterReopen"] == 2
    assert seen["panelRestored"] == "Un café ☕" and seen["panelTemperature"] == "0.3"  # saved with the prompt
    # a run's entry, and the comparison, say the temperature and max tokens it ran with
    assert "fake-chat · temperature 0.3 · max tokens 64" in seen["panelRunLine"], seen["panelRunLine"]
    assert seen["panelCompare"].count("temperature 0.3 · max tokens 64") == 2
    # back on the prompt, its last answer is in the output area (not only in the runs list), with how it ran
    assert seen["panelOutputAfterReopen"] == "".join(ANSWER) + "\n" + SECOND
    assert "fake-chat · temperature 0.3 · max tokens 64" in seen["panelStatusAfterReopen"]
    # moving to another prompt while an answer streams: none of it there, no Cancel, and it says which one runs
    other = seen["panelWhileOtherRuns"]
    assert "Une longue" not in (other["output"] or ""), other
    assert "TRANSLATE_PROMPT is running" in other["status"] and other["buttons"] == {"run": False, "cancel": False}
    # back on it: the answer goes on streaming there, with its Cancel, which stops it
    back = seen["panelBackWhileRunning"]
    assert back["growing"] and back["output"].startswith("Une longue réponse mot0"), back
    assert back["status"] == "Running…" and back["buttons"] == {"run": False, "cancel": True}, back
    assert seen["panelCancelled"] == "Cancelled."
    assert seen["panelBoxFits"] == "fits"  # a four-line value is not cut off
    # the model's parameters typed in the panel went to the model
    sent = chat_model.requests[0]
    assert (sent["model"], sent["temperature"], sent["max_tokens"]) == ("fake-chat", 0.3, 64), sent
    assert seen["panelCompare"].count("fake-chat") == 2 and seen["panelCompare"].count("".join(ANSWER)) == 2
    assert seen["panelCompare"].count(SECOND) == 1 and seen["panelCompareMarked"] == [SECOND]  # what differs
    assert seen["panelClickedCursor"] == "line 2"  # clicking GREETING_PROMPT in the list put the cursor there
    # no prompts in notes.py: the previous file's output and runs are gone
    assert "TRANSLATE_PROMPT" not in seen["panelNoPrompts"] and "Traduction" not in seen["panelNoPrompts"]
    assert "notes.py" in seen["panelNoPrompts"]
    # markers: added, listed in the view, moved by an edit above, gutter icon, opened from the CodeLens, hover
    assert "Why is the total rounded here?" in seen["markerView"] and "notes.py" in seen["markerView"]
    # the view in its own container (not squeezed under the Explorer); its tooltip: the whole note, dates readable
    assert seen["markerContainer"].upper().startswith("TETHER") and "EXPLORER" not in seen["markerContainer"].upper()
    assert NOTE in seen["markerTooltip"] and "question" in seen["markerTooltip"]
    assert re.search(
        r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M \((now|\d+ seconds? ago)\)", seen["markerTooltip"]
    )
    assert not re.search(r"\d{4}-\d\d-\d\dT", seen["markerTooltip"] + seen["markerView"])  # no raw ISO dates
    assert re.search(r"lines 1–4 · (now|\d+ seconds? ago)", seen["markerView"])
    assert seen["markerGutter"] >= 1
    assert seen["markerMoved"] == "lines 2–5"
    assert "question: Why is the total rounded here?" in seen["markerOpened"] and "(line 2)" in seen["markerOpened"]
    assert seen["markerSelection"] == 5  # the marked code selected: it ends on line 5 now
    assert "question" in seen["markerHover"] and "Edit" in seen["markerHover"]
    # the output channel: the server's records arrive on stderr and as window/logMessage; each is shown once
    from_stderr = re.findall(r"^\d{4}-\d\d-\d\d \S+ [A-Z]+ (tether_lsp\S*: .*)$", seen["outputChannel"], re.M)
    from_messages = re.findall(r"^\[\w+\s*- [^\]]*\] (tether_lsp\S*: .*)$", seen["outputChannel"], re.M)
    assert any("storage: sqlite" in m for m in from_messages + from_stderr), seen["outputChannel"][-2000:]
    assert not set(from_stderr) & set(from_messages), set(from_stderr) & set(from_messages)


#: Two methods separated by one blank line; the second is rewritten.
TWO_METHODS = "class Shapes:\n    def area(self):\n        return 1\n\n    def side(self):\n        return 2\n"
SIDE = "def side(self):\n        return 3"


def test_vscode_replacement_keeps_separators_and_the_class_body(tmp_path: Path, vsix: Path) -> None:
    """In VS Code, Tab accepting each time and the file saved: the rewrite of the last method from a line
    opened above it leaves one blank line between the methods, not two, and not the opened line's spaces; from the separator itself, the separator stays, empty; the model's `def` at column 0 on a line
    with no indentation in the class body is offered as the replacement of that method inside the class (the
    file parses); what fits at neither column is a warning, and nothing is offered."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "calc.py").write_text(SOURCE, encoding="utf-8")  # the session starts in it
    for name in ("opened.py", "separator.py", "noindent.py", "broken.py"):
        (workspace / name).write_text(TWO_METHODS, encoding="utf-8")
    out = tmp_path / "out.json"
    env = server_env(
        {
            "WORKSPACE": str(workspace),
            "VSIX": str(vsix),
            "E2E_CACHE": str(CACHE),
            "CODE_SERVER": str(CODE_SERVER),
            "SERVER_CMD": json.dumps([sys.executable, "-m", "tether_lsp"]),
            "OUT": str(out),
            "SHOT": str(SHOTS / "replacement.png"),
            "SCENARIO": "replacement",
            "SIDE": SIDE.replace("\n", "\\n"),
            "BROKEN": "else:\\n    pass",
        }
    )
    with RunningModel(Answer("def side(self):\n        return 3")) as model:  # its `def` at column 0
        # only the explicit trigger asks the model (delay -1): typing must not use up an answer
        env["TETHER_SETTINGS"] = json.dumps({"inference": {"endpoint": model.url("/api/generate"), "delay": -1}})
        seen = drive(env, out, 300)
    assert "error" not in seen, seen.get("error", "") + "\n" + seen.get("serverLog", "")
    rewritten = TWO_METHODS.replace("return 2", "return 3")
    assert seen["openedCursor"] == "Ln 5, Col 5"  # the opened line, its 4 spaces typed
    assert seen["opened"] == rewritten
    assert seen["separator"] == rewritten
    assert seen["noIndentCursor"] == "Ln 5, Col 1"  # what Ctrl+Shift+Enter gives on `    def side`: no indentation
    assert seen["noIndent"] == rewritten
    assert "completion not offered: it would end the enclosing block early" in seen["warning"]
    assert seen["ghost"] == 0
    # Tab put no completion in: the file is as the user left it (the new line, indented by Tab or not)
    assert seen["broken"].replace("\n    \n", "\n\n") == TWO_METHODS.replace("\n\n    def side", "\n\n\n    def side")
