"""The Neovim client's rough edges of issue 36, in real Neovim 0.7 and 0.11 against the real server: what reaches
lsp.log, a configuration written with vim.lsp.config, a file an agent edited while closed, the marker command's
confirmation, selectors with several arguments and the visual range, and the playground's output, variables and
marker authors."""

from __future__ import annotations

from pathlib import Path

from tests.e2e import test_editors_e2e as editors
from tests.e2e.test_editors_e2e import SOURCE
from tests.e2e.test_nvim_client_e2e import session
from tests.rawclient import RawServer

nvim = editors.nvim  # the fixture: every test here runs on Neovim 0.7 and 0.11


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
