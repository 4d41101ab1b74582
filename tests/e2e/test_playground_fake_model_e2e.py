"""``tether-lsp fake-model``, as docs/playground.md tells a user to try the playground without a model account:
the command is started, the settings it prints are given to a real server over stdio, and a prompt is run
against it (OpenAI-compatible and Ollama), then Ctrl+C stops it."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e.test_playground_e2e import start, stop
from tests.e2e.test_playground_run_e2e import PROMPTS, outputs, prompt_ids
from tests.helpers import raw_request, server_env

COMMAND = [sys.executable, "-m", "tether_lsp", "fake-model"]


async def started(*args: str) -> tuple[asyncio.subprocess.Process, str, dict[str, Any]]:
    """The command running, the URL it listens at and the settings it says to use."""
    proc = await asyncio.create_subprocess_exec(
        *COMMAND, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=server_env()
    )
    assert proc.stdout is not None
    first = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
    second = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
    assert first.startswith("Tether's fake model is listening at http://127.0.0.1:"), first
    prefix = "Point the playground at it with the settings "
    assert second.startswith(prefix), second
    return proc, first.split()[-1], json.loads(second[len(prefix) :])


async def test_the_fake_model_command_answers_playground_runs_until_ctrl_c(tmp_path: Path) -> None:
    proc, url, settings = await started("--port", "0")
    try:
        assert settings == {"tether": {"playground": {"endpoint": url, "model": "fake"}}}
        lsp, editor = await start(tmp_path, **settings)  # the settings exactly as printed
        seen = outputs(editor)
        try:
            editor.open("prompts.py", PROMPTS)
            pid = (await prompt_ids(editor))["translation_prompt().return"]
            params = {"promptId": pid, "variables": {"language": "French", "text": "Un café"}}
            result = await raw_request(lsp, "tether/playground/run", params)
            wanted = "(fake model) 1 message(s) received; the last one reads: «Translate into French, keeping"
            assert result["output"].startswith(wanted), result["output"]
            assert result["model"] == "fake" and result["finishReason"] == "stop"
            assert result["usage"]["completionTokens"] == len(result["output"].split(" "))
            assert len(seen) == result["usage"]["completionTokens"]  # streamed word by word
            ollama = {"tether": {"playground": {"endpoint": url.removesuffix("/v1") + "/api", "model": "fake"}}}
            lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=ollama))
            again = await raw_request(lsp, "tether/playground/run", params)
            assert again["output"] == result["output"] and again["usage"] == result["usage"]
            assert len(await raw_request(lsp, "tether/playground/runs", {"promptId": pid})) == 2
        finally:
            await stop(lsp)
    finally:
        proc.send_signal(signal.SIGINT)
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0
    assert proc.stderr is not None
    log = (await proc.stderr.read()).decode()
    assert "POST /v1/chat/completions: 1 message(s)" in log and "POST /api/chat: 1 message(s)" in log, log
    assert "Traceback" not in log


def finished(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=60, env=server_env())


async def test_a_busy_port_says_what_to_do_and_help_answers(tmp_path: Path) -> None:
    proc, url, _ = await started("--port", "0")
    try:
        port = url.rsplit(":", 1)[1].removesuffix("/v1")
        busy = await asyncio.to_thread(finished, "--port", port)
        assert busy.returncode == 1
        assert f"cannot listen on 127.0.0.1:{port}" in busy.stderr and "--port N" in busy.stderr
    finally:
        proc.terminate()  # SIGTERM stops it cleanly too
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    helped = await asyncio.to_thread(finished, "--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: tether-lsp fake-model")
    assert "default 8765" in helped.stdout
