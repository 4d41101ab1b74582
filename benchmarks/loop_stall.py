"""The event loop's worst stall while heavy work runs in the server and the user types, scenario by scenario.

The server measures how late its loop wakes (``TETHER_LOOP_WATCH=1``, :mod:`tether_lsp.server.loopwatch`): the
worst lateness is the longest time between two loop iterations, reset just before the heavy work starts and read
when it is done. Meanwhile a typist types into an open file and asks a cheap request after every 10th character
(:mod:`benchmarks.stall_common`): the typing latency p50/p99 is printed beside the stall. Every scenario talks to
the real server over stdio.

* ``head-change``: a checkout moves HEAD under 10,000 markers (200 files x 50): worst stall, slowest
  ``codeLens`` meanwhile, checkout -> ``tether/markers/didChange`` (:mod:`benchmarks.stall_markers`).
* ``prompts-python``, ``prompts-yaml``: prompts found again after each typing pause in a 10,000-line file: worst
  stall, new prompt listed after the pause (:mod:`benchmarks.stall_playground`).
* ``attached-outline``: an agent's ``outline`` of a 143 KB open file in attached mode: the LSP loop's worst stall
  (:mod:`benchmarks.stall_attached`).
* ``team-sync``: ``head-change`` in team mode, two servers on one PostgreSQL (started by the benchmark; the
  scenario is skipped, saying why, when PostgreSQL cannot be started).
* ``long-line``: ``tether/markers/list`` on a file with a 110 KB line after each edit of that line.
* ``deep-dict``: playground detection on a dict nested 5,000 deep.

Usage: ``python -m benchmarks.loop_stall [--scenario NAME ...] [--open-loop] [--json FILE]``. Prints figures;
asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import figures as written
from benchmarks import stall_attached, stall_common, stall_markers, stall_playground
from benchmarks.stall_common import typing_said

Figures = dict[str, Any]


def head_change() -> Figures:
    print("HEAD change recalculating 10,000 markers while typing (SQLite)")
    r = asyncio.run(stall_markers.head_change())
    print(f"  {stall_markers.said(r)}\n  {typing_said(r)}")
    return r


def team_sync() -> Figures:
    from benchmarks.team_services import Postgres

    print("Team mode: HEAD change of 10,000 markers on PostgreSQL, a teammate's server doing the same, while typing")
    try:
        pg = Postgres(max_connections=50, fsync=False)
    except SystemExit as exc:
        print(f"  skipped: {exc}")
        return {"skipped": str(exc)}
    try:
        pg.init()
        pg.start()
    except Exception as exc:
        pg.close()
        print(f"  skipped: PostgreSQL could not be started ({exc})")
        return {"skipped": str(exc)}
    try:
        r = asyncio.run(stall_markers.team_sync(pg.url))
    finally:
        pg.close()
    print(f"  {stall_markers.said(r)}\n  {typing_said(r)}")
    return r


def prompts(language: str) -> Callable[[], Figures]:
    def scenario() -> Figures:
        print(f"Prompts found again after typing pauses, 10,000-line {language} file")
        r = asyncio.run(stall_playground.prompts(language))
        print(
            f"  worst loop stall {r['worst_stall_ms']:6.1f} ms (target <= 10)   new prompt listed after "
            f"p50 {r['appeared_p50_ms']:5.0f} ms (target <= 150), max {r['appeared_max_ms']:5.0f} ms\n"
            f"  documentInfo meanwhile p50 {r['typing_p50_ms']:5.1f} ms, p99 {r['typing_p99_ms']:5.1f} ms"
        )
        return r

    return scenario


def attached_outline() -> Figures:
    print("An agent's outline of a 143 KB open file in attached mode, while the user types into it")
    r = asyncio.run(stall_attached.attached_outline())
    print(
        f"  LSP loop worst stall {r['worst_stall_ms']:6.1f} ms (target <= 20)   outline p50 "
        f"{r['outline_p50_ms']:5.0f} ms, max {r['outline_max_ms']:5.0f} ms ({r['bytes'] / 1000:.0f} KB)\n"
        f"  {typing_said(r)}"
    )
    return r


def long_line() -> Figures:
    print("tether/markers/list on a file with a 110 KB line, after each edit of that line, while typing elsewhere")
    r = asyncio.run(stall_markers.long_line())
    print(
        f"  list after the first edit {r['list_first_ms']:6.0f} ms, p50 {r['list_p50_ms']:6.0f} ms, "
        f"max {r['list_max_ms']:6.0f} ms (target <= 50)   "
        f"worst loop stall {r['worst_stall_ms']:6.1f} ms\n  {typing_said(r)}"
    )
    return r


def deep_dict() -> Figures:
    print("Playground detection on a dict nested 5,000 deep (open, then edits inside), while typing elsewhere")
    r = asyncio.run(stall_playground.deep_dict())
    print(
        f"  first detection {r['first_detection_ms']:6.0f} ms, after an edit p50 "
        f"{r['detection_after_edit_p50_ms']:6.0f} ms   worst loop stall {r['worst_stall_ms']:6.1f} ms\n"
        f"  {typing_said(r)}"
    )
    return r


SCENARIOS: dict[str, Callable[[], Figures]] = {
    "head-change": head_change,
    "prompts-python": prompts("python"),
    "prompts-yaml": prompts("yaml"),
    "attached-outline": attached_outline,
    "team-sync": team_sync,
    "long-line": long_line,
    "deep-dict": deep_dict,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="run only these (repeatable)")
    parser.add_argument("--open-loop", action="store_true", help="the typist does not wait for answers")
    parser.add_argument("--json", type=Path, help="also write the figures to this file, as JSON")
    args = parser.parse_args(argv)
    stall_common.OPEN_LOOP = args.open_loop
    logging.getLogger("pygls.protocol").setLevel(logging.ERROR)  # the notifications a scenario does not follow
    results: dict[str, Figures] = {}
    for name in args.scenario or SCENARIOS:
        results[name] = SCENARIOS[name]()
    written.write(results)


if __name__ == "__main__":
    main()
