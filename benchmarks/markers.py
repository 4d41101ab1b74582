"""Marker location calculator benchmark (MARKERS.md target: 1,000 markers in a 10,000-line file, buffer
recalculation after a 500-line change, p50 <= 30 ms). In-process; the LSP path lands with the rest of
issue 4. Prints figures only."""

from __future__ import annotations

import random
import time

from benchmarks.corpus import python_file
from benchmarks.syntax import row
from handlers.markers.calculator import Location, calculate, split_lines


def main() -> None:
    text = python_file()
    lines = split_lines(text)
    rnd = random.Random(1)
    markers = {}
    for n in range(1000):
        a = rnd.randrange(1, len(lines) - 10)
        b = a + rnd.randrange(0, 8)
        markers[f"m{n}"] = Location(a, 1, b, len(lines[b - 1]) + 1)
    times = []
    for run in range(7):
        edited = list(lines)
        at = 500 + run * 1000
        edited[at : at + 250] = [f"    changed_{run}_{k} = {k}  # édité" for k in range(250)]  # 250 replaced
        edited[at + 3000 : at + 3000] = [f"added_{k} = 1" for k in range(250)]  # + 250 inserted
        new = "\n".join(edited)
        t = time.perf_counter()
        result = calculate(text, new, markers)
        times.append((time.perf_counter() - t) * 1000)
    missing = sum(1 for r in result.values() if r.location is None)
    print(f"Markers: {len(markers)} markers, {len(lines):,}-line file, a 500-line change ({missing} missing)")
    row("recalculate all markers (diff + match + columns)", times)


if __name__ == "__main__":
    main()
