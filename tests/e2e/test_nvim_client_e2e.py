"""The Neovim client (clients/nvim) in real headless Neovim 0.7 and 0.11: positions in the encoding the client
negotiated, each marker's note drawn once, a selector continuing from the match `]s` moved to, the playground
float sized to its content, and `:help tether`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.e2e import test_editors_e2e as editors
from tests.e2e.test_editors_e2e import ROOT, SHAPES, SOURCE, need, run
from tests.fakemodel import Answer, RunningModel
from tests.helpers import server_env

nvim = editors.nvim  # the fixture: every test here runs on Neovim 0.7 and 0.11

SCRIPTS = ROOT / "tests" / "editors"
#: Accents, CJK and emoji (outside the BMP: two UTF-16 units, four UTF-8 bytes) before a second string.
NON_ASCII = 's = "café"; t = "naïve"\nk = "中文字"; v = "値"\ne = "☕🎉"; w = "🙂"\n'
#: A prompt of one long line (it wraps in the playground's float).
LONG_PROMPT = (
    'SUMMARY_PROMPT = "Summarise the report for a reader in a hurry: keep the names, the numbers and the dates, drop the'
    ' adjectives, and answer in the language of the text, in at most three short sentences."\n'
)
TWO_PROMPTS = 'A_PROMPT = "☕☕☕☕☕☕ {a}"; B_PROMPT = "中文 {b}"\n'


def session(tmp_path: Path, nvim: str, script: str, files: dict[str, str], **extra: str) -> dict[str, object]:
    """Run tests/editors/{script} in headless Neovim on a fresh git workspace holding `files`."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    command = [nvim, "--headless", "--clean", "-c", f"luafile {SCRIPTS / script}"]
    first = root / next(iter(files))
    seen = run(command, root, tmp_path / "out.json", "nvim", TETHER_FILE=str(first), **extra)
    assert "error" not in seen, seen.get("error")
    return seen


def units(text: str, encoding: str) -> int:
    """The length of `text` in LSP characters of `encoding`."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def test_positions_in_the_negotiated_encoding(tmp_path: Path, nvim: str) -> None:
    """0.11 negotiates UTF-8, 0.7 UTF-16: the cursor, the ranges a selector highlights, an inserted text and a
    marker's range all land on the right character after accents, CJK and emoji; no deprecated call on 0.11."""
    files = {"enc.py": NON_ASCII, "prompts.py": TWO_PROMPTS}
    seen = session(tmp_path, nvim, "nvim_encoding.lua", files, TETHER_PROMPTS=str(tmp_path / "ws" / "prompts.py"))
    encoding = str(seen["encoding"])
    assert encoding == ("utf-16" if nvim.endswith("/usr/bin/nvim") else "utf-8")
    assert seen["highlighted"] == ['"café"', '"naïve"', '"中文字"', '"値"', '"☕🎉"', '"🙂"']
    assert seen["inserted"] == ['s = "café"; t = "naïve!!"', 'k = "中文字"; v = "値!!"', 'e = "☕🎉"; w = "🙂!!"']
    last = NON_ASCII.splitlines()[2]
    assert seen["marker"] == {
        "start": {"line": 1, "character": 0},
        "end": {"line": 2, "character": units(last, encoding)},
    }
    assert seen["prompt"] == "B_PROMPT"  # the cursor in the second prompt of the line
    assert seen["deprecated"] == []


def test_marker_note_drawn_once(tmp_path: Path, nvim: str) -> None:
    """A marker's note at the end of its first line once, even after a CodeLens refresh (the lens carries it too)."""
    seen = session(tmp_path, nvim, "nvim_markers_once.lua", {"calc.py": SOURCE}, GIT_AUTHOR_NAME="Ada")
    assert seen["drawn"] is True and seen["settled"] is True
    assert seen["texts"] == ["  ? Ada: use sum()"]


def test_select_continues_from_the_match_moved_to(tmp_path: Path, nvim: str) -> None:
    """selectMethods, `]s` to the second method, selectName: the name of that method, not of the first; `]s` /
    `[s` go on from there and wrap around."""
    seen = session(tmp_path, nvim, "nvim_select.lua", {"shapes.py": SHAPES})
    assert seen["steps"] == [
        "2:def area(self):",
        "5:def grow(self, k):",
        "5:grow",  # selectName after ]s: the method moved to
        "10:side",
        "5:grow",
        "2:area",
        "13:area",  # [s from the first wraps to the last
        "2:def area(self):",  # <Leader>sm, ]s, <Leader>sn (the suggested <Cmd> keymaps)
        "5:def grow(self, k):",
        "5:grow",
    ]


def test_playground_float_fits_its_content(tmp_path: Path, nvim: str) -> None:
    """The playground's float is as tall as its content (a long line wrapped), grows with a run's output up to the
    editor's height, stays inside the editor, and keeps the newest output in view as it streams."""
    answer = [f"line {k}\n" for k in range(1, 30)] + ["line 30"]
    with RunningModel(Answer(chunks=answer, chunk_delay=0.03)) as model:
        settings = {"playground": {"endpoint": model.url("/v1"), "model": "fake-chat"}}
        files = {"prompts.py": LONG_PROMPT}
        seen = session(tmp_path, nvim, "nvim_playground_float.lua", files, TETHER_SETTINGS=json.dumps(settings))
    opened, streaming, finished = (dict(seen[k]) for k in ("opened", "streaming", "finished"))  # type: ignore[call-overload]
    assert opened["wrap"] is True and opened["inside"] is True and opened["width"] <= 96
    assert (opened["first"], opened["last"]) == (1, opened["lines"])  # every line shown ...
    assert opened["height"] < 20  # ... in a window no taller than it
    assert streaming["first"] <= streaming["newest"] <= streaming["last"]  # the newest line in view
    assert finished["inside"] is True and finished["height"] >= 20  # grown to the editor's height
    assert finished["last"] == finished["lines"] and finished["lines"] > finished["height"]  # scrolled to the end
    assert str(seen["last"]).startswith("e set a variable") or "Runs:" in str(seen)


class Terminal:
    """Neovim in a terminal (tmux, 140x40, a socket of its own in the test's folder); `screen` is what a user sees."""

    def __init__(self, tmp_path: Path, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.base = ["tmux", "-S", str(tmp_path / "tmux.sock")]
        subprocess.run([*self.base, "-f", "/dev/null", "new-session", "-d", "-x", "140", "-y", "40", "-c", str(cwd),
                        *command], check=True, env=env)  # fmt: skip
        self.shots: list[str] = []

    def screen(self) -> str:
        return subprocess.run([*self.base, "capture-pane", "-p"], capture_output=True, text=True, check=True).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run([*self.base, "send-keys", *(["-l"] if literal else []), *keys], check=True)

    def wait(self, test: str, seconds: float = 20) -> str:
        """The screen once `test` is on it (kept for the captures)."""
        deadline = time.monotonic() + seconds
        while True:
            shown = self.screen()
            if test in shown:
                self.shots.append(shown)
                return shown
            assert time.monotonic() < deadline, f"{test!r} never showed:\n{shown}"
            time.sleep(0.05)

    def close(self, name: str) -> None:
        captures = os.environ.get("TETHER_NVIM_CAPTURES")  # a folder to keep what the user saw, for a look
        if captures:
            Path(captures).mkdir(parents=True, exist_ok=True)
            for i, shot in enumerate(self.shots):
                (Path(captures) / f"{name}-{i}.txt").write_text(shot, encoding="utf-8")
        subprocess.run([*self.base, "kill-server"], check=False, capture_output=True)


def test_terminal_neovim(tmp_path: Path, nvim: str) -> None:
    """What a user of terminal Neovim sees: a marker's note once at the end of its line; the playground's float
    with a long prompt wrapped, growing with a run's output inside the editor, scrolled to the newest line."""
    need("tmux")
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "prompts.py").write_text('TITLE = "Weekly report"\n' + LONG_PROMPT, encoding="utf-8")
    answer = [f"answer line {k}\n" for k in range(1, 45)] + ["answer line 45 (the end)"]
    with RunningModel(Answer(chunks=answer, chunk_delay=0.02)) as model:
        settings = {"playground": {"endpoint": model.url("/v1"), "model": "fake-chat"}}
        init = tmp_path / "init.lua"
        init.write_text(
            f"vim.opt.runtimepath:prepend({json.dumps(str(ROOT / 'clients' / 'nvim'))})\n"
            f"require('tether').setup({{ cmd = {{ {json.dumps(sys.executable)}, '-m', 'tether_lsp' }},"
            f" settings = vim.fn.json_decode({json.dumps(json.dumps(settings))}) }})\n",
            encoding="utf-8",
        )
        env = server_env({"HOME": str(tmp_path), "TERM": "xterm-256color", "GIT_AUTHOR_NAME": "Ada"})
        term = Terminal(tmp_path, [nvim, "--clean", "-u", str(init), "prompts.py"], root, env)
        try:
            term.wait("SUMMARY_PROMPT")
            term.keys(":1TetherMarkerAdd question: too long?", literal=True)
            term.keys("Enter")
            marked = term.wait("? Ada: too long?")
            first = marked.splitlines()[0]
            assert first.startswith('? TITLE = "Weekly report"') and first.endswith("? Ada: too long?")
            assert first.count("too long?") == 1
            term.keys("j", "f", "h", ":TetherPlayground", "Enter")
            opened = term.wait("SUMMARY_PROMPT  [cursor]")
            assert "@@@" not in opened
            term.keys("r")
            ran = term.wait("answer line 45 (the end)")
            assert "@@@" not in ran
            finished = term.wait("Runs:")
            rows = finished.splitlines()
            top = next(i for i, row in enumerate(rows) if "╭" in row)
            bottom = next(i for i, row in enumerate(rows) if "╰" in row)
            assert (top, bottom) == (1, 37)  # grown to the editor's height, above the status and command lines
            assert "answer line 45 (the end)" in finished  # scrolled to the end of the output
        finally:
            term.close(f"nvim-{Path(nvim).parent.parent.name}")


def test_help(tmp_path: Path, nvim: str) -> None:
    """`:help tether` works after setup() (a copy of the client without tags: setup() writes them), every :Tether
    command has its help tag, and the suggested keymaps run as the help file gives them."""
    client = tmp_path / "client"
    shutil.copytree(ROOT / "clients" / "nvim", client, ignore=shutil.ignore_patterns("tags"))
    seen = session(tmp_path, nvim, "nvim_help.lua", {"calc.py": SOURCE}, TETHER_NVIM=str(client))
    assert (client / "doc" / "tags").exists()
    assert seen["tether"] == "tether.txt" and seen["keymapsTag"] == "tether.txt"
    assert seen["untagged"] == [] and seen["checked"] == 21  # every :Tether command
    assert seen["keymapsRun"] is True and seen["mapped"] == ":TetherSelect "


#: Two methods separated by one blank line; the model rewrites the second.
TWO_METHODS = "class Shapes:\n    def area(self):\n        return 1\n\n    def side(self):\n        return 2\n"


def test_replacement_keeps_separators_and_the_class_body(tmp_path: Path, nvim: str) -> None:
    """In Neovim, <Tab> accepting the server's inline completion: from a line opened above the last method
    (`O`), one blank line stays between the methods, not two, and not the opened line's spaces; from the separator
    with spaces typed on it, the separator stays, empty; from a line with no indentation in the class body, the
    model's `def` at column 0 replaces the method inside the class; what fits at neither column is not offered,
    the user is told, and :TetherPreview of it warns and writes nothing."""
    side = "def side(self):\n        return 3"
    answers = [Answer(side), Answer(side), Answer(side), Answer("else:\n    pass")]
    files = {name: TWO_METHODS for name in ("opened.py", "separator.py", "noindent.py", "broken.py")}
    with RunningModel(*answers) as model:
        settings = {"inference": {"endpoint": model.url("/api/generate")}}
        seen = session(
            tmp_path, nvim, "nvim_replacement.lua", files,
            TETHER_SETTINGS=json.dumps(settings), TETHER_BROKEN="else:\\n    pass",
        )  # fmt: skip
    rewritten = TWO_METHODS.replace("return 2", "return 3")
    assert (seen["openedLine"], seen["openedPending"], seen["opened"]) == ("    ", True, rewritten)
    assert (seen["separatorPending"], seen["separator"]) == (True, rewritten)
    assert (seen["noIndentLine"], seen["noIndentPending"], seen["noIndent"]) == ("", True, rewritten)
    assert (seen["brokenLine"], seen["brokenPending"]) == ("", False)
    assert seen["broken"] == TWO_METHODS.replace("\n\n    def side", "\n\n\n    def side")  # nothing written
    told, previewed = (str(w) for w in seen["warnings"])  # type: ignore[attr-defined]
    assert told.startswith("Tether: completion on line 5 not offered: it would end the enclosing block early")
    assert previewed.startswith("Tether: completion not offered: it would end the enclosing block early")
