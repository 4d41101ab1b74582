"""Deep documents against every request that walks a tree or a value, before and after edits deep inside them:
no answer is an internal error, and the log says nothing of one."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakemodel import Answer, RunningModel
from tests.helpers import server_env
from tests.rawclient import RawServer

DEPTH = 20_000


def nested(opening: str, inner: str, closing: str, depth: int = DEPTH) -> str:
    return opening * depth + inner + closing * depth


#: name -> (language, text, the innermost token's (line, character), what replaces it in the edit)
DEEP = {
    "python-parentheses": ("python", "x = " + nested("(", "1", ")") + "\n", (0, 4 + DEPTH), "2"),
    "python-prompt-concatenation": (
        "python",
        "PROMPT = " + " + ".join(['"tell the user hello"'] * 5_000) + "\n",  # a 110 KB line: markers compare it whole
        (0, 10),
        "say",
    ),
    "python-prompt-parentheses": (
        "python",
        "SYSTEM_PROMPT = " + nested("(", '"tell the user hello"', ")") + "\n",
        (0, 17 + DEPTH),
        "greet",
    ),
    "python-prompt-dedent": (
        "python",
        "PROMPT = " + nested("dedent(", '"tell the user hello"', ")", 5_000) + "\n",
        (0, 10 + 7 * 5_000),
        "greet",
    ),
    "python-prompt-dict": (
        "python",
        "PROMPT = " + nested('{"prompt": ', '"tell the user hello"', "}", 5_000) + "\n",
        (0, 10 + 11 * 5_000),
        "greet",
    ),
    "python-prompt-list": (
        "python",
        "PROMPT = " + nested("[", '"tell the user hello"', "]") + "\n",
        (0, 10 + DEPTH),
        "greet",
    ),
    "yaml-flow-sequences": ("yaml", "prompt: " + nested("[", "tell the user hello", "]") + "\n", (0, 8 + DEPTH), "say"),
    "yaml-flow-mappings": (
        "yaml",
        "prompt: " + nested("{prompt: ", "tell the user hello", "}", 5_000) + "\n",
        (0, 8 + 9 * 5_000),
        "say",
    ),
}


class Session:
    """Requests with ids of their own; every ``window/logMessage`` the server sends meanwhile is kept (the server
    logs an internal error before it answers, so the log of a request is in by the time its answer is)."""

    def __init__(self, server: RawServer) -> None:
        self.server = server
        self.logs: list[str] = []
        self.ids = itertools.count()

    def ask(self, method: str, params: Any) -> dict[str, Any]:
        msg_id = f"deep-{next(self.ids)}"
        self.server.send({"id": msg_id, "method": method, "params": params})

        def answer(message: dict[str, Any]) -> bool:
            if message.get("method") == "window/logMessage":
                self.logs.append(message["params"]["message"])
            return message.get("id") == msg_id and "method" not in message

        return self.server.wait_for(answer, timeout=60)


def every_request(session: Session, uri: str, position: dict[str, int], completion: str) -> Iterator[tuple[str, Any]]:
    """(what, answer) of each request that walks the tree or values of ``uri``."""
    doc = {"uri": uri}
    session.server.notify("tether/editor/didChangeActiveEditor", {"textDocument": doc, "position": position})
    yield "documentInfo", session.ask("tether/documentInfo", {"textDocument": doc, "detail": True})
    yield "getState", session.ask("tether/playground/getState", {})
    yield "selectionRange", session.ask("textDocument/selectionRange", {"textDocument": doc, "positions": [position]})
    listed = session.ask("tether/listSelectors", {})["result"]["selectors"]
    cursors: list[int] = []
    for selector in listed:
        if selector["args"]:
            continue
        answer = session.ask("tether/applySelector", {"uri": uri, "selector": selector["name"], "cursorNodeIds": []})
        cursors = cursors or answer.get("result", {}).get("cursorNodeIds", [])
        yield f"applySelector {selector['name']}", answer
    for selector in ("selectStatements", "selectStrings", "selectLists"):  # from the deep nodes outwards
        yield (
            f"applySelector {selector} on cursors",
            session.ask("tether/applySelector", {"uri": uri, "selector": selector, "cursorNodeIds": cursors[-50:]}),
        )
    for text in ("y = 2\n", completion):
        yield (
            "analyzeReplacement",
            session.ask("tether/analyzeReplacement", {"textDocument": doc, "position": position, "completion": text}),
        )
    yield (
        "inlineCompletion",
        session.ask(
            "textDocument/inlineCompletion",
            {"textDocument": doc, "position": position, "context": {"triggerKind": 1}},
        ),
    )
    whole_line = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}
    yield (
        "markers/create",
        session.ask("tether/markers/create", {"textDocument": doc, "range": whole_line, "note": "n"}),
    )
    yield "markers/list", session.ask("tether/markers/list", {"textDocument": doc})
    yield "codeLens", session.ask("textDocument/codeLens", {"textDocument": doc})
    version = session.ask("tether/documentInfo", {"textDocument": doc})["result"]["version"]
    yield (
        "edits/resolve",
        session.ask(
            "tether/edits/resolve",
            {"textDocument": doc, "baseVersion": version, "edits": [{"oldText": "hello", "newText": "hi"}]},
        ),
    )


@pytest.mark.parametrize("name", list(DEEP))
def test_deep_documents_answer_every_request_before_and_after_an_edit_deep_inside(name: str, tmp_path: Path) -> None:
    language, text, (line, character), replacement = DEEP[name]
    uri = f"file:///deep/{name}.{'py' if language == 'python' else 'yaml'}"
    position = {"line": line, "character": character}
    with RunningModel(Answer(text[:2_000])) as model:
        server = RawServer("--log-level", "debug", env=server_env(tmp_home=tmp_path))  # its markers stay its own
        try:
            server.initialize(
                initializationOptions={"tether": {"inference": {"endpoint": model.url("/api/generate"), "delay": 0}}}
            )
            session = Session(server)
            server.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}},
            )
            answers = list(every_request(session, uri, position, text))
            token_end = text.index(("1" if name == "python-parentheses" else "tell"), character) + 1
            edit = {"start": position, "end": {"line": line, "character": token_end}}
            for version in (2, 3):  # deep inside: the tree is spliced, the prompt's value found again
                server.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"range": edit, "text": replacement if version == 2 else "x"}],
                    },
                )
                edit = {"start": position, "end": {"line": line, "character": character + 1}}
                answers += [
                    (f"{what} after edit {version}", a) for what, a in every_request(session, uri, position, text)
                ]
            server.request("shutdown")
            server.notify("exit")
            server.wait_closed()
        finally:
            server.close()
    failed = [(what, answer["error"]) for what, answer in answers if "error" in answer]
    assert not failed, failed
    assert not [m for m in session.logs if "internal error" in m or "RecursionError" in m]
    assert b"RecursionError" not in server.stderr
    assert b"internal error" not in server.stderr
    assert server.proc.returncode == 0


@pytest.mark.parametrize("depth", [600, 950])
def test_a_message_nested_as_deep_as_json_allows_with_a_lone_surrogate_is_answered(depth: int) -> None:
    """Lone surrogates are replaced all through a message without recursion (600 levels ended the process)."""
    server = RawServer("--log-level", "info")
    try:
        server.initialize()
        deep = "[" * depth + '"\\ud800"' + "]" * depth
        body = '{"jsonrpc": "2.0", "id": "deep", "method": "tether/listSelectors", "params": {"x": ' + deep + "}}"
        server.send_bytes(body.encode())
        answer = server.wait_for(lambda m: m.get("id") == "deep")
        assert answer["result"]["selectors"], answer
        assert server.request("tether/listSelectors", {})["result"]["selectors"]
    finally:
        server.close()
