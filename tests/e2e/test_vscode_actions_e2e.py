"""Structural actions in real VS Code (code-server in headless Chromium, clients/vscode/e2e/actions.mjs): a
function picked with a Tether selector and removed, one Ctrl+Z back to the exact text; Move Down from the palette
and from its keys, with what moved selected; a refusal as one warning; the lightbulb's Move up / Move down; the
mark's label, a move after it undone in one step; a wrap's placeholder typed over; an insert's empty spot typed in.
Screenshots of each step land in .cache/screenshots/vscode-actions/."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.e2e.test_vscode_e2e import CACHE, CODE_SERVER, ROOT, drive, vsix
from tests.helpers import server_env

__all__ = ["vsix"]  # the fixture that builds and packages the extension

SHOTS = ROOT / ".cache" / "screenshots" / "vscode-actions"  # ignored by git: look at them after a run
PRIX = 'def prix(base, taux=0.2):\n    """Le prix TTC — 税込."""\n    return base * (1 + taux)\n'
GET = "def 取得(url):\n    return url\n"
EMOJI = 'def emoji(a):\n    return "🎉" + a\n'
CALC = "total = 0\n"


def module(*functions: str) -> str:
    """Top-level functions two blank lines apart."""
    return "\n\n".join(functions)


def test_vscode_structural_actions(tmp_path: Path, vsix: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    source = module(PRIX, GET, EMOJI)
    (workspace / "prix.py").write_text(source, encoding="utf-8")
    (workspace / "calc.py").write_text(CALC, encoding="utf-8")  # the session starts in it
    shutil.rmtree(SHOTS, ignore_errors=True)
    SHOTS.mkdir(parents=True)
    out = tmp_path / "out.json"
    env = server_env(
        {
            "WORKSPACE": str(workspace),
            "VSIX": str(vsix),
            "E2E_CACHE": str(CACHE),
            "CODE_SERVER": str(CODE_SERVER),
            "SERVER_CMD": json.dumps([sys.executable, "-m", "tether_lsp"]),
            "OUT": str(out),
            "SHOT": str(SHOTS / "actions.png"),
            "SCENARIO": "actions",
            "ACTIONS_FILE": "prix.py",
        }
    )
    seen = drive(env, out, 600)
    assert "error" not in seen, seen.get("error", "") + "\n" + seen.get("serverLog", "")
    # selectFunctions, selectNth 1: 取得; removed with its blank lines, the cursor where it was, the cursors gone
    assert "1 cursor" in seen["selected"]
    assert seen["removed"] == module(PRIX, EMOJI)
    assert seen["removedCursor"] == "Ln 4, Col 1" and seen["cursorsAfterRemove"] == "gone"  # where its lines began
    assert seen["undone"] == source  # one Ctrl+Z: exactly the text before
    # Move Down from the palette: prix goes below 取得 and is selected there (82 characters, ending on line 7)
    assert seen["movedDown"] == module(GET, PRIX, EMOJI)
    assert seen["movedDownSelected"] == len(PRIX) - 1 and seen["movedDownLine"] == 7
    assert seen["movedDownByKeys"] == module(GET, EMOJI, PRIX)  # Ctrl+Alt+A Down on what the last one selected
    # the last function cannot go down: one warning without the field, the text unchanged
    assert "Tether: moveDown refused: the function is already the last of its container" in seen["refusal"]
    assert "targets[0]" not in seen["refusal"] and "Error" not in seen["refusal"]
    assert seen["dirtyAfterRefusal"] == 0 and seen["afterRefusal"] == module(GET, EMOJI, PRIX)
    # the lightbulb (VS Code's own, from textDocument/codeAction) offers both moves; Move up applied
    assert seen["lightbulb"] == "shown"
    assert "Move up" in seen["codeActions"] and "Move down" in seen["codeActions"]
    assert seen["movedUpByCodeAction"] == module(EMOJI, GET, PRIX)
    # the mark: its label after the marked function's first line; prix moved after it; the mark used up
    assert seen["markLabel"] and "def emoji(a):" in seen["markLabel"]["line"].replace("\xa0", " "), seen["markLabel"]
    assert seen["movedAfterMark"] == module(EMOJI, PRIX, GET)
    assert seen["markAfterMove"] is False
    assert seen["moveUndone"] == module(EMOJI, GET, PRIX)  # one Ctrl+Z
    # wrap: the four wrappers offered; try's placeholder selected and typed over
    wrappers = ["try", "with", "if", "call"]
    assert len(seen["wrappers"]) == 4 and all(map(str.startswith, seen["wrappers"], wrappers)), seen["wrappers"]
    assert seen["wrapSelected"] == len("Exception")
    wrapped_get = "def 取得(url):\n    try:\n        return url\n    except ValueError:\n        raise\n"
    assert seen["wrapped"] == module(EMOJI, wrapped_get, PRIX)
    # insert after `base`: the cursor in the new spot (its comma made), typed in
    assert seen["insertCursor"] == "Ln 12, Col 16"
    inserted_prix = PRIX.replace("(base, ", "(base, marge, ")
    assert seen["inserted"] == module(EMOJI, wrapped_get, inserted_prix)
    # calc.py's statement marked, emoji moved after it: calc.py shown with it selected; both files changed; one
    # Ctrl+Z in calc.py takes back calc.py's part only
    assert seen["crossActive"] == "calc.py" and seen["crossSelected"] == len(EMOJI) - 1  # the status bar counts 🎉 once
    assert seen["crossMoved"] == [module(wrapped_get, inserted_prix), module(CALC, EMOJI)]
    assert seen["crossUndone"] == [module(wrapped_get, inserted_prix), CALC]
