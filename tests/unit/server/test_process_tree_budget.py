"""``tether.limits.processTreeBytes``: how much source each worker process keeps parsed between its jobs. The
server's value travels with every call and is in force where the call runs: a child, or a worker thread at size 0.
Counted by the keys kept, not timed."""

from __future__ import annotations

import asyncio

import pytest

from tether_lsp.server.grammar_limits import GrammarLimits
from tether_lsp.server.processes import Processes
from tether_lsp.server.settings import LimitSettings, SettingsSchema

DOCUMENT = b"def f(x):\n    return x * 2\n" * 40  # 1,080 bytes


def parse_each(keys: list[str]) -> list[str]:
    """Where the call runs: each key's document parsed (kept as it goes), then the keys still kept."""
    from tether_lsp.server import process_trees

    process_trees.forget()
    for key in keys:
        process_trees.tree_for(key, "python", DOCUMENT + key.encode(), GrammarLimits())
    return process_trees.kept()


@pytest.mark.parametrize("size", [1, 0])
async def test_each_call_keeps_the_trees_the_setting_allows(size: int) -> None:
    budget = [LimitSettings().processTreeBytes]
    pool = Processes(lambda: size, asyncio.to_thread, tree_bytes=lambda: budget[0])
    try:
        assert await pool.run(parse_each, ["a", "b", "c"]) == ["a", "b", "c"]  # the default keeps all three
        budget[0] = 2_500  # room for two
        assert await pool.run(parse_each, ["a", "b", "c"]) == ["b", "c"]
        budget[0] = 0
        assert await pool.run(parse_each, ["a", "b", "c"]) == []
    finally:
        await asyncio.to_thread(pool.close)
        if size == 0:  # the thread's process is this one: the default back in force
            from tether_lsp.server import process_trees

            process_trees.keep_at_most(LimitSettings().processTreeBytes)
            process_trees.forget()


def test_the_setting_is_read_with_its_default_and_bounds() -> None:
    schema = SettingsSchema()
    settings, problems = schema.parse({"limits": {"processTreeBytes": 4096}})
    assert problems == [] and settings.section(LimitSettings).processTreeBytes == 4096
    _settings, problems = schema.parse({"limits": {"processTreeBytes": -1}})
    assert any("processTreeBytes" in p for p in problems)
