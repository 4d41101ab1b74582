"""The wire types of structural selectors (``tether/applySelector``, ``tether/listSelectors``): the params and results
of its methods and notifications, camelCase on the wire (``server/protocol.py`` converts them). Only the glue and
its method table use them; engines and services never do."""

from __future__ import annotations

from typing import Any

import attrs
from lsprotocol import types


@attrs.define
class ApplySelectorParams:
    uri: str
    selector: str
    cursor_node_ids: list[int]
    args: list[Any] = attrs.field(factory=list)
    #: With no cursor ids: start from the smallest named node holding each range (an editor's selections)
    #: instead of the root.
    ranges: list[types.Range] | None = None


@attrs.define
class ApplySelectorResult:
    #: LSP ranges as plain JSON (``json_ranges``): results can hold thousands of them.
    ranges: list[dict[str, dict[str, int]]] = attrs.field(metadata={"plain_json": True})
    cursor_node_ids: list[int] = attrs.field(metadata={"plain_json": True})


@attrs.define
class ListSelectorsParams:
    language_id: str | None = None


@attrs.define
class SelectorArg:
    name: str
    type: str


@attrs.define
class SelectorInfo:
    name: str
    args: list[SelectorArg]
    description: str


@attrs.define
class ListSelectorsResult:
    selectors: list[SelectorInfo]
    kinds: list[str]
