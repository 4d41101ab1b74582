"""Structural actions in the Emacs client (clients/emacs/tether-actions.el), in real Emacs 28 through eglot and
through lsp-mode against the real server: each action run as its key runs it on a file with accents, CJK and emoji,
the text after it, one `undo` (the region still active) giving the text back, what it produced as the region, a
refusal said in one line, a buffer that changed after the answer left alone, and a selector that finds nothing
keeping the cursors. In `emacs -nw` (tmux), what a user sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_editors_e2e import need
from tests.e2e.test_emacs_client_e2e import Terminal, backgrounds, run_script, save_shots, tether_init
from tests.e2e.test_nvim_actions_e2e import FETCH, OTHER, PRIX, PY
from tests.helpers import commit_all, git, server_env

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "emacs"


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q")
    (root / "café.py").write_text(PY, encoding="utf-8")
    (root / "other.py").write_text(OTHER, encoding="utf-8")
    commit_all(root, "start")
    return root


@pytest.mark.parametrize("backend", ["eglot", "lsp-mode"])
def test_each_action_is_one_undo_step_and_selects_what_it_produced(tmp_path: Path, backend: str) -> None:
    root = workspace(tmp_path)
    seen = run_script(
        "emacs_actions.el", root, tmp_path, backend,
        TETHER_FILE=str(root / "café.py"), TETHER_OTHER=str(root / "other.py"),
    )  # fmt: skip
    assert seen["original"] == PY
    assert seen["keys"] == [
        "tether-remove", "tether-clone", "tether-swap", "tether-mark", "tether-move", "tether-bring",
        "tether-move-up", "tether-move-down", "tether-insert", "tether-wrap", "tether-unwrap",
    ]  # fmt: skip
    steps: dict[str, dict[str, Any]] = seen["steps"]
    expected = {
        # point on `retries`: the parameter goes with its comma; point where it was, no region
        "remove": (PY.replace("url, retries=3", "url"), None),
        # the first function (a structural cursor): the copy after it, two blank lines between, the copy the region
        "clone": (PY.replace(PRIX, PRIX + "\n\n\n" + PRIX, 1), PRIX),
        "cloneBefore": (PY.replace('devise="€"', 'devise="€", devise="€"'), 'devise="€"'),
        # the two parameters of 取得 as structural cursors, removed at once
        "removeBoth": (PY.replace("url, retries=3", ""), None),
        # the mark on `prix(1, "café")`, point in "🎉": exchanged
        "swapWithMark": (
            PY.replace('prix(1, "café"), 取得("東京"), "🎉"', '"🎉", 取得("東京"), prix(1, "café")'),
            '"🎉"',
        ),
        # the mark on 取得, the first function (a structural cursor) moved after it
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
        assert step["undone"] == PY, name  # one undo, with the region active
        assert step["selected"] == selected, name
    assert steps["remove"]["point"] == [7, len("def 取得(url")]
    assert seen["twoCursors"] == 2
    assert seen["refused"] == {
        "text": PY,
        "message": "Tether: swap refused: a parameter without a default cannot follow one with a default",
        "cursors": 2,
    }
    assert seen["markShown"] == [1, " ◆ mark"]
    assert seen["markMessage"] == (
        "Tether: marked 1 target: the place of C-c ; c v (move), C-c ; c b (bring), C-c ; c s (swap)"
    )
    assert seen["markAfterSwap"] == 0  # used up
    assert seen["moveUpFirst"] == {
        "text": PY,
        "message": "Tether: moveUp refused: the argument is already the first of its container",
    }
    down_once = PY.replace('prix(1, "café"), 取得("東京"), "🎉"', '取得("東京"), prix(1, "café"), "🎉"')
    down_twice = PY.replace('prix(1, "café"), 取得("東京"), "🎉"', '取得("東京"), "🎉", prix(1, "café")')
    moved = 'prix(1, "café")'
    assert seen["repeated"] == {
        "once": {"after": down_once, "selected": moved},
        "twice": {"after": down_twice, "selected": moved},  # the region, what the first produced, went on
        "up": {"after": down_once, "selected": moved},
        "undoneUp": down_twice,
        "undoneTwice": down_once,
        "undoneOnce": PY,
    }
    if backend == "lsp-mode":  # eglot's command is driven in the terminal test
        assert seen["codeActions"] == {"titles": ["Move down"], "after": down_once, "undone": PY}
    # insert: an empty indented line after the statement, point in it; what is typed is a step of its own
    empty_line = PY.replace("    total = base * (1 + taux)\n", "    total = base * (1 + taux)\n    \n")
    assert seen["insertPoint"] == [[4, 4], None, "    "]
    assert seen["inserted"] == empty_line.replace("\n    \n", '\n    x = "ü"\n')
    assert (seen["insertTypedUndone"], seen["insertUndone"]) == (empty_line, PY)
    assert seen["insertedBefore"] == PY.replace("print(prix", 'print("ñ", prix')
    # wrap in a call: the placeholder is the region, typed over; unwrap gives the text back
    assert seen["callPlaceholder"] == "function"
    assert seen["called"] == PY.replace("return url", "return len(url)")
    assert seen["unwrapped"] == PY and seen["unwrapUndone"] == PY
    # moved into another buffer: its copy the region there, each buffer one undo step
    across = seen["across"]
    assert across["main"] == PY.replace(FETCH + "\n\n\n", "") and across["mainBeforeUndo"] == across["main"]
    assert across["other"] == OTHER + "\n\n" + FETCH + "\n"
    assert (across["inOther"], across["selected"], across["mainRegion"]) == (True, FETCH, None)
    assert (across["otherUndone"], across["mainUndone"]) == (OTHER, PY)
    # the buffer changed after the server answered: nothing applied, said in one line
    assert seen["stale"] == {"message": "Tether: remove: café.py changed meanwhile; nothing was changed",
                             "text": "# ü\n" + PY}  # fmt: skip
    assert seen["nothing"] == {
        "cursors": 2,
        "message": "Tether: selectDecorators: nothing matched (the cursors stay)",
        "selected": PRIX,
    }
    assert seen["final"] == PY


def goto(term: Terminal, line: int, column: int = 0) -> None:
    """M-g g LINE, then C-f COLUMN times: point where a user puts it."""
    term.keys("M-g", "g")
    term.wait("Goto line:")
    term.keys(str(line), "Enter")
    term.wait(f" L{line} ")
    if column:
        term.keys(*["C-f"] * column)


def test_terminal_actions(tmp_path: Path) -> None:
    """In `emacs -nw` through eglot, with the keys a user presses: an argument moved down under C-c ; c n and
    shown as the region, C-/ giving the line back; the mark shown with its label, a swap with it; a refusal in the
    echo area; a wrap chosen at the prompt with its placeholder the region; a function selected and removed."""
    emacs, _ = need("emacs"), need("tmux")
    root = workspace(tmp_path)
    env = server_env({"HOME": str(tmp_path), "TERM": "xterm-256color"})
    term = Terminal(tmp_path, [emacs, "-nw", "-Q", "-l", str(tether_init(tmp_path)), "café.py"], root, env)
    call = 'print(prix(1, "café"), 取得("東京"), "🎉")'
    try:
        term.wait(" Tether")
        goto(term, 11, len("print("))
        term.keys("C-c", "\\;", "c", "n")
        moved = term.wait('print(取得("東京"), prix(1, "café"), "🎉")')
        colored = term.colored()
        term.shots.append(colored)
        row = moved.splitlines().index('print(取得("東京"), prix(1, "café"), "🎉")')
        assert backgrounds(colored)[row], colored  # the moved argument is the region
        term.keys("C-/")
        term.wait(call)
        # the mark on the first argument, then swapped with the emoji
        term.keys("C-c", "\\;", "c", "m")
        term.wait("Tether: marked 1 target: the place of C-c ; c v (move)")
        marked = term.wait(call + " ◆ mark")  # a capture can come between the echo area's and the line's drawing
        colored = term.colored()
        term.shots.append(colored)
        row = marked.splitlines().index(call + " ◆ mark")
        # the p of prix (where the mark is) and the label have the mark's background, and nothing else
        assert backgrounds(colored)[row] and "\x1b[49mrix(1, " in colored.split("\n")[row], colored
        goto(term, 11, len('print(prix(1, "café"), 取得("東京"), '))
        term.keys("C-c", "\\;", "c", "s")
        swapped = term.wait('print("🎉", 取得("東京"), prix(1, "café"))')
        assert "◆ mark" not in swapped
        term.keys("C-/")
        term.wait(call)
        # the first argument cannot move up: one line in the echo area, the text as it was
        goto(term, 11, len("print("))
        term.keys("C-c", "\\;", "c", "p")
        refused = term.wait("Tether: moveUp refused: the argument is already the first of its container")
        assert call in refused and "Debugger" not in refused
        # the server's code action at point, through eglot's own command: only Move down for the first argument
        term.keys("M-x")
        term.keys("eglot-code-actions", literal=True)
        term.keys("Enter")
        term.wait("Move down")
        term.keys("Enter")
        term.wait('print(取得("東京"), prix(1, "café"), "🎉")')
        term.keys("C-/")
        term.wait(call)
        # wrap in try, chosen at the prompt: the placeholder is the region
        goto(term, 3, 4)
        term.keys("C-c", "\\;", "c", "w")
        term.wait("Wrap in (try, with, if, call):")
        term.keys("try", "Enter")
        wrapped = term.wait("    except Exception:")
        colored = term.colored()
        term.shots.append(colored)
        lines = wrapped.splitlines()
        at = lines.index("    except Exception:")
        assert lines[at - 2 : at + 2] == ["    try:", "        total = base * (1 + taux)", "    except Exception:",
                                          "        raise"], wrapped  # fmt: skip
        assert backgrounds(colored)[at], colored  # "Exception", to type over
        term.keys("C-/")
        term.wait("    total = base * (1 + taux)\n    return total")
        # a selector, then the function it found removed with its blank lines
        term.keys("C-c", "\\;", "s")
        term.wait("Selectors (TAB completes):")
        term.keys("selectFunctions selectFirst", literal=True)
        term.keys("Enter")
        term.wait("Tether: 1 selected")
        term.keys("C-c", "\\;", "c", "k")
        removed = term.wait("Help\ndef 取得(url, retries=3):\n    return url\n\n\nprint(")  # the first line
        assert "def prix" not in removed
        term.keys("C-/")
        term.wait('Help\ndef prix(base, taux=0.2, devise="€"):')
    finally:
        save_shots(term, "actions")
        term.close()
