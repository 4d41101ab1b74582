"""The Neovim client's rough edges users met, in real Neovim 0.7 and 0.11 against the real server: what reaches
lsp.log, a configuration written with vim.lsp.config, a file an agent edited while closed, the marker command's
confirmation, selectors with several arguments and the visual range, and the playground's output, variables and
marker authors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e import test_editors_e2e as editors
from tests.e2e.test_editors_e2e import SOURCE
from tests.e2e.test_nvim_client_e2e import Terminal, session
from tests.e2e.test_tasks_e2e import UTIL
from tests.fakemodel import Answer, RunningModel
from tests.helpers import server_env
from tests.rawclient import RawServer

nvim = editors.nvim  # the fixture: every test here runs on Neovim 0.7 and 0.11, unless it says 0.11 only
#: A PATH without the venv's `tether-lsp`: the server starts only with the command the configuration gives.
BARE_PATH = "/usr/local/bin:/usr/bin:/bin"


def nvim_011() -> str:
    """Neovim 0.11 alone, for what 0.7 does not have (vim.lsp.config, vim.lsp.enable)."""
    if not editors.NVIM_011.exists():
        if os.environ.get("TETHER_REQUIRE_EDITORS") or os.environ.get("CI"):
            pytest.fail("Neovim 0.11 is not installed (scripts/ensure-nvim-0.11.sh installs it)")
        pytest.skip("run scripts/ensure-nvim-0.11.sh first")
    return str(editors.NVIM_011)


def test_a_stdio_servers_stderr_holds_only_errors() -> None:
    """Over stdio, without --log-level, the info lines go to the client (window/logMessage), not to stderr; asked
    for with --log-level info, stderr has them."""
    for args, expect_info in (((), False), (("--log-level", "info"), True)):
        server = RawServer(*args)
        server.initialize()
        server.request("shutdown")
        server.notify("exit")
        server.wait_closed()
        assert (b" INFO " in server.stderr) is expect_info, server.stderr.decode()
        assert (b"position encoding" in server.stderr) is expect_info


def test_lsp_log_holds_no_server_info_lines(tmp_path: Path, nvim: str) -> None:
    """A short session (markers, a selector, the playground) leaves no line of the server's stderr in Neovim's
    lsp.log, where each would read as an [ERROR]."""
    seen = session(tmp_path, nvim, "nvim_lsp_log.lua", {"calc.py": SOURCE})
    assert seen["ready"] is True and seen["stopped"] is True
    assert seen["stderr"] == [] and seen["errors"] == [], seen["log"]


def test_a_configuration_written_with_vim_lsp_config_is_kept(tmp_path: Path) -> None:
    """Neovim 0.11: `vim.lsp.config('tether', {cmd = …})`, `vim.lsp.enable('tether')`, then `setup()` for the
    commands: the server starts with the user's command (setup() used to replace it by `tether-lsp`, which is not
    on PATH here), with Tether's handlers, the markers read on attach, ]s mapped and :TetherSelect working."""
    nvim = nvim_011()
    seen = session(tmp_path, nvim, "nvim_own_config.lua", {"calc.py": SOURCE}, PATH=BARE_PATH)
    assert seen["onPath"] == 0 and seen["ready"] is True
    assert seen["cmd"] == [sys.executable, "-m", "tether_lsp"]
    assert seen["initOptions"] == {"tether": {"log": {"level": "warning"}}}
    assert seen["stateHandler"] is True and seen["markersListed"] is True and seen["bracketS"] is True
    assert seen["selected"] == 1


@pytest.mark.parametrize("form", ["setup", "vim.lsp.config"])
def test_a_server_that_cannot_start_is_said_on_screen(tmp_path: Path, nvim: str, form: str) -> None:
    """A `cmd` that is not an executable program, given to setup() or (0.11) to vim.lsp.config('tether'): the
    user reads why on the screen (0.11 wrote it only to lsp.log, 0.7 a message naming no setting)."""
    editors.need("tmux")
    if form == "vim.lsp.config" and not nvim.startswith(str(editors.ROOT)):
        pytest.skip("vim.lsp.config is Neovim 0.11+")
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "calc.py").write_text(SOURCE, encoding="utf-8")
    missing = "/opt/tether-lsp"  # not installed there
    client = json.dumps(str(editors.ROOT / "clients" / "nvim"))
    if form == "setup":
        config = f"require('tether').setup({{ cmd = {{ '{missing}' }} }})"
    else:
        config = f"vim.lsp.config('tether', {{ cmd = {{ '{missing}' }} }})\nvim.lsp.enable('tether')\nrequire('tether').setup()"
    init = tmp_path / "init.lua"
    init.write_text(f"vim.opt.runtimepath:prepend({client})\n{config}\n", encoding="utf-8")
    env = server_env({"HOME": str(tmp_path), "TERM": "xterm-256color"})
    term = Terminal(tmp_path, [nvim, "--clean", "-u", str(init), "calc.py"], root, env)
    try:
        shown = term.wait("Tether: cannot start the server")
        line = next(row for row in shown.splitlines() if "Tether:" in row)  # one line, no ENTER prompt
        assert line == f"Tether: cannot start the server: {missing} is not executable (:checkhealth tether)"
        assert "Press ENTER" not in shown
        term.keys(":checkhealth tether", "Enter")
        health = term.wait(f"server program not found: {missing}")
        assert ("vim.lsp.config" in health) is (form == "vim.lsp.config" or "0.11" in nvim)  # where to give it
    finally:
        term.close(f"cannot-start-{form}-{Path(nvim).parent.parent.name}")


def test_a_file_an_agent_edited_while_closed_leaves_no_buffer(tmp_path: Path, nvim: str) -> None:
    """Attached mode: an agent edits util.py, which the user does not have open. The change is on disk, the agent
    is told it was written, and util.py is not in :ls afterwards (nor an unlisted buffer): the buffer Neovim
    made to apply the edit is gone again."""
    root = editors.workspace(tmp_path)
    (root / "util.py").write_text(UTIL, encoding="utf-8")
    state, agent_out = tmp_path / "state", tmp_path / "agent.json"
    settings = {"mcp": {"http": {"enabled": True, "stateDir": str(state)}}}
    script = editors.ROOT / "tests" / "editors" / "nvim_agent_closed_file.lua"
    seen = editors.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {script}"],
        root,
        tmp_path / "out.json",
        "nvim",
        TETHER_SETTINGS=json.dumps(settings),
        TETHER_STATE=str(state),
        TETHER_AGENT=str(editors.ROOT / "tests" / "editors" / "mcp_agent.py"),
        TETHER_AGENT_OUT=str(agent_out),
        TETHER_CLOSED="util.py",
        TETHER_OLD="    return x * 2",
        TETHER_NEW="    return x + x",
    )
    assert "error" not in seen, seen.get("error")
    assert (seen["ready"], seen["endpoint"], seen["agentEdited"], seen["agentDone"]) == (True, True, True, True)
    agent_saw = json.loads(agent_out.read_text())
    assert agent_saw["edit"]["written"] is True, agent_saw["edit"]
    assert (root / "util.py").read_text() == UTIL.replace("    return x * 2", "    return x + x")
    assert seen["before"] == ["calc.py"] and seen["after"] == ["calc.py"]
    assert seen["afterAll"] == ["calc.py"] and seen["current"] == "calc.py", seen["lsBang"]


def terminal(tmp_path: Path, nvim: str, files: dict[str, str], setup: str, **env: str) -> Terminal:
    """Neovim in tmux on a fresh git workspace holding `files` (the first one opened), the client set up with
    `setup` (Lua: the table given to require('tether').setup, `cmd` filled in)."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    init = tmp_path / "init.lua"
    init.write_text(
        f"vim.opt.runtimepath:prepend({json.dumps(str(editors.ROOT / 'clients' / 'nvim'))})\n"
        f"local options = {setup}\n"
        f"options.cmd = {{ {json.dumps(sys.executable)}, '-m', 'tether_lsp' }}\n"
        "require('tether').setup(options)\n",
        encoding="utf-8",
    )
    environment = server_env({"HOME": str(tmp_path), "TERM": "xterm-256color", **env})
    return Terminal(tmp_path, [nvim, "--clean", "-u", str(init), next(iter(files))], root, environment)


def test_a_marker_added_is_confirmed_and_shows_its_author(tmp_path: Path, nvim: str) -> None:
    """:4,8TetherMarkerAdd says what it added (kind, lines, note) on the command line; the marker's author shows
    with its note at the end of the line and in :TetherMarkers' list."""
    editors.need("tmux")
    term = terminal(tmp_path, nvim, {"calc.py": SOURCE}, "{}", GIT_AUTHOR_NAME="Ada")
    try:
        term.wait("def total(items):")
        term.keys(":4,8TetherMarkerAdd question: use sum()", literal=True)
        term.keys("Enter")
        shown = term.wait("? Ada: use sum()")
        rows = shown.splitlines()
        assert rows[-1].strip() == "Tether: question marker added on lines 4-8: use sum()"  # the command line
        row = next(r for r in rows if "def total(items):" in r)
        assert row == "? def total(items):   ? Ada: use sum()"  # the sign, the line, the author and note
        term.keys(":TetherMarkers", "Enter")
        listed = term.wait("[question] Ada: use sum()")  # the location list's window
        assert "calc.py|4 col 1 info| [question] Ada: use sum()" in listed
    finally:
        term.close(f"marker-{Path(nvim).parent.parent.name}")


MENU = """class Menu:
    def price(self, item):
        return PRICES["café"] + self.tax(item)

    def tax(self, item):
        return round(0.2, 2)
"""


def test_selectors_with_arguments_and_the_visual_selection(tmp_path: Path, nvim: str) -> None:
    """`selectAt:LINE,COL` and `selectRange:L,C,L,C` typed with the ruler's numbers (after an accented character,
    so bytes and the negotiated encoding differ), and the visual selection as the chain's start: a line (V), part
    of a line (v), a chain on one line, a <Cmd> mapping in visual mode; a selection of the structural cursors
    continues from them; a wrong count says how to type the arguments."""
    line = MENU.splitlines()[2]
    column = line.encode().index(b".tax") + 1  # the ruler's column of the dot: bytes, from 1
    first, last = line.encode().index(b"PRICES") + 1, line.encode().index(b'"]') + 2  # the last character, included
    seen = session(
        tmp_path,
        nvim,
        "nvim_select_args.lua",
        {"menu.py": MENU},
        TETHER_AT=f"3,{column}",
        TETHER_RANGE=f"3,{first},3,{last}",
    )
    steps = seen["steps"]
    assert isinstance(steps, dict)
    assert steps["at"] == {"text": "self.tax", "count": 1, "typed": f"TetherSelect selectAt:3,{column}"}
    assert steps["range"]["text"] == 'PRICES["café"]'
    assert (steps["line"]["text"], steps["line"]["typed"]) == ("tax", "'<,'>TetherSelect selectName")
    assert (steps["part"]["text"], steps["part"]["count"]) == ("self", 3)  # self, tax, item of self.tax(item)
    # the call on that line alone (not round(0.2, 2) below too)
    assert (steps["chainOnLine"]["text"], steps["chainOnLine"]["count"]) == ("item", 1)
    assert steps["mapping"]["text"] == "price"
    assert (steps["fromCursors"]["text"], steps["fromCursors"]["typed"]) == ("tax", "'<,'>TetherSelect selectName")
    assert seen["badNotes"] == [
        "Tether: selectRange takes 4 arguments, got 1;"
        " type selectRange:startLine,startCharacter,endLine,endCharacter (the ruler's numbers)"
    ]


PROMPTS = (
    'GREETING_PROMPT = "Say hello to {name}."\n'
    'ORDER_PROMPT = f"Confirm the order {{order}} for {customer} in a {mood} tone."\n'
)


def test_the_playground_shows_each_prompts_own_output(tmp_path: Path, nvim: str) -> None:
    """A prompt run, then the cursor on another prompt's name (never run): its window shows no output of the
    first; `r` there says which variables have no value and to press e; another file's prompt shows none
    either; back on the first prompt its answer is there, and a later Neovim shows its last stored run."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "prompts.py").write_text(PROMPTS, encoding="utf-8")
    (root / "other.py").write_text('SUMMARY_PROMPT = "Summarise {text}."\n', encoding="utf-8")
    script = editors.ROOT / "tests" / "editors" / "nvim_playground_outputs.lua"
    command = [nvim, "--headless", "--clean", "-c", f"luafile {script}"]
    files = {"TETHER_FILE": str(root / "prompts.py"), "TETHER_OTHER": str(root / "other.py")}
    data = {"XDG_DATA_HOME": str(tmp_path / "data")}  # the runs' database, kept for the second Neovim
    with RunningModel(Answer(chunks=["Hello", ", Ada", "!"], chunk_delay=0.05)) as model:
        settings = json.dumps({"playground": {"endpoint": model.url("/v1"), "model": "fake-chat"}})
        seen = editors.run(command, root, tmp_path / "out.json", "nvim", TETHER_SETTINGS=settings, **files, **data)
        assert "error" not in seen, seen.get("error")
        again = editors.run(
            command, root, tmp_path / "again.json", "nvim", TETHER_SETTINGS=settings, TETHER_AGAIN="1", **files, **data
        )
    assert "error" not in again, again.get("error")
    assert seen["ready"] is True and seen["opened"] is True
    assert "Output:\nHello, Ada!" in str(seen["greetingRun"])
    order = str(seen["order"])
    assert seen["orderSelected"] is True, order  # the cursor on the constant's name selects it
    assert "Confirm the order {order} for {customer} in a {mood} tone." in order  # {{order}} as Python renders it
    assert "Hello" not in order and "Output" not in order and "Runs:" not in order
    order_run = str(seen["orderRun"])
    assert "Output:\n[no value for the variables customer, mood: press e to set them, then r to run]" in order_run
    assert "Hello" not in order_run
    other = str(seen["other"])
    assert seen["otherSelected"] is True and "Hello" not in other and "Output" not in other
    assert seen["greetingSelected"] is True and "Output:\nHello, Ada!" in str(seen["greetingAgain"])
    stored = str(again["stored"])
    assert "Output (last run, " in stored and "Hello, Ada!" in stored


def test_terminal_playground_outputs(tmp_path: Path, nvim: str) -> None:
    """What a user of terminal Neovim sees: a prompt run; CTRL-W p back to the code, `j0` to the next prompt's
    name: the float shows that prompt, `{order}` as Python renders it and no output; `r` there shows which
    variables to set and the key."""
    editors.need("tmux")
    with RunningModel(Answer(chunks=["Hello", ", Ada", "!"], chunk_delay=0.05)) as model:
        setup = f"{{ settings = {{ playground = {{ endpoint = '{model.url('/v1')}', model = 'fake-chat' }} }} }}"
        term = terminal(tmp_path, nvim, {"prompts.py": PROMPTS}, setup, XDG_DATA_HOME=str(tmp_path / "data"))
        try:
            term.wait("GREETING_PROMPT")
            term.keys("f{", ":TetherPlayground", "Enter")
            term.wait("GREETING_PROMPT  [cursor]")
            term.keys("e")
            term.wait("Variable")
            term.keys("1", "Enter")
            term.wait("name = ")
            term.keys("Ada", "Enter")
            term.wait("name = Ada")
            term.keys("r")
            term.wait("Runs:")
            term.keys("C-w", "p", "j", "0")
            moved = term.wait("ORDER_PROMPT  [cursor]")
            assert "Confirm the order {order} for {customer} in a {mood} tone." in moved
            assert "Hello, Ada!" not in moved and "Output" not in moved
            term.keys(":TetherPlayground", "Enter")
            term.wait("ORDER_PROMPT  [cursor]")
            term.keys("r")
            refused = term.wait("press e to set them")
            assert "[no value for the variables customer, mood: press e to set them, then r to run]" in refused
            assert "Hello, Ada!" not in refused
        finally:
            term.close(f"playground-{Path(nvim).parent.parent.name}")
