"""Structural actions in the Neovim client (clients/nvim/lua/tether/actions.lua), in real Neovim 0.7 and 0.11
against the real server: each action typed as a command on a file with accents, CJK and emoji, the text after it,
one `u` giving the text back, what it produced selected, `.` repeating moveDown, a refusal said in one line, a
selection made before an edit not acted on, and a selector that finds nothing keeping the cursors. In tmux, what a
user sees."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.e2e import test_editors_e2e as editors
from tests.e2e.test_editors_e2e import ROOT
from tests.e2e.test_nvim_client_e2e import Terminal, session
from tests.helpers import server_env

nvim = editors.nvim  # the fixture: every test here runs on Neovim 0.7 and 0.11

PY = '''def prix(base, taux=0.2, devise="€"):
    """Le prix TTC — 税込."""
    total = base * (1 + taux)
    return total


def 取得(url, retries=3):
    return url


print(prix(1, "café"), 取得("東京"), "🎉")
'''
OTHER = "def other(x):\n    return x\n"
PRIX = PY[: PY.index("\n\n\n")]
FETCH = "def 取得(url, retries=3):\n    return url"


def test_each_action_is_one_undo_step_and_selects_what_it_produced(tmp_path: Path, nvim: str) -> None:
    files = {"café.py": PY, "other.py": OTHER}
    seen = session(tmp_path, nvim, "nvim_actions.lua", files, TETHER_OTHER=str(tmp_path / "ws" / "other.py"))
    assert seen["ready"] is True and seen["original"] == PY
    steps: dict[str, dict[str, object]] = seen["steps"]  # type: ignore[assignment]
    expected = {
        # the cursor on `retries`: the parameter goes with its comma; the cursor where it was (normal mode)
        "remove": (PY.replace("url, retries=3", "url"), None),
        # the first function (structural cursor): the copy after it, two blank lines between, the copy selected
        # the two parameters of 取得 as structural cursors, removed at once
        "removeBoth": (PY.replace("url, retries=3", ""), None),
        "clone": (PY.replace(PRIX, PRIX + "\n\n\n" + PRIX, 1), PRIX),
        "cloneBefore": (PY.replace('devise="€"', 'devise="€", devise="€"'), 'devise="€"'),
        # the mark on `prix(1, "café")`, the cursor in "🎉": exchanged
        "swapWithMark": (
            PY.replace('prix(1, "café"), 取得("東京"), "🎉"', '"🎉", 取得("東京"), prix(1, "café")'),
            '"🎉"',
        ),
        # the mark on 取得, the first function (structural cursor) moved after it
        "move": (FETCH + "\n\n\n" + PRIX + PY[PY.index("\n\n\nprint") :], PRIX),
        "bringBefore": (FETCH + "\n\n\n" + PY, FETCH),
        "wrapTry": (
            PY.replace(
                "    total = base * (1 + taux)\n",
                "    try:\n        total = base * (1 + taux)\n    except Exception:\n        raise\n",
            ),
            "Exception",  # the placeholder, to type over
        ),
        "wrapIf": (PY.replace("    total =", "    if base > 0:\n        total ="), "base > 0"),
    }
    for name, (after, selected) in expected.items():
        step = steps[name]
        assert step["after"] == after, name
        assert step["undone"] == PY, name  # one `u`
        assert step.get("selected") == selected, name
        assert step["mode"] == ("n" if selected is None else "v"), name
    assert steps["remove"]["cursor"] == [7, len("def 取得(url".encode())]
    # two structural cursors (url, retries=3) exchanged would put `url` after a default: one line, the text kept
    refused = seen["refused"]
    assert seen["twoCursors"] == 2 and refused == {
        "text": PY,
        "message": "Tether: swap refused: a parameter without a default cannot follow one with a default",
        "cursors": 2,
    }
    assert seen["moveUpFirst"] == {
        "text": PY,
        "message": "Tether: moveUp refused: the argument is already the first of its container",
    }
    assert seen["markShown"] == 1
    # <Plug>(TetherMoveDown) from a mapping, then <Esc> and `.`: each a step of its own
    down_once = PY.replace('prix(1, "café"), 取得("東京"), "🎉"', '取得("東京"), prix(1, "café"), "🎉"')
    down_twice = PY.replace('prix(1, "café"), 取得("東京"), "🎉"', '取得("東京"), "🎉", prix(1, "café")')
    dot = seen["dot"]
    assert dot["once"] == {"after": down_once, "selected": 'prix(1, "café")', "mode": "v"}  # type: ignore[index]
    assert (dot["twice"], dot["selected"]) == (down_twice, 'prix(1, "café")')  # type: ignore[index]
    assert dot["visualUp"] == {"text": down_once, "selected": 'prix(1, "café")'}  # type: ignore[index]
    assert (dot["undoneVisual"], dot["undoneOnce"], dot["undoneTwice"]) == (down_twice, down_once, PY)  # type: ignore[index]
    # insert: an empty indented line after the statement, insert mode there; what is typed is a step of its own
    empty_line = PY.replace("    total = base * (1 + taux)\n", "    total = base * (1 + taux)\n    \n")
    assert (seen["insertCursor"], seen["insertLine"]) == ([4, 4], "    ")
    assert seen["inserted"] == empty_line.replace("\n    \n", '\n    x = "ü"\n')
    assert (seen["insertTypedUndone"], seen["insertUndone"]) == (empty_line, PY)
    assert seen["insertedBefore"] == PY.replace("print(prix", 'print("ñ", prix')
    # wrap in a call: the placeholder selected, `c` types the name; unwrap gives the text back
    assert seen["callPlaceholder"] == "function"
    assert seen["called"] == PY.replace("return url", "return len(url)")
    assert seen["unwrapped"] == PY and seen["unwrapUndone"] == PY
    # moved into another buffer: its copy selected there, each buffer one undo step
    across = seen["across"]
    assert across["main"] == PY.replace(FETCH + "\n\n\n", "") and across["mainBeforeUndo"] == across["main"]  # type: ignore[index]
    assert across["other"] == OTHER + "\n\n" + FETCH + "\n"  # type: ignore[index]
    assert (across["buffer"], across["selected"]) == (True, FETCH)  # type: ignore[index]
    assert (across["otherUndone"], across["mainUndone"]) == (OTHER, PY)  # type: ignore[index]
    # structural cursors, then an edit: not acted on, let go, said
    assert seen["stale"] == {
        "message": "Tether: remove: the buffer changed since it was selected; select again",
        "text": "# ü\n" + PY,
        "cursors": 0,
    }
    assert seen["final"] == PY


def test_a_selector_that_finds_nothing_keeps_the_cursors(tmp_path: Path, nvim: str) -> None:
    """selectFunctions, then selectDecorators (there are none): the two functions stay the cursors, the current one
    selected again, and the message says so (the client used to end them)."""
    files = {"café.py": PY, "other.py": OTHER}
    seen = session(tmp_path, nvim, "nvim_actions.lua", files, TETHER_OTHER=str(tmp_path / "ws" / "other.py"))
    assert seen["nothing"] == {
        "cursors": 2,
        "message": "Tether: selectDecorators: nothing matched (the cursors stay)",
        "selected": PRIX,
    }


def escape(term: Terminal) -> None:
    """<Esc> on its own (a key sent right after it would read as Alt+key), until visual mode has ended."""
    term.keys("Escape")
    deadline = time.monotonic() + 10
    while "-- VISUAL --" in term.screen():
        assert time.monotonic() < deadline, "visual mode never ended"
        time.sleep(0.05)


def test_terminal_actions(tmp_path: Path, nvim: str) -> None:
    """What a user of terminal Neovim sees: the moved argument selected after <Plug>(TetherMoveDown) and `.`, the
    mark drawn, a refusal on one line (no ENTER prompt), the wrap's placeholder selected."""
    editors.need("tmux")
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "café.py").write_text(PY, encoding="utf-8")
    init = tmp_path / "init.lua"
    init.write_text(
        f"vim.opt.runtimepath:prepend({json.dumps(str(ROOT / 'clients' / 'nvim'))})\n"
        f"require('tether').setup({{ cmd = {{ {json.dumps(sys.executable)}, '-m', 'tether_lsp' }} }})\n"
        "vim.g.mapleader = ','\n"
        "vim.keymap.set('n', '<Leader>j', '<Plug>(TetherMoveDown)')\n",
        encoding="utf-8",
    )
    env = server_env({"HOME": str(tmp_path), "TERM": "xterm-256color"})
    term = Terminal(tmp_path, [nvim, "--clean", "-u", str(init), "café.py"], root, env)
    try:
        term.wait("🎉")
        term.keys(":TetherSelect selectFunctions", "Enter")
        term.wait("-- VISUAL --")
        escape(term)
        term.keys("G", "0", "f", "(", "l", ",", "j")  # on `prix(1, ...` in print(...): moveDown
        moved = term.wait('print(取得("東京"), prix(1, "café"), "🎉")')
        assert "-- VISUAL --" in moved
        escape(term)
        term.keys(".")
        twice = term.wait('print(取得("東京"), "🎉", prix(1, "café"))')
        assert "Press ENTER" not in twice
        escape(term)
        term.keys("g", "g", ":TetherMoveUp", "Enter")
        refused = term.wait("Tether: moveUp refused: the function is already the first of its container")
        assert "Press ENTER" not in refused
        term.keys(":TetherMark", "Enter")
        term.wait("◆ mark")
        term.keys("3", "G", ":TetherWrap try", "Enter")
        wrapped = term.wait("except Exception:")
        assert "-- VISUAL --" in wrapped
    finally:
        term.close(f"actions-{Path(nvim).parent.parent.name}")
