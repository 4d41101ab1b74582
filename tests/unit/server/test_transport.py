"""Decoded messages: lone surrogates replaced in every string, however deep."""

from __future__ import annotations

from typing import Any

from tether_lsp.server.transport import scrub_surrogates


def test_lone_surrogates_are_replaced_at_every_depth_keys_included() -> None:
    value: Any = "\ud800"
    for depth in range(5_000):
        value = [value] if depth % 2 else {"k\udfff": value, "n": depth}
    scrubbed = scrub_surrogates(value)
    for depth in reversed(range(5_000)):
        if depth % 2:
            (scrubbed,) = scrubbed
        else:
            assert list(scrubbed) == ["n", "k\ufffd"] or list(scrubbed) == ["k\ufffd", "n"]
            assert scrubbed["n"] == depth
            scrubbed = scrubbed["k\ufffd"]
    assert scrubbed == "\ufffd"
