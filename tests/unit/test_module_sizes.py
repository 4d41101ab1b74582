"""Every product module stays small enough to read in one sitting: at most ``LIMIT`` lines.

Why a test: a module past a few hundred lines has usually grown a second job, and the seam between the two is
easiest to cut while it is fresh; waiting until a review notices costs a larger split. The product is the
server runtime (``server/``), the features (``handlers/``), the package's own modules (``tether_lsp/``, whose
``server`` and ``handlers`` are links to the two folders above and are counted there, once) and the editor
clients' sources. Tests, benchmarks and scripts are not held to it.

An exemption names its reason, and is struck off once the module fits (``test_every_exemption_is_still_needed``
fails until it is), so the list only shrinks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 400

#: (folder, file suffix, whether its subfolders count): where the product's modules are.
PRODUCT = (
    ("tether_lsp", ".py", True),
    ("server", ".py", True),
    ("handlers", ".py", True),
    ("clients/vscode/src", ".ts", True),
    ("clients/nvim/lua", ".lua", True),
    ("clients/emacs", ".el", False),
)

#: Modules allowed past the limit, each with why.
EXEMPT: dict[str, str] = {
    "handlers/selectors/vocabulary.py": (
        "the selector vocabulary: the table of every selector a client can chain (name, arguments, description) "
        "beside the small functions its rows name, which the engine runs and docs/selectors.md is generated "
        "from; a row reads best next to what it calls"
    ),
}


def product_modules() -> Iterator[Path]:
    """Every product module, each once: links to folders are not followed (``tether_lsp/server`` and
    ``tether_lsp/handlers`` are the real ``server/`` and ``handlers/``; ``tether_lsp/examples`` is data)."""
    for folder, suffix, deep in PRODUCT:
        for directory, subdirs, files in os.walk(ROOT / folder, followlinks=False):
            subdirs[:] = sorted(d for d in subdirs if deep and d != "__pycache__")
            yield from (Path(directory, name) for name in sorted(files) if name.endswith(suffix))


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_scan_finds_every_kind_of_product_module_and_counts_the_linked_folders_once() -> None:
    found = {path.relative_to(ROOT).as_posix() for path in product_modules()}
    for expected in (
        "tether_lsp/compose.py",
        "tether_lsp/mcp/server.py",
        "server/app.py",
        "server/storage/database.py",
        "handlers/markers/lsp.py",
        "clients/vscode/src/extension.ts",
        "clients/nvim/lua/tether/init.lua",
        "clients/emacs/tether.el",
    ):
        assert expected in found
    assert not any(path.startswith(("tether_lsp/server/", "tether_lsp/handlers/")) for path in found)
    assert len(found) > 150


def test_no_product_module_is_over_the_limit() -> None:
    over = {
        relative: count
        for path in product_modules()
        if (relative := path.relative_to(ROOT).as_posix()) not in EXEMPT and (count := line_count(path)) > LIMIT
    }
    assert not over, "\n".join(
        [f"modules over {LIMIT} lines (split them along their seams):"]
        + [f"  {path}: {count}" for path, count in sorted(over.items(), key=lambda item: -item[1])]
    )


def test_every_exemption_is_still_needed() -> None:
    fits = [path for path in EXEMPT if not (ROOT / path).exists() or line_count(ROOT / path) <= LIMIT]
    assert not fits, f"these fit now (or are gone): strike them off EXEMPT: {fits}"
