"""A session's first ``tether/markers/list``, over stdio: answered from the locations stored at HEAD without
waiting for the database layer (SQLAlchemy, the schema check, the start-up work of the other features), and
corrected by ``tether/markers/didChange`` when the full answer, which follows in the background, differs; a
file whose text is not HEAD's is answered by the full path.

The markers are made by a first server, as an editor makes them; the session under test is a second server on
the same clone. Holding SQLite's write lock from the test keeps that server's database from opening (its schema
check takes the write lock) while readers still read: what the first list needs must not wait for it."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.helpers import capabilities, git, open_doc, raw_request, server_config
from tether_lsp.handlers.markers import first_list, tables

SOURCE = """import os


def total(items):
    s = 0
    for i in items:
        s += i
    return s


def mean(items):
    return total(items) / len(items)
"""
WAIT = 30  # seconds: a bound on waiting, never a pause


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "calc.py").write_text(SOURCE, encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "calc")
    return tmp_path


@asynccontextmanager
async def server(repo: Path) -> AsyncIterator[Any]:
    lsp: Any = await server_config().start()
    try:
        await lsp.initialize_session(types.InitializeParams(capabilities=capabilities(), root_uri=repo.as_uri()))
        yield lsp
    finally:
        await lsp.shutdown_session()
        await lsp.stop()


async def listed(lsp: Any, uri: str) -> list[dict[str, Any]]:
    answer = await asyncio.wait_for(raw_request(lsp, "tether/markers/list", {"textDocument": {"uri": uri}}), WAIT)
    return list(answer["markers"])


def rng(line: int, end_line: int, end_character: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": 0}, "end": {"line": end_line, "character": end_character}}


async def made_by_a_first_server(repo: Path, uri: str) -> list[dict[str, Any]]:
    """Two markers on committed code, made through a server, and the list that server gives."""
    async with server(repo) as first:
        for where, note in ((rng(3, 7, 12), "sum"), (rng(10, 11, 36), "average")):
            params = {"textDocument": {"uri": uri}, "range": where, "note": note}
            await asyncio.wait_for(raw_request(first, "tether/markers/create", params), WAIT)
        return await listed(first, uri)


def drawn(markers: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(m["id"], m["range"], m["note"], m["kind"], m["author"], m["status"], m["contentChanged"]) for m in markers]


def changed(lsp: Any, uri: str) -> asyncio.Task[Any]:
    """The next ``tether/markers/didChange`` naming ``uri`` (asked for before what sends it)."""

    async def wait() -> Any:
        while True:
            params = await lsp.wait_for_notification("tether/markers/didChange")
            if uri in (params["uris"] if isinstance(params, dict) else params.uris):
                return params

    return asyncio.ensure_future(asyncio.wait_for(wait(), WAIT))


async def test_the_first_list_does_not_wait_for_the_database_and_a_later_change_follows(repo: Path) -> None:
    uri = (repo / "calc.py").as_uri()
    before = await made_by_a_first_server(repo, uri)
    assert [m["note"] for m in before] == ["sum", "average"]
    writer = sqlite3.connect(repo / ".git" / "tether" / "tether.db", isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # another process writing: the server's database cannot open
        async with server(repo) as lsp:
            open_doc(lsp, uri, SOURCE)
            assert drawn(await listed(lsp, uri)) == drawn(before)  # the old code: an error, the database locked

            follows = changed(lsp, uri)
            writer.execute("UPDATE tether_markers SET note = 'the sum' WHERE id = ?", (before[0]["id"],))
            writer.execute("COMMIT")  # the database opens; the full answer has the new note
            await follows
            assert [m["note"] for m in await listed(lsp, uri)] == ["the sum", "average"]
    finally:
        writer.close()


async def test_an_edited_buffer_is_answered_where_its_code_is_now(repo: Path) -> None:
    uri = (repo / "calc.py").as_uri()
    before = await made_by_a_first_server(repo, uri)
    async with server(repo) as lsp:
        open_doc(lsp, uri, "# a header\n# of two lines\n" + SOURCE)  # not HEAD's text: no stored location holds
        now = await listed(lsp, uri)
    assert [m["id"] for m in now] == [m["id"] for m in before]
    assert [m["range"] for m in now] == [rng(5, 9, 12), rng(12, 13, 36)]


def test_the_quick_reader_knows_the_schema_and_the_calculator_version_the_stores_write() -> None:
    assert len(tables.MIGRATIONS) == first_list.SCHEMA_VERSION
    assert first_list.ALGORITHM_VERSION == tables.ALGORITHM_VERSION
