"""Structural actions in the Emacs client (clients/emacs/tether-actions.el), in real Emacs 28 through eglot and
through lsp-mode against the real server: each action run as its key runs it on a file with accents, CJK and emoji,
the text after it, one `undo` (the region still active) giving the text back, what it produced as the region, a
refusal said in one line, a buffer that changed after the answer left alone, and a selector that finds nothing
keeping the cursors. In `emacs -nw` (tmux), what a user sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_emacs_client_e2e import run_script
from tests.e2e.test_nvim_actions_e2e import FETCH, OTHER, PRIX, PY
from tests.helpers import commit_all, git

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
