"""A comment that sends the reader to a section of the user docs (``docs/edits.md, "Placing an edit"``) names a
section that exists: a heading of that file starting with the cited words."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Where the code that cites the docs lives (clients' sources, not their dependencies).
FOLDERS = (
    "server",
    "handlers",
    "tether_lsp",
    "tests",
    "benchmarks",
    "scripts",
    "clients/vscode/src",
    "clients/nvim",
    "clients/emacs",
)
SUFFIXES = {".py", ".ts", ".lua", ".el"}
CITATION = re.compile(r'(docs/[\w/-]+\.md),? +"([^"\n]+)"')


def headings(doc: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in doc.read_text(encoding="utf-8").splitlines() if line.startswith("#")]


def citations() -> list[tuple[str, str, str]]:
    """(where, document, section) of every citation of a docs section."""
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or "node_modules" in path.parts or not path.is_file():
                continue
            if path.resolve() != path:
                continue  # reached through a link (tether_lsp/server is server/): read where it lives
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for doc, section in CITATION.findall(line):
                    found.append((f"{path.relative_to(ROOT)}:{number}", doc, section))
    return found


def test_every_cited_section_exists() -> None:
    cited = citations()
    assert len(cited) > 20  # the pattern still finds the citations the code makes
    missing = [
        f"{where}: {doc}, {section!r}"
        for where, doc, section in cited
        if not (ROOT / doc).is_file() or not any(h.startswith(section) for h in headings(ROOT / doc))
    ]
    assert not missing, "cited sections that do not exist:\n" + "\n".join(missing)
