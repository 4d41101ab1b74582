"""The session log of an inline task (``session.md``) over stdio: the versions it names are the client's
numbers, also after the client gave one number to two versions."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.test_tasks_e2e import CALC, RESPONSE, UTIL, _ended, run_params, start, stop, tokens, user_data
from tests.fakemodel import Answer, RunningModel
from tests.helpers import raw_request


async def test_the_session_log_names_the_clients_version_after_a_reused_number(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text(UTIL, encoding="utf-8")
    with RunningModel(Answer(chunks=tokens(RESPONSE))) as model:
        lsp, ws = await start(tmp_path, model)
        try:
            calc = ws.open("calc.py", CALC)
            calc.version = 6
            calc.replace(0, 0, "# totals\n")  # version 7
            calc.version = 2
            calc.replace(0, len("# totals\n"), "")  # version 3: a number already used, the server's is 8
            result = await raw_request(lsp, "tether/tasks/run", run_params(calc))
            while not _ended(lsp):
                await asyncio.wait_for(lsp.wait_for_notification("$/progress"), 10)
        finally:
            await stop(lsp)
    assert [e["status"] for e in result["edits"]] == ["applied", "applied", "created"]
    (folder,) = (user_data(tmp_path) / "sessions").iterdir()
    log = (folder / "session.md").read_text(encoding="utf-8")
    assert "- `calc.py` (version 3)" in log, log
    assert "- `util.py` (from disk)" in log, log
    assert "version 8" not in log, log
