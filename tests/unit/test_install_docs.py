"""The install instructions say only what works: Tether is on no package index, so every install is from a
checkout or a wheel file, and the VS Code extension names no repository that does not exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTIONS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "clients").glob("*/README.md")],
)
#: ``pip install tether-lsp``, ``pipx install 'tether-lsp[ws]'``, ``uv tool install tether-lsp``: from an index.
FROM_AN_INDEX = re.compile(r"\b(?:pipx?|uv(?: tool| pip)?)\s+install\s+(?:-\S+\s+)*['\"]?tether[-_]lsp(?![\w.-])")


def test_no_instruction_installs_tether_from_a_package_index() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in INSTRUCTIONS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FROM_AN_INDEX.search(line)
    ]
    assert found == []


def test_the_pattern_catches_index_installs_and_spares_paths_and_wheels() -> None:
    assert FROM_AN_INDEX.search("pipx install tether-lsp")
    assert FROM_AN_INDEX.search("(pip install 'tether-lsp[ws]')")
    assert FROM_AN_INDEX.search("uv tool install -q tether-lsp")
    assert not FROM_AN_INDEX.search("pipx install /path/to/tether")
    assert not FROM_AN_INDEX.search("pipx install tether_lsp-0.1.0-py3-none-any.whl")
    assert not FROM_AN_INDEX.search("pip install '/path/to/tether[ws]'")


def test_the_vscode_manifest_names_no_made_up_repository() -> None:
    manifest = json.loads((ROOT / "clients/vscode/package.json").read_text(encoding="utf-8"))
    assert "example.invalid" not in json.dumps(manifest)
    if "repository" not in manifest:
        assert "--allow-missing-repository" in manifest["scripts"]["package"]
