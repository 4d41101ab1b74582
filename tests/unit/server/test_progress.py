"""progress.py's rules: a token of the client's or one the server creates, at most one report per percent,
nothing for jobs under the minimum, one end, and nothing at all for a client without progress support.

The server is a recording double of the two things Progress uses (``work_done_progress`` and the client's
capabilities); what reaches a real client is tested end to end in ``test_tasks_e2e`` and
``test_transports_e2e``.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from tether_lsp.server.progress import Progress


class Recorder:
    def __init__(self, refuse: bool = False) -> None:
        self.sent: list[tuple[str, Any, Any]] = []
        self.refuse = refuse

    async def create_async(self, token: str) -> None:
        if self.refuse:
            raise RuntimeError("no")
        self.sent.append(("create", token, None))

    def begin(self, token: Any, value: Any) -> None:
        self.sent.append(("begin", token, value))

    def report(self, token: Any, value: Any) -> None:
        self.sent.append(("report", token, value))

    def end(self, token: Any, value: Any) -> None:
        self.sent.append(("end", token, value))


def server(progress: bool = True, refuse: bool = False) -> Any:
    window = SimpleNamespace(work_done_progress=progress)
    return SimpleNamespace(work_done_progress=Recorder(refuse), client_capabilities=SimpleNamespace(window=window))


async def drain() -> None:
    await asyncio.sleep(0)  # call_soon_threadsafe callbacks run on the next turn of the loop


async def test_on_the_clients_token_no_token_is_created() -> None:
    s = server()
    p = await Progress.start(s, "Tether: task", "my-token")
    p.report(1, 4, "change 1")
    await drain()
    p.end("done")
    p.end("again")
    kinds = [(k, t) for k, t, _ in s.work_done_progress.sent]
    assert kinds == [("begin", "my-token"), ("report", "my-token"), ("end", "my-token")]
    begin, report, end = (v for _, _, v in s.work_done_progress.sent)
    assert (begin.title, begin.percentage, begin.cancellable) == ("Tether: task", 0, True)
    assert (report.message, report.percentage) == ("change 1", 25)
    assert end.message == "done"


async def test_a_server_token_is_created_then_used() -> None:
    s = server()
    p = await Progress.start(s, "Tether: markers")
    assert p.token is not None and str(p.token).startswith("tether-")
    assert [k for k, _, _ in s.work_done_progress.sent] == ["create", "begin"]
    assert s.work_done_progress.sent[1][2].cancellable is None


async def test_one_report_per_percent_and_a_default_message() -> None:
    s = server()
    p = await Progress.start(s, "t", "tok")
    for done in range(0, 1001):
        p.report(done, 1000)
    await drain()
    reports = [v for k, _, v in s.work_done_progress.sent if k == "report"]
    assert [r.percentage for r in reports] == list(range(101))
    assert reports[3].message == "30/1000"


async def test_small_jobs_report_nothing() -> None:
    s = server()
    p = await Progress.start(s, "t", "tok")
    p.minimum = 10
    p.report(1, 9)
    await drain()
    assert [k for k, _, _ in s.work_done_progress.sent] == ["begin"]


async def test_without_client_support_nothing_is_sent() -> None:
    for s in (server(progress=False), server(refuse=True)):
        p = await Progress.start(s, "t")
        p.report(1, 2)
        p.end()
        await drain()
        assert [k for k, _, _ in s.work_done_progress.sent if k != "create"] == []
