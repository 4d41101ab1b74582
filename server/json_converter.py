"""JSON on the wire: the strict converter of params and results, and the encoder of whole messages.

Why strict: cattrs would coerce silently (``"5"`` to an int, ``True`` to ``1``), so a client's mistake would be
answered as if it had asked something else; here a boolean is not a number, ``1.5`` is not an integer and ``5``
is not a string, and the failure names the field (:mod:`server.errors`). Tether's attrs classes go on the wire
in camelCase.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import attrs
import cattrs
import orjson
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from lsprotocol.converters import get_converter

from .errors import StrictTypeError, camel


def _strict_int(value: Any, _: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StrictTypeError(f"expected an integer, got {json_repr(value)}")
    return value


def _strict_float(value: Any, _: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StrictTypeError(f"expected a number, got {json_repr(value)}")
    return float(value)


def _strict_str(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise StrictTypeError(f"expected a string, got {json_repr(value)}")
    return value


def _strict_bool(value: Any, _: Any) -> bool:
    if not isinstance(value, bool):
        raise StrictTypeError(f"expected a boolean, got {json_repr(value)}")
    return value


def json_repr(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def _as_is(value: Any) -> Any:
    return value


def _is_tether_class(cls: type[Any]) -> bool:
    return attrs.has(cls) and cls.__module__.split(".", 1)[0] in {"tether_lsp", "tests"}


def make_converter() -> cattrs.Converter:
    """lsprotocol's converter, made strict about JSON primitives, with hooks for Tether's attrs classes.

    Tether classes keep ``None`` fields on the wire (``range: null`` is meaningful) unless a field is
    declared with ``metadata={"omit_none": True}``; a field declared with ``metadata={"plain_json": True}``
    already holds plain JSON (thousands of ranges, say) and goes on the wire as it is, not copied item by item.
    """
    converter = get_converter(cattrs.Converter())
    converter.register_structure_hook(int, _strict_int)
    converter.register_structure_hook(float, _strict_float)
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook(bool, _strict_bool)

    def unstructure_factory(cls: type[Any]) -> Any:
        overrides = {
            a.name: override(
                rename=camel(a.name),
                omit_if_default=bool(a.metadata.get("omit_none")),
                unstruct_hook=_as_is if a.metadata.get("plain_json") else None,
            )
            for a in attrs.fields(cls)
        }
        return make_dict_unstructure_fn(cls, converter, **overrides)  # type: ignore[arg-type]

    def structure_factory(cls: type[Any]) -> Any:
        overrides = {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, converter, **overrides)  # type: ignore[arg-type]

    converter.register_unstructure_hook_factory(_is_tether_class, unstructure_factory)
    converter.register_structure_hook_factory(_is_tether_class, structure_factory)
    return converter


def encode_json(data: Any, default: typing.Callable[[Any], Any]) -> bytes:
    """One message as UTF-8 JSON: orjson (a result with a thousand ranges encodes in 0.1 ms instead of 1.6),
    and the standard library for what orjson refuses but JSON allows (integers past 64 bits, non-string keys,
    lone surrogates), so the wire accepts what it accepted before."""
    try:
        return orjson.dumps(data, default=default)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(data, default=default).encode("utf-8")
