"""The Neovim client (clients/nvim) in real headless Neovim 0.7 and 0.11: positions in the encoding the client
negotiated, each marker's note drawn once, a selector continuing from the match `]s` moved to, the playground
float sized to its content, and `:help tether`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.e2e import test_editors_e2e as editors
from tests.e2e.test_editors_e2e import ROOT, SHAPES, SOURCE, run

nvim = editors.nvim  # the fixture: every test here runs on Neovim 0.7 and 0.11

SCRIPTS = ROOT / "tests" / "editors"
#: Accents, CJK and emoji (outside the BMP: two UTF-16 units, four UTF-8 bytes) before a second string.
NON_ASCII = 's = "café"; t = "naïve"\nk = "中文字"; v = "値"\ne = "☕🎉"; w = "🙂"\n'
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
    seen = session(tmp_path, nvim, "nvim_markers_once.lua", {"calc.py": SOURCE})
    assert seen["drawn"] is True and seen["settled"] is True
    assert seen["texts"] == ["  ? use sum()"]


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
    ]
