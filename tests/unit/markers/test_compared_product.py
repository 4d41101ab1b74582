"""``tether.markers.maxComparedProduct``: above it, two long lines' changed middles count as rewritten instead of
being compared. The server's value is in force in the server (its settings, as they change) and in the worker
processes a HEAD change relocates files in (it travels with the work). What is compared is told by the result:
a line whose middles are compared keeps its marker, one counted as rewritten loses it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tether_lsp.handlers.markers import offload
from tether_lsp.handlers.markers.calculator import Location, calculate
from tether_lsp.handlers.markers.relocate import FileWork
from tether_lsp.handlers.markers.settings import MarkersSettings, compare_at_most, compared_product
from tether_lsp.handlers.markers.state import MarkersState
from tether_lsp.handlers.markers.store import MIGRATIONS
from tether_lsp.server.settings import SettingsSchema
from tether_lsp.server.thread_host import ThreadHost

DEFAULT = MarkersSettings().maxComparedProduct
MIDDLE = 3_000  # 3,000 x 3,000 = 9,000,000: compared under the default, not under 1,000,000
OLD_LINE = "<" * 100 + "ab" * (MIDDLE // 2) + ">" * 100
NEW_LINE = "<" * 100 + "X" + "ab" * (MIDDLE // 2 - 1) + "bY" + ">" * 100  # the middle changed at both ends
OLD, NEW = f"x = 1\n{OLD_LINE}\ny = 2\n", f"x = 1\n{NEW_LINE}\ny = 2\n"
ON_THE_LINE = Location(2, 1, 2, 5)


@pytest.fixture(autouse=True)
def default_back() -> Iterator[None]:
    yield
    compare_at_most(DEFAULT)  # one number per process: the next test starts from the default


def host_with(root: Path, product: int | None, processes: int = 0) -> tuple[ThreadHost, MarkersState]:
    schema = SettingsSchema()
    schema.register("markers", MarkersSettings)
    markers = {} if product is None else {"maxComparedProduct": product}
    settings, problems = schema.parse({"limits": {"processes": processes}, "markers": markers})
    assert problems == []
    host = ThreadHost(settings, root, {"markers": lambda: MIGRATIONS})
    return host, MarkersState(host)


def test_the_default_compares_the_middles_and_a_lower_setting_counts_them_rewritten(tmp_path: Path) -> None:
    host, state = host_with(tmp_path, None)
    try:
        assert calculate(OLD, NEW, {"m": ON_THE_LINE})["m"].location is not None
        schema = SettingsSchema()
        schema.register("markers", MarkersSettings)
        lowered, _ = schema.parse({"markers": {"maxComparedProduct": 1_000_000}})
        state.on_settings(lowered)  # the editor changed the setting
        result = calculate(OLD, NEW, {"m": ON_THE_LINE})["m"]
        assert result.location is None or result.start_was_deleted
    finally:
        host.close()


def test_a_worker_process_relocates_under_the_servers_setting(tmp_path: Path) -> None:
    host, _state = host_with(tmp_path, 1_000_000, processes=1)
    try:
        assert compared_product() == 1_000_000
        work = FileWork(OLD, NEW, {"m": ON_THE_LINE}, None, None)
        assert work.compared_product == 1_000_000
        (done,) = offload.in_processes(host)([work])  # a child process, whose own default is 25,000,000
        assert done.results["m"].location is None or done.results["m"].start_was_deleted
        compare_at_most(DEFAULT)
        (done,) = offload.in_processes(host)([FileWork(OLD, NEW, {"m": ON_THE_LINE}, None, None)])
        assert done.results["m"].location == ON_THE_LINE
    finally:
        host.close()


def test_the_setting_has_bounds() -> None:
    schema = SettingsSchema()
    schema.register("markers", MarkersSettings)
    _settings, problems = schema.parse({"markers": {"maxComparedProduct": -1}})
    assert any("maxComparedProduct" in p for p in problems)
