"""The start-up cache of attrs-generated code: the same classes, loaded instead of compiled."""

from __future__ import annotations

import json
import marshal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import server_env
from tether_lsp import code_cache
from tether_lsp.code_cache import CodeCache

PROBE = (
    "import attrs; from tether_lsp import code_cache; cache = code_cache.install(); "
    "from lsprotocol import types; cache.save(); "
    "p = types.Position(line=1, character=2); assert p == types.Position(1, 2) and p != types.Position(1, 3); "
    "assert types.Range(p, p) == types.Range(types.Position(1, 2), p); print(cache.hits, len(cache.new))"
)


def start(tmp_path: Path, **env: str) -> tuple[int, int]:
    extra = {"XDG_CACHE_HOME": str(tmp_path / "cache"), **env}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=server_env(extra))
    assert out.returncode == 0, out.stderr
    hits, new = out.stdout.split()
    return int(hits), int(new)


def test_the_second_start_loads_what_the_first_compiled(tmp_path: Path) -> None:
    hits, new = start(tmp_path)
    assert hits == 0
    assert new > 500  # lsprotocol's classes
    files = list((tmp_path / "cache").rglob("attrs-code-*.marshal"))
    assert len(files) == 1
    hits, new = start(tmp_path)
    assert hits > 500
    assert new <= 2  # at most the odd class whose generated source varies per process


def test_a_corrupt_cache_only_costs_speed(tmp_path: Path) -> None:
    start(tmp_path)
    (file,) = (tmp_path / "cache").rglob("attrs-code-*.marshal")
    file.write_bytes(b"\x00garbage")
    hits, new = start(tmp_path)  # the probe's equality checks still pass
    assert hits == 0
    assert new > 500


def test_a_wrong_entry_is_compiled_again(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / "c.marshal")
    code = cache.compile("x = 1", "<a>")
    cache.save()
    again = CodeCache(tmp_path / "c.marshal")
    (key,) = again.known
    again.known[key] = marshal.dumps("not code")
    assert again.compile("x = 1", "<a>").co_filename == code.co_filename
    assert again.hits == 0


def test_it_can_be_turned_off(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", "from tether_lsp import code_cache; print(code_cache.install())"],
        capture_output=True,
        text=True,
        env=server_env({"TETHER_CODE_CACHE": "0", "XDG_CACHE_HOME": str(tmp_path)}),
    )
    assert out.stdout.strip() == "None"


DATACLASS_PROBE = """
import dataclasses, json
from tether_lsp import code_cache
cache = code_cache.install()
hits = cache.hits if cache else 0
fields = [("x", int), ("y", "tuple[int, ...]", dataclasses.field(default_factory=tuple))]
P = dataclasses.make_dataclass("P", fields, frozen=True, order=True)
p, q = P(1), P(1, (2,))
assert p == P(1) and p < q and hash(p) == hash(P(1)) and repr(q) == "P(x=1, y=(2,))"
try:
    p.x = 2
    raise AssertionError("not frozen")
except dataclasses.FrozenInstanceError:
    pass
if cache:
    cache.save()
used = {"hits": cache.hits - hits, "new": len(cache.new)} if cache else {}
print(json.dumps({**used, "init": str(P.__init__.__annotations__)}))
"""


def dataclass_start(tmp_path: Path, **env: str) -> dict[str, object]:
    extra = {"XDG_CACHE_HOME": str(tmp_path / "cache"), **env}
    out = subprocess.run([sys.executable, "-c", DATACLASS_PROBE], capture_output=True, text=True, env=server_env(extra))
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


def test_the_methods_dataclasses_write_are_loaded_the_second_time_and_behave_the_same(tmp_path: Path) -> None:
    """Tether's modules define some 200 dataclasses at start-up: their generated methods come from the cache too,
    compiled exactly as ``dataclasses`` compiles them (the same annotations, equality, order, hash, repr)."""
    first = dataclass_start(tmp_path)
    assert first["hits"] == 0
    assert int(str(first["new"])) >= 5  # __init__, __repr__, __eq__, the order methods, __hash__, __setattr__...
    second = dataclass_start(tmp_path)
    assert second["hits"] == first["new"]
    uncached = dataclass_start(tmp_path, TETHER_CODE_CACHE="0")
    assert second["init"] == first["init"] == uncached["init"]  # "tuple[int, ...]" stays a string, int stays the type


@pytest.mark.parametrize("xdg", [None, "", "  ", "/somewhere/cache"])
def test_the_cache_folder_is_platformdirs_user_cache_folder(xdg: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read without importing platformdirs on Linux (it imports tempfile and more), and the same folder."""
    import platformdirs

    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert code_cache.user_cache_dir() == Path(platformdirs.user_cache_dir("tether-lsp"))
    assert code_cache.cache_file().parent == code_cache.user_cache_dir()
