"""The selector descriptions the server sends (and the docs show) read as English, and docs/protocol.md's
tether/listSelectors example shows what the server really answers."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers import ROOT, capabilities, raw_request, server_config

#: "Every calls", "Every functions": a plural after "every" ("every class" is fine).
EVERY_PLURAL = re.compile(r"\b[Ee]very (?:\w+ )?\w+(?<![su])s\b")
#: "... function, class, for, while, try." - a list of three or more whose last item has no "and"/"or".
UNJOINED_LIST = re.compile(r"\b\w+, \w+(?: \([^)]*\))?, \w+(?: \([^)]*\))?[.;)]")


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()


def grammar_problems(description: str) -> list[str]:
    problems = []
    if not re.match(r"[A-Z]", description) or not description.endswith("."):
        problems.append("not a sentence (capital letter, final period)")
    if m := EVERY_PLURAL.search(description):
        problems.append(f"plural after every: {m.group(0)!r}")
    if m := UNJOINED_LIST.search(description):
        problems.append(f"list without and/or: {m.group(0)!r}")
    if m := re.search(r"\b(\w+) \1\b", description):
        problems.append(f"doubled word: {m.group(0)!r}")
    return problems


def test_the_checks_catch_the_descriptions_of_the_field_report() -> None:
    assert grammar_problems("Every functions and async functions, decorators included inside each cursor.")
    assert grammar_problems("Every classes inside each cursor (nested ones too).")
    assert grammar_problems("Every calls inside each cursor (nested ones too).")
    assert grammar_problems("Part: the body of each outermost function, class, for, while, with, try.")
    assert not grammar_problems("Every class inside each cursor.")
    assert not grammar_problems("All calls inside each cursor, nested ones too.")


async def test_every_description_the_server_sends_is_grammatical(client: LanguageClient) -> None:
    listed = await raw_request(client, "tether/listSelectors", {})
    problems = {s["name"]: p for s in listed["selectors"] if (p := grammar_problems(s["description"]))}
    assert problems == {}


def protocol_example() -> tuple[dict[str, Any], dict[str, Any]]:
    """The request and the response docs/protocol.md shows for tether/listSelectors."""
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", (ROOT / "docs/protocol.md").read_text(), re.S)]
    request = next(b for b in blocks if b.get("method") == "tether/listSelectors")
    response = next(b for b in blocks if b.get("id") == request["id"] and "result" in b)
    return request, response


async def test_the_protocol_docs_example_is_what_the_server_answers(client: LanguageClient) -> None:
    request, response = protocol_example()
    answer = await raw_request(client, request["method"], request["params"])
    sent = {s["name"]: s for s in answer["selectors"]}
    shown = response["result"]["selectors"]
    assert shown
    for selector in shown:
        assert selector == sent[selector["name"]]
    assert response["result"]["kinds"] == answer["kinds"]
