"""A HEAD change asks only for the units around a file's markers (``structure.Wanted``): the walk skips the
definitions that hold no marker's row and lead to no covered unit's name, and following markers gives what it gave
with every unit of both texts."""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether_lsp.handlers.markers import structure
from tether_lsp.handlers.markers.calculator import Location, split_lines
from tether_lsp.handlers.markers.line_map import LineMap
from tether_lsp.handlers.markers.reparse import parse

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SAMPLE = [STDLIB / name for name in ("argparse.py", "dataclasses.py", "json/decoder.py", "asyncio/tasks.py")]


def every_unit_too(patch: pytest.MonkeyPatch) -> None:
    """``units_of`` made to return every unit whatever is wanted (the previous follow)."""
    real = structure.units_of
    patch.setattr(structure, "units_of", lambda language, tree, data, wanted=None: real(language, tree, data))


def markers(text: str, rnd: random.Random) -> dict[str, Location]:
    """Markers on whole units (decorators in or not, to the line's end or the next line's start) and anywhere."""
    lines = split_lines(text)
    found = structure.units("python", text) or []
    out: dict[str, Location] = {}
    for n, unit in enumerate(rnd.sample(found, min(40, len(found)))):
        first = unit.first if n % 2 else unit.own_first
        end = Location(first + 1, 1, unit.last + 2, 1) if n % 3 == 0 else None
        out[f"u{n}"] = end or Location(first + 1, 1, unit.last + 1, len(lines[unit.last]) + 1)
    for n in range(20):
        a = rnd.randrange(1, len(lines))
        b = min(len(lines), a + rnd.randrange(0, 8))
        out[f"r{n}"] = Location(a, 1, b, len(lines[b - 1]) + 1)
    return out


def changed(text: str, rnd: random.Random) -> str:
    """Lines added at the top, a block rewritten, a definition renamed, lines gone, top-level definitions moved to
    the end: what a commit does."""
    lines = split_lines(text)
    at = rnd.randrange(len(lines))
    lines[at : at + rnd.randrange(1, 12)] = [f"    rewritten_{n} = {n}" for n in range(rnd.randrange(0, 12))]
    renamed = next((k for k in range(rnd.randrange(len(lines)), len(lines)) if lines[k].lstrip().startswith("def ")), 0)
    lines[renamed] = lines[renamed].replace("def ", "def renamed_", 1)
    gone = rnd.randrange(len(lines))
    del lines[gone : gone + rnd.randrange(1, 30)]
    starts = [k for k, line in enumerate(lines) if line.startswith(("def ", "class "))]
    moved = rnd.sample(starts, min(3, len(starts)))  # definitions moved to the end (found by name)
    for k in sorted(moved, reverse=True):
        end = next((j for j in range(k + 1, len(lines)) if lines[j][:1] not in ("", " ", "#")), len(lines))
        lines[k:end], lines[len(lines) :] = [], lines[k:end]
    return "\n".join([f"# header {n}" for n in range(rnd.randrange(0, 25))] + lines)


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: str(p.relative_to(STDLIB)))
@pytest.mark.parametrize("seed", range(3))
def test_following_markers_gives_what_every_unit_gave(path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    old = path.read_text(encoding="utf-8")
    new = changed(old, rnd)
    locations = markers(old, rnd)
    line_map = LineMap(split_lines(old), split_lines(new))
    got = structure.follow(old, new, locations, "python", line_map=line_map)
    with pytest.MonkeyPatch.context() as patch:
        every_unit_too(patch)
        expected = structure.follow(old, new, locations, "python", line_map=line_map)
    assert got == expected
    assert sum(1 for r in got.values() if r.reason is None and r.location is not None) > len(locations) // 2


TEXT = (STDLIB / "argparse.py").read_text(encoding="utf-8")
ALL = structure.units("python", TEXT) or []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, len(split_lines(TEXT)) + 2), max_size=6),
    st.lists(st.sampled_from(ALL), max_size=4),
    st.lists(st.sampled_from(["", "gone", "__init__", "if x:"]), max_size=2),
)
def test_the_units_wanted_are_the_units_holding_a_row_or_of_a_name(
    rows: list[int], named: list[structure.Unit], other_names: list[str]
) -> None:
    """Every unit holding a wanted row or of a wanted name is there, in the order of all units, and no other unit
    is there unless a wanted row lies in its node (a superset its users filter)."""
    names = {(*u.path, u.name) for u in named} | {(n,) for n in other_names}
    data = TEXT.encode()
    tree = parse("python", data, None)
    assert tree is not None
    got = structure.units_of("python", tree, data, structure.Wanted.of(rows, names))
    needed = [u for u in ALL if any(u.first <= r <= u.last for r in rows) or (*u.path, u.name) in names]
    assert [u for u in got if u in needed] == needed
    assert [u for u in ALL if u in got] == got  # a subsequence of every unit


def test_following_one_marker_in_a_long_module_looks_at_the_units_around_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A marker on one method of a 200-class module: the walk asks the definitions on its way and, in the new text,
    the classes' names (another ``C100.b`` would be a candidate), never what is in the other classes (the previous
    walk asked every definition, block and body of both texts)."""
    classes = [
        f"class C{n}:\n    def a(self):\n        if x:\n            pass\n\n    def b(self):\n        pass\n"
        for n in range(200)
    ]
    old = "\n\n".join(classes)
    new = "import os\n" + old.replace("def b(self):\n        pass", "def b(self):\n        return 1", 1)
    where = split_lines(old).index("class C100:") + 6  # 1-based row of C100.b
    looked: list[Any] = []
    real = structure._python_unit

    def spy(node: Any, path: tuple[str, ...], data: bytes) -> Any:
        looked.append(node)
        return real(node, path, data)

    monkeypatch.setattr(structure, "_python_unit", spy)
    got = structure.follow(old, new, {"m": Location(where, 5, where + 1, 13)}, "python")["m"]
    assert got.location == Location(where + 1, 5, where + 2, 13)
    assert len(looked) < 250
