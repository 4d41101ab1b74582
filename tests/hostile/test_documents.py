"""Odd documents: nesting that crashes a grammar, nesting that overflows Python, huge texts, lone surrogates."""

from __future__ import annotations

import hashlib
from pathlib import Path

import psutil
import pytest

from tests.hostile.conftest import assert_alive
from tests.rawclient import RawServer


def open_doc(server: RawServer, uri: str, text: str, language: str, version: int = 1) -> None:
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}},
    )


def info(server: RawServer, uri: str, detail: bool = False) -> dict[str, object]:
    answer = server.request("tether/documentInfo", {"textDocument": {"uri": uri}, "detail": detail})
    assert "result" in answer, answer
    return answer["result"]


def deep_block_yaml(levels: int) -> str:
    return "".join(" " * i + f"k{i}:\n" for i in range(levels)) + " " * levels + "leaf\n"


def deep_sequence_yaml(levels: int) -> str:
    return "- " * levels + "x\n"


@pytest.mark.parametrize("text", [deep_block_yaml(400), deep_sequence_yaml(300), deep_block_yaml(254)])
def test_yaml_nested_past_the_grammar_limit_is_text_only_and_the_server_lives(ready: RawServer, text: str) -> None:
    uri = "file:///deep.yaml"
    open_doc(ready, uri, text, "yaml")
    held = info(ready, uri)
    assert held["textOnlyReason"] and "tether.limits.yamlMaxNesting" in held["textOnlyReason"]  # type: ignore[operator]
    answer = ready.request("tether/applySelector", {"uri": uri, "selector": "selectPairs", "cursorNodeIds": []})
    assert answer["error"]["code"] == -32803
    assert answer["error"]["data"]["kind"] == "documentTooDeep"
    expand = ready.request(
        "textDocument/selectionRange", {"textDocument": {"uri": uri}, "positions": [{"line": 1, "character": 1}]}
    )
    assert expand["error"]["data"]["kind"] == "documentTooDeep"
    for version in (2, 3):  # edits keep it text only, and the warning is said once
        ready.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text + "# more\n"}]},
        )
    assert info(ready, uri)["version"] == 3
    assert_alive(ready)
    assert ready.wait_for_stderr(b"WARNING tether_lsp.server.syntax").count(b"WARNING tether_lsp.server.syntax") == 1


def deep_blocks_python(levels: int, indent: str = " ") -> str:
    """A function whose body nests ``levels`` indentation levels, with a string at the bottom (where the Python
    grammar's scanner saves its indentation stack as the string starts)."""
    body = "".join(indent * level + "if x:\n" for level in range(1, levels))
    return "def f(x):\n" + body + indent * levels + "return 'tell the user hello'\n"


@pytest.mark.parametrize(
    ("levels", "indent"), [(1_000, " "), (600, "    "), (520, "\t")], ids=["1000-spaces", "600-four-spaces", "520-tabs"]
)
def test_python_nested_past_the_grammar_limit_is_text_only_and_the_server_lives(
    ready: RawServer, levels: int, indent: str
) -> None:
    """tree-sitter-python 0.25 crashes the process (SIGSEGV) on ~510 nested blocks with a string inside: such a
    text never reaches the grammar, in the server or in its worker processes (prompt detection of a large file)."""
    uri = "file:///deep_blocks.py"
    open_doc(ready, uri, deep_blocks_python(levels, indent), "python")
    held = info(ready, uri)
    assert held["textOnlyReason"] and "tether.limits.pythonMaxNesting" in held["textOnlyReason"]  # type: ignore[operator]
    answer = ready.request("tether/applySelector", {"uri": uri, "selector": "selectFunctions", "cursorNodeIds": []})
    assert answer["error"]["code"] == -32803
    assert answer["error"]["data"]["kind"] == "documentTooDeep"
    ready.notify(
        "tether/editor/didChangeActiveEditor", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 0}}
    )
    assert "result" in ready.request("tether/playground/getState", {})
    ready.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": deep_blocks_python(150, indent)}]},
    )
    assert info(ready, uri)["textOnlyReason"] is None  # back under the limit: parsed again
    answer = ready.request("tether/applySelector", {"uri": uri, "selector": "selectFunctions", "cursorNodeIds": []})
    assert len(answer["result"]["ranges"]) == 1
    completion = ready.request(
        "tether/analyzeReplacement",
        {
            "textDocument": {"uri": uri},
            "position": {"line": 0, "character": 0},
            "completion": deep_blocks_python(levels),
        },
    )
    assert "result" in completion, completion
    deeper = {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}  # an edit that nests it deep
    ready.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [{"range": deeper, "text": deep_blocks_python(levels, indent).split("\n", 1)[1]}],
        },
    )
    assert "tether.limits.pythonMaxNesting" in info(ready, uri)["textOnlyReason"]  # type: ignore[operator]
    assert_alive(ready)


def test_yaml_within_the_limit_is_parsed(ready: RawServer) -> None:
    uri = "file:///fine.yaml"
    open_doc(ready, uri, deep_block_yaml(150), "yaml")
    assert info(ready, uri)["textOnlyReason"] is None
    answer = ready.request("tether/applySelector", {"uri": uri, "selector": "selectPairs", "cursorNodeIds": []})
    assert len(answer["result"]["ranges"]) == 150


def test_yaml_longer_than_the_grammar_can_number_is_text_only_until_it_is_shorter(ready: RawServer) -> None:
    uri = "file:///long.yaml"
    open_doc(ready, uri, "k: v\n" * 40_000, "yaml")
    held = info(ready, uri)
    assert "40000 lines" in held["textOnlyReason"]  # type: ignore[operator]
    answer = ready.request("tether/applySelector", {"uri": uri, "selector": "selectPairs", "cursorNodeIds": []})
    assert answer["error"]["code"] == -32803
    assert answer["error"]["data"]["kind"] == "documentTooLarge"
    ready.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "k: v\n" * 100}]},
    )
    assert info(ready, uri)["textOnlyReason"] is None
    answer = ready.request("tether/applySelector", {"uri": uri, "selector": "selectPairs", "cursorNodeIds": []})
    assert len(answer["result"]["ranges"]) == 100


def test_a_completion_nested_past_the_limit_is_analysed_without_reaching_the_grammar(ready: RawServer) -> None:
    uri = "file:///tasks.yaml"
    open_doc(ready, uri, "- name: build\n  shell: make\n\n", "yaml")
    answer = ready.request(
        "tether/analyzeReplacement",
        {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 0}, "completion": deep_block_yaml(400)},
    )
    assert answer["result"]["mode"] == "insert"
    assert_alive(ready)


@pytest.mark.parametrize(
    ("text", "language", "line", "character"),
    [
        ("x = " + "(" * 20_000 + "1" + ")" * 20_000 + "\n", "python", 0, 20_004),
        ("x = " + "f(" * 5_000 + "1" + ")" * 5_000 + "\n", "python", 0, 10_004),
        ("[" * 20_000 + "]" * 20_000 + "\n", "yaml", 0, 10_000),
    ],
    ids=["20000-parentheses", "5000-nested-calls", "20000-yaml-flow-sequences"],
)
def test_deeply_nested_documents_answer_every_request(
    ready: RawServer, text: str, language: str, line: int, character: int
) -> None:
    uri = f"file:///nested.{'py' if language == 'python' else 'yaml'}"
    open_doc(ready, uri, text, language)
    expand = ready.request(
        "textDocument/selectionRange",
        {"textDocument": {"uri": uri}, "positions": [{"line": line, "character": character}]},
    )
    chain, depth = expand["result"][0], 0
    while chain is not None:
        depth, chain = depth + 1, chain.get("parent")
    assert depth == 200  # tether.limits.maxSelectionRangeDepth: the innermost levels, then the document
    analysis = ready.request(
        "tether/analyzeReplacement",
        {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}, "completion": "y = 2\n"},
    )
    assert analysis["result"]["mode"] == "insert", analysis
    for selector in ("selectCalls", "selectLists", "selectStatements"):
        answer = ready.request("tether/applySelector", {"uri": uri, "selector": selector, "cursorNodeIds": []})
        assert "result" in answer, answer
    assert info(ready, uri, detail=True)["nodeCount"]
    assert_alive(ready)


def test_a_document_over_the_tree_limit_is_text_only_and_memory_stays_bounded(raw: RawServer) -> None:
    raw.initialize(initializationOptions={"limits": {"maxTreeBytes": 1_000_000}})
    uri = "file:///huge.py"
    text = "def f(x):\n    return x + 1\n" * 1_100_000  # 30 MB
    open_doc(raw, uri, text, "python")
    held = info(raw, uri)
    assert held["bytes"] == len(text)
    assert "tether.limits.maxTreeBytes" in held["textOnlyReason"]  # type: ignore[operator]
    raw.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# hi\n"}
            ],
        },
    )
    assert info(raw, uri)["version"] == 2
    answer = raw.request("tether/applySelector", {"uri": uri, "selector": "selectFunctions", "cursorNodeIds": []})
    assert answer["error"]["data"]["kind"] == "documentTooLarge"
    assert psutil.Process(raw.proc.pid).memory_info().rss < 500 * 1024 * 1024
    small = "file:///small.py"  # other documents are untouched
    open_doc(raw, small, "def g():\n    pass\n", "python")
    assert (
        len(
            raw.request("tether/applySelector", {"uri": small, "selector": "selectFunctions", "cursorNodeIds": []})[
                "result"
            ]["ranges"]
        )
        == 1
    )


def test_lone_surrogates_become_replacement_characters_and_positions_stay_in_step(ready: RawServer) -> None:
    uri = "file:///s.py"
    ready.send_raw_json(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = '\ud800'\ny = 1\n"}
            },
        }
    )
    held = info(ready, uri, detail=True)
    assert held["version"] == 1
    assert held["textSha256"] == hashlib.sha256("x = '\ufffd'\ny = 1\n".encode()).hexdigest()
    # UTF-16: the surrogate was one unit, U+FFFD is one unit: the client's position 6 is after the quote
    ready.send_raw_json(
        {
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [
                    {
                        "range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 6}},
                        "text": "!\udfff",
                    }
                ],
            },
        }
    )
    after = info(ready, uri, detail=True)
    assert after["version"] == 2
    assert after["textSha256"] == hashlib.sha256("x = '\ufffd!\ufffd'\ny = 1\n".encode()).hexdigest()


def test_regex_patterns_that_would_take_minutes_to_compile_are_refused(ready: RawServer) -> None:
    uri = "file:///r.py"
    open_doc(ready, uri, "def f():\n    pass\n", "python")
    for pattern in ("a{1000000000}", "(a{1000}){1000}", "x" * 5000, "a{99999999999999999999}"):
        answer = ready.request(
            "tether/applySelector",
            {"uri": uri, "selector": "filterText", "args": [pattern], "cursorNodeIds": []},
            timeout=5,
        )
        assert answer["error"]["code"] == -32602
        assert answer["error"]["data"]["kind"] == "invalidArgs"
        assert "refused" in answer["error"]["message"]
    assert_alive(ready)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    import os

    path = tmp_path / "pipe.py"
    os.mkfifo(path)
    return path


def test_markers_read_only_regular_files_under_the_size_limit(ready: RawServer, tmp_path: Path, fifo: Path) -> None:
    big = tmp_path / "big.py"
    big.write_bytes(b"x = 1\n" * (9 * 1024 * 1024 // 6))
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}
    for uri in ("file:///dev/zero", fifo.as_uri(), big.as_uri()):
        for method, params in (
            ("tether/markers/create", {"textDocument": {"uri": uri}, "range": whole, "note": "n"}),
            ("tether/markers/list", {"textDocument": {"uri": uri}}),
        ):
            answer = ready.request(method, params, timeout=10)
            assert answer["error"]["code"] == -32602, answer
            assert uri in answer["error"]["message"]
            assert answer["error"]["data"]["kind"] == "fileRefused"
    assert_alive(ready)


def test_odd_uris_and_notes_get_clean_answers(ready: RawServer, tmp_path: Path) -> None:
    target = tmp_path / "ok.py"
    target.write_text("x = 1\n")
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}}
    answer = ready.request(
        "tether/markers/create", {"textDocument": {"uri": "file:///a%00b.py"}, "range": whole, "note": "n"}
    )
    assert answer["error"]["code"] == -32602
    ready.send_raw_json(
        {
            "id": 4242,
            "method": "tether/markers/create",
            "params": {"textDocument": {"uri": target.as_uri()}, "range": whole, "note": "lone \ud800 surrogate"},
        }
    )
    created = ready.wait_for(lambda m: m.get("id") == 4242)
    assert created["result"]["note"] == "lone \ufffd surrogate"
    assert b"Traceback" not in ready.stderr
