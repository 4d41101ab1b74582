"""Comments, docstrings and test names explain themselves: none cites a text a user of the repository cannot read.

The team's design documents and its issue tracker live outside the repository, so "as the tie rule of the
markers design says" or "see issue 12" tells a reader nothing; the comment must state the rule or the
behaviour itself. ``docs/*.md`` is inside the repository and may be cited freely (``test_docs.py`` checks that
its links resolve). Each pattern below is written to catch only such citations, not the ordinary words that
share their letters (a random seed, a shell ``trap``, a diff's ``B1`` line); ``test_the_patterns_*`` pins both.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Every folder with code, tests, benchmarks, client code or examples.
FOLDERS = ("server", "handlers", "tether_lsp", "tests", "benchmarks", "clients", "scripts", "examples")
#: Python, Lua, Emacs Lisp, TypeScript and JavaScript modules, shell scripts, and the clients' READMEs.
SUFFIXES = frozenset({".py", ".lua", ".el", ".ts", ".mjs", ".js", ".sh", ".md"})
#: Installed packages, compiled or bundled output and caches: not written by the project.
SKIPPED_DIRS = frozenset({"node_modules", "out", "build", "dist", "__pycache__", ".vscode-test", ".mypy_cache"})

#: (what it catches, pattern).
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "a design document by name (upper-case; the lower-case docs/*.md are the repository's own)",
        re.compile(
            r"\b(?:AGENTS|PROTOCOL|ARCHITECTURE|MARKERS|PLAYGROUND|REPLACEMENT|SELECTORS|EDITS|STYLE|TESTING"
            r"|CLIENTS)[.]md\b"
        ),
    ),
    ("a design document's folder", re.compile(r"shared/(?:design|seeds)\b|\bdesign docs?\b")),
    ("a section number of a document", re.compile("\u00a7")),
    (
        "the seed document (not a random seed: only its possessive, 'seed doc', 'the seed (', 'seed scenario')",
        re.compile(r"\bthe seed's\b|\bseed docs?\b|\bthe seed \(|seed[ _]scenario", re.IGNORECASE),
    ),
    (
        "a trap of the replacement design by its label ('trap B5', '(B2)', '# B4:', a test name ending in '_b8';"
        " not a line named B1 in data)",
        re.compile(r"\btraps? B\d|\(B\d+\)|#\s*B\d+:|\bdef test\w*_b\d+\("),
    ),
    ("a number in the team's tracker", re.compile(r"\b[Ii]ssues? ?#?\d+\b")),
)


def _sources() -> list[Path]:
    """Every file to scan but this one, whose examples below are citations on purpose."""
    found = []
    for folder in FOLDERS:
        for directory, subdirs, files in os.walk(ROOT / folder):
            subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS)
            paths = (Path(directory, name) for name in sorted(files))
            found += [p for p in paths if p.suffix in SUFFIXES and p != Path(__file__).resolve()]
    return found


def citations(text: str) -> list[tuple[int, str, str]]:
    """(line number, what it cites, the line) for every line of ``text`` that cites a text outside the repo."""
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in PATTERNS:
            if pattern.search(line):
                hits.append((number, what, line.strip()))
                break
    return hits


def test_no_comment_docstring_or_test_name_cites_a_text_outside_the_repository() -> None:
    sources = _sources()
    assert len(sources) > 300, "the scan found too few files: folders or suffixes are wrong"
    hits = [
        f"{path.relative_to(ROOT)}:{number}: {line}  [{what}]"
        for path in sources
        for number, what, line in citations(path.read_text(encoding="utf-8", errors="replace"))
    ]
    if hits:
        pytest.fail(f"{len(hits)} citations; state what is meant instead:\n" + "\n".join(hits), pytrace=False)


@pytest.mark.parametrize(
    "line",
    [
        "# the tie rule of MARKERS.md",
        '"""The wire shape of PROTOCOL.md \u00a74."""',
        "Targets (issue 3): p50 <= 15 ms",
        "-- Issue 36, item 1, as a Neovim user meets it",
        "// issue #12: the rewrite",
        "def test_the_seed_scenario_on_the_wire():",
        "a scalar (the seed doc's indent rule)",
        "as the seed (004) describes",
        "the seed's test list",
        "keeps the old decorators (trap B5)",
        "the traps B1-B10",
        "the blank line right above is absorbed (B2)",
        "    # B2: the edit starts on the blank cursor line",
        "def test_an_identical_completion_is_a_no_op_b8() -> None:",
        "see /work/shared/design/EDITS.md",
    ],
)
def test_the_patterns_catch_each_kind_of_citation(line: str) -> None:
    assert citations(line), line


@pytest.mark.parametrize(
    "line",
    [
        "rnd = random.Random(seed)",
        "count = seed_markers(root, names, per_file)",
        'parser.add_argument("--seed", type=int, default=16)',
        "print(f'{len(sample)} commit pairs (seed {SEED})')",
        "options: { temperature: 1, seed: 7 }",
        "seed = tmp_path / 'seed'",
        "self._submit(self._reseed, listed)",
        "trap 'rm -rf \"$reports\"' EXIT",
        '(["a1", "s", "s2", "b1"], ["A1", "s", "s2", "B1"])',
        "the protocol is described in docs/protocol.md and docs/agents.md",
        "schema step 4 adds the repo column",
        "what the marker tracker asks git",
        "def test_random_incremental_edits_utf8(utf8_client, seed: int) -> None:",
    ],
)
def test_the_patterns_leave_ordinary_words_alone(line: str) -> None:
    assert citations(line) == [], line
