"""The engine around the vocabulary: validation, id resolution, ordering, guards."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.selectors.harness import Doc
from tests.unit.selectors.sources import K8S, PY
from tether_lsp.handlers.selectors.engine import resolve, validate
from tether_lsp.handlers.selectors.vocabulary import SELECTORS
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.nodes import NodeIdSpace


@pytest.mark.parametrize(
    ("selector", "args", "field", "message"),
    [
        (
            "selectFunctions",
            [1],
            "args",
            "selectFunctions takes 0 argument(s) (none), got 1; send an empty args"
            " (in the CLI and editor prompts: the name alone, without a colon)",
        ),
        (
            "selectNth",
            [],
            "args",
            "selectNth takes 1 argument(s) (n: int), got 0; send them as an array in args"
            " (in the CLI and editor prompts: after the name and a colon, separated by commas, as in selectNth:n)",
        ),
        (
            "selectRange",
            ["9,0,9,60"],  # what an editor prompt sent before it split the text
            "args",
            "selectRange takes 4 argument(s) (startLine: nat, startCharacter: nat, endLine: nat, endCharacter: nat),"
            " got 1; send them as an array in args (in the CLI and editor prompts: after the name and a colon,"
            " separated by commas, as in selectRange:startLine,startCharacter,endLine,endCharacter)",
        ),
        ("selectNth", [True], "args[0]", "n must be an integer, got a boolean"),
        ("selectNth", [1.5], "args[0]", "n must be an integer, got 1.5"),
        ("selectNth", ["1"], "args[0]", "n must be an integer, got '1'"),
        ("selectAt", [-1, 0], "args[0]", "line must be 0 or more, got -1"),
        ("selectAt", [0, None], "args[1]", "character must be an integer, got null"),
        ("selectEnclosing", ["functions"], "args[0]", "unknown kind 'functions'"),
        ("filterKind", [3], "args[0]", "kind must be a string, got 3"),
        ("filterText", ["(unclosed"], "args[0]", "invalid regular expression"),
        ("selectByType", [["x"]], "args[0]", "type must be a string, got an array"),
    ],
)
def test_invalid_args(selector: str, args: list[Any], field: str, message: str) -> None:
    with pytest.raises(InvalidParams) as info:
        validate(selector, args)
    assert info.value.data["kind"] == "invalidArgs"
    assert info.value.data["selector"] == selector
    assert info.value.data["field"] == field
    assert message in info.value.message


def test_integral_floats_are_ints() -> None:
    assert validate("selectNth", [1.0]).args == (1,)
    assert validate("selectNth", [-2]).args == (-2,)


def test_unknown_kind_lists_the_kinds() -> None:
    with pytest.raises(InvalidParams) as info:
        validate("filterKind", ["nope"])
    assert "function" in info.value.data["available"]


def test_unknown_selector_lists_available() -> None:
    with pytest.raises(InvalidParams) as info:
        validate("selectFunction", [])
    assert info.value.data["kind"] == "unknownSelector"
    assert info.value.data["available"] == sorted(SELECTORS)
    assert info.value.code == -32602


def test_unknown_node_type_needs_the_grammar() -> None:
    validate("selectByType", ["block_mapping"])  # fine until a tree says otherwise
    with pytest.raises(InvalidParams, match="not a named node type of the python grammar"):
        Doc("python", PY).chain(("selectByType", "block_mapping"))
    assert Doc("yaml", K8S).types(("selectByType", "block_mapping"))[0] == "block_mapping"


def test_catastrophic_regex_is_stopped() -> None:
    doc = Doc("python", "x = '" + "a" * 5000 + "!'\n")
    started = time.monotonic()
    with pytest.raises(InvalidParams, match="ran out of its 0.5 s budget"):
        doc.chain("selectStrings", ("filterText", r"^('(a|aa)+)+$"))
    assert time.monotonic() - started < 5


def test_resolve_ids() -> None:
    doc = Doc("python", PY)
    space = NodeIdSpace(1000, len(doc.index))
    assert resolve(space, []) == [0]  # [] = the root
    assert resolve(space, [1005, 1003, 1005, 999, 10**12, -4]) == [3, 5]
    assert resolve(space, [999, 5]) == []  # all stale: empty, not the root


def test_empty_document() -> None:
    doc = Doc("python", "")
    assert doc.chain("selectFunctions") == []
    assert doc.chain("selectChildren") == []
    assert doc.chain("selectParent") == []
    assert doc.chain(("selectAt", 5, 5)) == [0]


def test_selections_at_ends_of_lists() -> None:
    doc = Doc("python", "a = 1\nb = 2\n")
    stmts = doc.chain("selectStatements")
    assert doc.chain("selectNextSibling", start=stmts[-1:]) == []
    assert doc.chain("selectPrevSibling", start=stmts[:1]) == []
    assert doc.chain(("selectNth", 5), start=stmts) == []
    assert doc.chain("selectAllButFirst", start=stmts[:1]) == []
    assert doc.chain("selectSiblings") == []  # the root has no parent


def test_root_forms_its_own_group() -> None:
    doc = Doc("python", "a = 1\n")
    stmts = doc.chain("selectStatements")
    assert doc.chain("selectFirst", start=[0, *stmts]) == [0, *stmts]


def test_kind_selectors_are_idempotent_and_nested() -> None:
    doc = Doc("python", PY)
    once = doc.chain("selectFunctions")
    assert doc.chain("selectFunctions", "selectFunctions") == once


SOURCES = st.lists(
    st.sampled_from(
        [
            "def f(a, b=1):\n    return a\n",
            "class C:\n    @d\n    def m(self): pass\n",
            "x = [i for i in y]  # é\n",
            "if a:\n    b()\nelif c:\n    pass\n",
            "s = f'東京 {x}'\n",
            "lambda: 0\n",
            "    broken(\n",
            "🚀 = 1\n",
        ]
    ),
    max_size=6,
).map("".join)
STEP = st.one_of(
    st.sampled_from([name for name, s in SELECTORS.items() if not s.args]).map(lambda n: (n,)),
    st.tuples(st.just("selectNth"), st.integers(-3, 3)),
    st.tuples(st.just("selectEnclosing"), st.sampled_from(["function", "statement", "call"])),
    st.tuples(st.just("filterText"), st.sampled_from(["^def", "a", "(?i)X"])),
    st.tuples(st.just("selectAt"), st.integers(0, 8), st.integers(0, 12)),
    st.tuples(st.just("selectRange"), st.integers(0, 5), st.integers(0, 9), st.integers(0, 8), st.integers(0, 9)),
)


@given(SOURCES, st.lists(STEP, min_size=1, max_size=5))
def test_random_chains_are_sorted_unique_and_in_range(source: str, chain: list[tuple[Any, ...]]) -> None:
    doc = Doc("python", source)
    cursors = [0]
    for step in chain:
        cursors = doc.chain(step, start=cursors)
        assert cursors == sorted(set(cursors))
        for i in cursors:
            s, e = doc.index.span(i)
            assert 0 <= s <= e <= len(doc.text)
            assert doc.text[s:e] == doc.text[s:e].rstrip(b" \t\r\n")
