"""The router: the method tables are the whole list of what the server answers, rows are checked against their
handlers, and a request that writes runs to its end once started."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tether_lsp.compose import create_server
from tether_lsp.handlers.markers import lsp as markers_lsp
from tether_lsp.handlers.markers import wire as markers_wire
from tether_lsp.server.app import TetherServer
from tether_lsp.server.methods import Command, Feature, Method, Notice
from tether_lsp.server.router import run_to_end


def test_pygls_has_exactly_the_rows_of_the_tables() -> None:
    server = create_server()
    routes = {route.method.name for route in server.router.routes()}
    assert set(server.protocol.fm.features) == routes
    assert set(server.protocol.fm.commands) == {"tether.replacementAccepted"}
    custom = {spec.method for spec in server.protocol.methods.all()}
    assert custom == {name for name in routes if name.startswith("tether/")} | {
        name for _, notice in server.router.notices() for name in [notice.name]
    }


def test_where_a_method_is_handled_is_one_lookup() -> None:
    route = create_server().router.route("tether/markers/create")
    assert route is not None
    assert route.feature == "markers"
    assert route.method.handler is markers_lsp.create
    assert route.method.params is markers_wire.CreateParams
    assert create_server().router.route("tether/nothing") is None


def test_registering_outside_a_table_is_refused() -> None:
    server = create_server()
    with pytest.raises(TypeError, match="method table"):
        server.feature("tether/sneaky")
    with pytest.raises(TypeError, match="method table"):
        server.command("tether.sneaky")


async def _coroutine(context: Any, params: Any) -> None:
    return None


def _plain(context: Any, params: Any) -> None:
    return None


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (Method("tether/x", _coroutine), "is a coroutine function"),
        (Method("tether/x", _plain, runs="async"), "is not a coroutine function"),
        (Method("tether/x", _plain, cancellable=True), "cannot be cancellable"),
        (Method("tether/x", _coroutine, runs="async", notification=True, cancellable=True), "notification"),
        (Method("tether/x", _plain, result=int, notification=True), "notification"),
    ],
)
def test_a_row_contradicting_its_handler_is_refused(row: Method[Any], problem: str) -> None:
    server = TetherServer("t", "0")
    with pytest.raises(ValueError, match=problem):
        server.router.install(Feature("f", setup=lambda s: None, methods=[row]))
    assert server.router.route("tether/x") is None


def test_a_name_declared_twice_is_refused_before_anything_is_set_up() -> None:
    server = TetherServer("t", "0")
    server.router.install(Feature("first", setup=lambda s: None, methods=[Method("tether/x", _plain)]))
    set_up: list[str] = []
    for second in (
        Feature("second", setup=set_up.append, methods=[Method("tether/x", _plain)]),
        Feature("second", setup=set_up.append, methods=[], sends=[Notice("tether/x", object)]),
    ):
        with pytest.raises(ValueError, match="already declared by first"):
            server.router.install(second)
    assert set_up == []
    server.router.install(Feature("c", setup=lambda s: None, methods=[], commands=[Command("tether.c", _plain)]))
    with pytest.raises(ValueError, match="already declared by c"):
        server.router.install(Feature("d", setup=lambda s: None, methods=[], commands=[Command("tether.c", _plain)]))


async def _write(started: asyncio.Event, release: asyncio.Event, done: list[str]) -> str:
    started.set()
    await release.wait()
    done.append("written")
    return "the marker"


async def test_started_work_runs_to_its_end_when_the_request_is_cancelled() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    done: list[str] = []
    request = asyncio.ensure_future(run_to_end(_write(started, release, done)))
    await started.wait()
    assert request.cancel()
    release.set()
    assert await request == "the marker"
    assert done == ["written"]
    assert not request.cancelled()


async def test_without_run_to_end_the_same_cancel_stops_the_work() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    done: list[str] = []
    request = asyncio.ensure_future(_write(started, release, done))
    await started.wait()
    request.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await request
    assert done == []


async def test_run_to_end_stops_when_the_work_itself_is_cancelled() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    done: list[str] = []
    work = asyncio.ensure_future(_write(started, release, done))
    request = asyncio.ensure_future(run_to_end(work))
    await started.wait()
    work.cancel()  # the loop closing cancels every task, the work too
    with pytest.raises(asyncio.CancelledError):
        await request
    assert done == []
