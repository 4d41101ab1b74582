"""The start-up cache of attrs-generated code: the same classes, loaded instead of compiled."""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path

from tests.helpers import server_env
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
