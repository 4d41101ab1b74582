"""Hypothesis-driven params for every method the server handles: each request is answered with a result or a
JSON-RPC error of the documented kinds (never -32603, never a traceback), and the server stays alive.

Params are drawn from each method's own params class (right shape, odd values: empty, huge, negative,
non-ASCII, unknown uris, stale ids) and, one time in four, replaced by arbitrary JSON.
"""

from __future__ import annotations

import json
import types as pytypes
import typing
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from tests.helpers import server_env
from tests.hostile.conftest import assert_alive
from tests.rawclient import RawServer
from tether_lsp.compose import create_server
from tether_lsp.server.errors import camel

DOC_PY, DOC_YAML = "file:///fuzz/doc.py", "file:///fuzz/doc.yaml"
PY = "import os\n\n\nclass A:\n    @property\n    def f(self, x=1):\n        return [x, {'k': os.sep}]\n"
YAML = "jobs:\n  build:\n    steps:\n      - name: é 🚀\n        run: make\n"
#: Not fuzzed: they end or restart the session; document sync is covered by its own tests.
SKIPPED = {"initialize", "shutdown", "exit", "initialized", "tether/debug/raise", "tether/debug/raiseInNotification"}
EXPECTED_CODES = {-32602, -32803, -32801, -32800}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
odd_text = st.one_of(
    st.sampled_from(["", "x", "selectFunctions", "selectNth", "a{1000000000}", "(", "é🚀中", "\ud800", "file:///"]),
    st.text(max_size=30),
)
uris = st.sampled_from([DOC_PY, DOC_YAML, "file:///nope.py", "untitled:1", "file:///dev/zero", "file:///a%00b"])
ints = st.one_of(st.integers(-3, 40), st.integers(-(2**63), 2**63), st.sampled_from([0, 2**31, -1]))


def strategy_for(tp: Any, name: str = "", depth: int = 0) -> st.SearchStrategy[Any]:
    """Values of roughly the declared type, biased to the edges."""
    origin = typing.get_origin(tp)
    if depth > 4:
        return st.none()
    if origin in (pytypes.UnionType, typing.Union):
        return st.one_of([strategy_for(a, name, depth + 1) for a in typing.get_args(tp)])
    if origin in (list, typing.Sequence) or tp is list:
        args = typing.get_args(tp)
        return st.lists(strategy_for(args[0], name, depth + 1) if args else json_values, max_size=4)
    if origin is dict or tp is dict:
        return st.dictionaries(st.text(max_size=8), json_values, max_size=3)
    if tp is str:
        return uris | odd_text if "uri" in name.lower() else odd_text
    if tp is bool:
        return st.booleans()
    if tp is int:
        return ints
    if tp is float:
        return st.floats(-2, 2, allow_nan=False) | st.sampled_from([0.0, 1.0, 1e308])
    if tp is type(None):
        return st.none()
    if isinstance(tp, type) and attrs.has(tp):
        return params_for(tp, depth + 1)
    if isinstance(tp, type) and issubclass(tp, int):  # lsprotocol int enums
        return ints
    if isinstance(tp, type) and issubclass(tp, str):
        return odd_text
    return json_values


def params_for(cls: type[Any], depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    hints = typing.get_type_hints(cls)
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for field in attrs.fields(cls):
        target = optional if field.default is not attrs.NOTHING else required
        target[camel(field.name)] = strategy_for(hints[field.name], field.name, depth)
    return st.fixed_dictionaries(required, optional=optional)


def _targets() -> list[tuple[str, bool, st.SearchStrategy[Any]]]:
    server = create_server()
    found: dict[str, tuple[bool, st.SearchStrategy[Any]]] = {}
    for spec in server.protocol.methods.all():
        if spec.sender == "client" and spec.method not in SKIPPED:
            found[spec.method] = (spec.request, params_for(spec.params) if spec.params else json_values)
    for method in server.protocol.fm.features:
        if method in SKIPPED or method in found or method.startswith("tether/"):
            continue
        request_type, _, params_type, _ = types.METHOD_TO_TYPES[method]
        is_request = request_type is not None and "Request" in request_type.__name__
        shaped = params_for(params_type) if isinstance(params_type, type) and attrs.has(params_type) else json_values
        found[method] = (is_request, shaped)
    return [(m, r, s) for m, (r, s) in sorted(found.items())]


TARGETS = _targets()


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    server = RawServer(env=server_env(tmp_home=tmp_path_factory.mktemp("fuzz-home")))
    try:
        server.initialize()
        for uri, language, text in ((DOC_PY, "python", PY), (DOC_YAML, "yaml", YAML)):
            server.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}},
            )
        yield server
    finally:
        server.close()


def test_every_handled_method_is_fuzzed() -> None:
    names = {m for m, _, _ in TARGETS}
    assert {
        "tether/applySelector",
        "tether/markers/create",
        "tether/edits/resolve",
        "textDocument/codeLens",
        "textDocument/selectionRange",
        "tether/playground/pin",
        "tether/editor/didChangeCursor",
    } <= names


@pytest.mark.parametrize(("method", "is_request", "params"), TARGETS, ids=[t[0] for t in TARGETS])
def test_fuzzed_params_are_answered_and_the_server_survives(
    fuzzed: RawServer, method: str, is_request: bool, params: st.SearchStrategy[Any]
) -> None:
    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.one_of(params, params, params, json_values))
    def check(value: Any) -> None:
        if is_request:
            answer = fuzzed.request(method, value, timeout=20)
            if "error" in answer:
                error = answer["error"]
                assert error["code"] in EXPECTED_CODES, (method, value, error)
                assert "traceback" not in json.dumps(error).lower()
        else:
            fuzzed.notify(method, value)
            assert_alive(fuzzed)

    check()
    assert_alive(fuzzed)
    assert b"Traceback" not in fuzzed.stderr
