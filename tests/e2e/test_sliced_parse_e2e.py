"""A large document's tree is parsed in slices with the loop running between them, once per version for every
feature: over stdio, a request sent after ``tether/documentInfo`` on a 10,000-line file that was never parsed is
answered before it (the parse does not hold the loop), the tree is the one a fresh parse gives, and the version
is parsed once however many ask."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from benchmarks.corpus import python_file
from tests.helpers import capabilities, change_doc, open_doc, raw_request, server_config

BIG = python_file(10_000)


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()


def info(client: LanguageClient, uri: str, detail: bool = False) -> asyncio.Future[dict[str, Any]]:
    return asyncio.ensure_future(
        raw_request(client, "tether/documentInfo", {"textDocument": {"uri": uri}, "detail": detail})
    )


async def test_a_request_after_document_info_on_a_large_file_is_answered_before_its_parse_ends(
    client: LanguageClient,
) -> None:
    small, big = "file:///small.py", "file:///big.py"
    open_doc(client, small, "x = 1\n")
    assert (await info(client, small))["nodeCount"] > 0  # parsed: answering it again needs no parse
    open_doc(client, big, BIG)
    answered: list[str] = []
    first = info(client, big)
    second = info(client, small)
    first.add_done_callback(lambda _: answered.append("big"))
    second.add_done_callback(lambda _: answered.append("small"))
    big_info: dict[str, Any] = await first
    await second
    assert answered == ["small", "big"]
    assert big_info["parseCount"] == 1 and big_info["nodeCount"] > 50_000


async def test_the_sliced_parse_of_an_edited_version_is_the_fresh_tree_and_happens_once(
    client: LanguageClient,
) -> None:
    uri, fresh = "file:///big.py", "file:///fresh.py"
    open_doc(client, uri, BIG)
    assert (await info(client, uri))["parseCount"] == 1
    line = BIG.split("\n").index("class Service200:")
    change_doc(client, uri, 2, 'PROMPT = "Summarise {text}."\n', (line, 0), (line, 0))
    edited = BIG.split("\n")
    edited.insert(line, 'PROMPT = "Summarise {text}."')
    open_doc(client, fresh, "\n".join(edited))
    answers = await asyncio.gather(info(client, uri, True), info(client, uri, True), info(client, fresh, True))
    assert answers[0]["parseCount"] == answers[1]["parseCount"] == 2  # one parse of version 2 for both
    assert answers[0]["treeSha256"] == answers[2]["treeSha256"]
    assert answers[0]["textSha256"] == answers[2]["textSha256"]
