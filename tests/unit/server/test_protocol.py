"""json_converter.py, protocol.py and errors.py: strict structuring and error messages that name the field."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from lsprotocol import types

from tether_lsp.server.errors import ContentModified, InvalidParams, RequestFailed, describe_structure_error, to_jsonrpc
from tether_lsp.server.json_converter import make_converter


@attrs.define
class Inner:
    line: int
    label: str | None = None


@attrs.define
class Params:
    uri: str
    cursor_node_ids: list[int]
    inner: Inner
    ratio: float = 0.5
    flag: bool = False


converter = make_converter()
GOOD: dict[str, Any] = {"uri": "file:///a", "cursorNodeIds": [1, 2], "inner": {"line": 3}}


def error_of(data: dict[str, Any], cls: type[Any] = Params) -> tuple[str, str]:
    with pytest.raises(Exception) as info:
        converter.structure(data, cls)
    return describe_structure_error(info.value, "")


def test_good_params_structure_and_unstructure_in_camel_case() -> None:
    p = converter.structure(GOOD, Params)
    assert p.cursor_node_ids == [1, 2] and p.inner.line == 3
    assert converter.unstructure(p) == {**GOOD, "inner": {"line": 3, "label": None}, "ratio": 0.5, "flag": False}


@pytest.mark.parametrize(
    ("patch", "field", "reason"),
    [
        ({"cursorNodeIds": [1, "x"]}, "cursorNodeIds[1]", "expected an integer, got 'x'"),
        ({"cursorNodeIds": [True]}, "cursorNodeIds[0]", "expected an integer, got true"),
        ({"cursorNodeIds": [1.5]}, "cursorNodeIds[0]", "expected an integer, got 1.5"),
        ({"uri": 5}, "uri", "expected a string, got 5"),
        ({"inner": {"line": None}}, "inner.line", "expected an integer, got null"),
        ({"inner": {"line": 1, "label": 7}}, "inner.label", "expected a string"),
        ({"ratio": True}, "ratio", "expected a number, got true"),
        ({"flag": "yes"}, "flag", "expected a boolean, got 'yes'"),
    ],
)
def test_wrong_types_name_the_field(patch: dict[str, Any], field: str, reason: str) -> None:
    got_field, got_reason = error_of({**GOOD, **patch})
    assert got_field == field
    assert reason in got_reason


def test_missing_field() -> None:
    data = dict(GOOD)
    del data["uri"]
    assert error_of(data) == ("uri", "required field missing")


def test_lsprotocol_params_are_strict_too() -> None:
    data = {"textDocument": {"uri": "file:///a"}, "positions": [{"line": "1", "character": 0}]}
    assert error_of(data, types.SelectionRangeParams) == ("positions[0].line", "expected an integer, got '1'")


def test_error_mapping() -> None:
    e = to_jsonrpc(InvalidParams("cursorNodeIds[2]", "expected an integer", kind="invalidArgs", selector="x"))
    assert (e.code, e.message) == (-32602, "cursorNodeIds[2]: expected an integer")
    assert e.data == {"kind": "invalidArgs", "field": "cursorNodeIds[2]", "selector": "x"}
    assert to_jsonrpc(RequestFailed("no such marker", "unknownMarker")).code == -32803
    cm = to_jsonrpc(ContentModified("file:///a", 3, 5))
    assert cm.code == -32801 and cm.data == {
        "kind": "contentModified",
        "uri": "file:///a",
        "requested": 3,
        "current": 5,
    }
