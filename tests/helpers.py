"""Shared test helpers: start the real server over stdio, open documents, send raw requests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.client import JsonRPCClient
from pygls.protocol.json_rpc import JsonRPCNotification
from pytest_lsp import ClientServerConfig, LanguageClient

from tether_lsp.server.lspclient import plain, raw_request

__all__ = ["plain", "raw_notify", "raw_request"]

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def raw_notify(client: JsonRPCClient, method: str, params: Any) -> None:
    """Send a notification as given (no structuring: malformed params reach the server as they are)."""
    client.protocol._send_data(JsonRPCNotification(method=method, params=params, jsonrpc="2.0"))


def free_port() -> int:
    """A TCP port nobody listens on right now (on 127.0.0.1)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(extra: dict[str, str] | None = None, tmp_home: Path | None = None) -> dict[str, str]:
    """Environment for a server under test: isolated data dir, no user git config."""
    env = dict(os.environ)
    home = tmp_home or Path(os.environ.get("TETHER_TEST_HOME", "/tmp/tether-test-home"))
    env.update(
        {
            "XDG_DATA_HOME": str(home / "data"),
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_CONFIG_NOSYSTEM": "1",
            "PYTHONUNBUFFERED": "1",
            "TETHER_ASSERT_OFF_LOOP": "1",  # git, database and file work on the event loop fails the request
        }
    )
    env.update(extra or {})
    return env


def server_config(**env: str) -> ClientServerConfig:
    return ClientServerConfig(server_command=[sys.executable, "-m", "tether_lsp"], server_env=server_env(env))


def capabilities(encodings: list[str] | None = None, configuration: bool = False) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=encodings) if encodings else None,
        workspace=types.WorkspaceClientCapabilities(
            configuration=configuration,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(dynamic_registration=False),
        ),
    )


def open_doc(client: LanguageClient, uri: str, text: str, language_id: str = "python", version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=version, text=text)
        )
    )


def change_doc(
    client: LanguageClient,
    uri: str,
    version: int,
    text: str,
    start: tuple[int, int] | None = None,
    end: tuple[int, int] | None = None,
) -> None:
    change: Any
    if start is None:
        change = types.TextDocumentContentChangeWholeDocument(text=text)
    else:
        end = end or start
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(*start), end=types.Position(*end)), text=text
        )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]
        )
    )


def wait_until_serving(proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """Read the server's stderr until it logs that it listens ("serving on …"), then keep draining it in a
    thread (a full pipe would block the server). The server's own word, not connection attempts in a loop."""
    assert proc.stderr is not None
    stderr = proc.stderr
    found = threading.Event()

    def read() -> None:
        for line in stderr:
            if b"serving on" in line:
                found.set()
        found.set()  # the server exited: the wait below ends and the caller's connect fails loudly

    threading.Thread(target=read, daemon=True).start()
    if not found.wait(timeout) or proc.poll() is not None:
        raise AssertionError(f"the server did not start listening (exit code {proc.poll()})")


def git(repo: Path, *args: str) -> str:
    """git in a test repository, with a fixed identity and none of the machine's configuration."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(repo),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
    }
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout


def commit_all(repo: Path, message: str) -> str:
    """Commit everything in the working tree; the new HEAD."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def git_move(repo: Path, old: str, new: str) -> None:
    """``git mv``, making the new folder first."""
    (repo / new).parent.mkdir(parents=True, exist_ok=True)
    git(repo, "mv", old, new)


#: The agents' front's tools in the order ``tools/list`` gives them (the tests that list them compare to this).
TOOL_NAMES = [
    "outline",
    "select",
    "read",
    "edit",
    "act",
    "notes",
    "note_add",
    "note_update",
    "note_delete",
    "prompts",
    "run_prompt",
]
