"""The markers section of ``tether-lsp demo``: notes that follow a buffer being edited, then a git repository
made in a temp dir (commit, a function moved to another file, a rename, a marker on uncommitted code)."""

from __future__ import annotations

import asyncio
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tether_lsp.server.demo import say
from tether_lsp.server.lspclient import raw_request

if TYPE_CHECKING:
    from pygls.lsp.client import LanguageClient

    from tether_lsp.server.demo import OpenFile

SOURCE = """import os


def load(path):
    with open(path) as f:
        return f.read()


def total(items):
    s = 0
    for i in items:
        s += i
    return s
"""


def _where(marker: dict[str, Any]) -> str:
    r = marker["range"]
    if r is None:
        return f"missing ({marker.get('missingReason')})"
    changed = ", code changed" if marker["contentChanged"] else ""
    return f"lines {r['start']['line'] + 1}-{r['end']['line'] + 1}{changed}"


async def _show(client: LanguageClient, uri: str, label: str) -> None:
    listed = await raw_request(client, "tether/markers/list", {"textDocument": {"uri": uri}})
    say(f"  {label}: " + "; ".join(f"“{m['note']}” {_where(m)}" for m in listed["markers"]))


def _change(
    client: LanguageClient, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str
) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(*start), end=types.Position(*end)), text=text
                )
            ],
        )
    )


async def section(client: LanguageClient, files: list[OpenFile]) -> None:
    say("== Markers (notes pinned to code blocks) ==")
    with tempfile.TemporaryDirectory(prefix="tether-demo-") as folder:
        path = Path(folder) / "calc.py"
        path.write_text(SOURCE, encoding="utf-8")
        uri = path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=SOURCE)
            )
        )
        for note, (start, end, end_char) in (("load() leaks nothing, good", (3, 5, 23)), ("use sum()", (8, 12, 12))):
            r = {"start": {"line": start, "character": 0}, "end": {"line": end, "character": end_char}}
            await raw_request(client, "tether/markers/create", {"textDocument": {"uri": uri}, "range": r, "note": note})
        await _show(client, uri, "created")
        _change(client, uri, 2, (1, 0), (1, 0), "import sys\nimport json\n")
        await _show(client, uri, "after inserting 2 lines above")
        _change(client, uri, 3, (12, 4), (12, 9), "t = 0")
        await _show(client, uri, "after editing inside total()")
        _change(client, uri, 4, (5, 0), (9, 0), "")
        await _show(client, uri, "after deleting load()")
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        listed = await raw_request(client, "tether/markers/list", {"textDocument": {"uri": uri}})
        for marker in listed["markers"]:
            await raw_request(client, "tether/markers/delete", {"id": marker["id"]})
    await git_section(client)
    say()


def _git(root: Path, *args: str) -> str:
    who = ["-c", "user.name=Demo User", "-c", "user.email=demo@example.org", "-c", "commit.gpgsign=false"]
    done = subprocess.run(["git", *who, *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


async def _list(client: LanguageClient, path: Path) -> list[dict[str, Any]]:
    result = await raw_request(client, "tether/markers/list", {"textDocument": {"uri": path.as_uri()}})
    return list(result["markers"])


class _HeadChanges:
    """What an editor does after a commit: list at once (the server answers at the new HEAD), and list again
    when ``tether/markers/didChange`` says the recalculation of every marker at the new HEAD is done."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.changed = asyncio.Event()
        client.feature("tether/markers/didChange")(lambda _params: self.changed.set())

    async def list(self, path: Path, ready: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
        """List until ``ready`` holds, again after each didChange (one may be for an earlier commit)."""
        async with asyncio.timeout(60):
            while True:
                self.changed.clear()
                markers = await _list(self.client, path)
                if ready(markers):
                    return markers
                await self.changed.wait()


def _line(root: Path, marker: dict[str, Any]) -> str:
    commit = (marker.get("commitHashWhenCreated") or "")[:8] or "no commit yet"
    where = Path(marker["uri"].removeprefix("file://")).relative_to(root)
    return f"“{marker['note']}” in {where}: {_where(marker)} (created at {commit})"


async def git_section(client: LanguageClient) -> None:
    say("  -- in a git repository (made in a temp dir) --")
    try:
        subprocess.run(["git", "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        say("  (git is not installed: skipped)")
        return
    changes = _HeadChanges(client)
    with tempfile.TemporaryDirectory(prefix="tether-demo-git-") as folder:
        root = Path(folder).resolve()
        _git(root, "init", "-q", "-b", "main")
        calc = root / "calc.py"
        calc.write_text(SOURCE, encoding="utf-8")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "calc")
        r = {"start": {"line": 8, "character": 0}, "end": {"line": 12, "character": 12}}
        await raw_request(
            client, "tether/markers/create", {"textDocument": {"uri": calc.as_uri()}, "range": r, "note": "use sum()"}
        )
        (m,) = await _list(client, calc)
        say(f"  created:                           {_line(root, m)}")
        calc.write_text('"""Small maths."""\n\n' + SOURCE, encoding="utf-8")
        _git(root, "commit", "-q", "-am", "docstring")
        (m,) = await _list(client, calc)
        say(f"  after a commit adding 2 lines:     {_line(root, m)}")
        total = SOURCE[SOURCE.index("def total") :]
        calc.write_text(
            '"""Small maths."""\n\n' + SOURCE[: SOURCE.index("def total")].rstrip() + "\n", encoding="utf-8"
        )
        helpers = root / "helpers.py"
        helpers.write_text("import math\n\n\n" + total, encoding="utf-8")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "move total() to helpers.py")
        (m,) = await changes.list(helpers, lambda found: len(found) == 1)
        say(f"  total() moved to helpers.py:       {_line(root, m)}")
        (root / "lib").mkdir()
        _git(root, "mv", "helpers.py", "lib/maths.py")
        _git(root, "commit", "-q", "-m", "rename")
        (m,) = await changes.list(root / "lib" / "maths.py", lambda found: len(found) == 1)
        say(f"  after git mv + commit:             {_line(root, m)}")
        calc.write_text(calc.read_text(encoding="utf-8") + "\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n", "utf-8")
        lines = calc.read_text(encoding="utf-8").splitlines()
        start = lines.index("def mean(xs):")
        r = {"start": {"line": start, "character": 0}, "end": {"line": start + 1, "character": 28}}
        params = {"textDocument": {"uri": calc.as_uri()}, "range": r, "note": "empty list?"}
        await raw_request(client, "tether/markers/create", params)
        (m,) = await _list(client, calc)
        say(f"  on uncommitted code:               {_line(root, m)}")
        _git(root, "commit", "-q", "-am", "mean")
        (m,) = await changes.list(calc, lambda found: bool(found and found[0]["commitHashWhenCreated"]))
        say(f"  after committing it (flushed):     {_line(root, m)}")
