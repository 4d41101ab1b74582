"""Real history for benchmarks: the click project's git bundle (``../shared/data/click.bundle``, or the
bundle ``TETHER_BENCH_BUNDLE`` names), or this checkout's own git history when there is no bundle.

Clones the bundle once into ``.cache/<bundle name>`` (ignored; ``TETHER_BENCH_CACHE`` moves it), lists
first-parent commits, reads files at commits through one ``git cat-file --batch`` and finds Python
definitions by qualified name with tree-sitter, so the replacement, inline-edit and markers benchmarks build
their cases from the same code.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import os
import random
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from tree_sitter import Node

from tether_lsp.server.syntax import parse_text

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT.parent / "shared" / "data" / "click.bundle"


@dataclass(frozen=True)
class Source:
    """Where the history a benchmark replays comes from."""

    kind: str  # "bundle" (cloned from it), "earlier clone" (of a bundle now gone), "checkout" (its own), "repo"
    repository: Path  # the repository replayed
    bundle: Path | None  # the bundle looked for (None for a repository given with --repo)

    def said(self) -> str:
        if self.kind == "bundle":
            return f"history: the bundle {self.bundle}"
        if self.kind == "earlier clone":
            return f"history: the earlier clone {self.repository}"
        if self.kind == "checkout":
            return f"history: this checkout's own git history ({self.repository}); {self.bundle} is missing"
        return f"history: {self.repository}"

    def figures(self) -> dict[str, str | None]:
        bundle = None if self.bundle is None else str(self.bundle)
        return {"kind": self.kind, "repository": str(self.repository), "bundle": bundle}


def source() -> Source:
    """The history the benchmarks replay: the bundle cloned (reused across runs), else an earlier clone of it,
    else this checkout's own history."""
    bundle = Path(os.environ.get("TETHER_BENCH_BUNDLE") or BUNDLE)
    target = Path(os.environ.get("TETHER_BENCH_CACHE") or ROOT / ".cache") / bundle.stem
    if bundle.exists() or (target / ".git").exists():
        if not (target / ".git").exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                ["git", "-c", "advice.detachedHead=false", "clone", "-q", str(bundle), str(target)], check=True
            )
        return Source("bundle" if bundle.exists() else "earlier clone", target, bundle)
    own = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if own.returncode != 0 or Path(own.stdout.strip()).resolve() != ROOT:
        raise SystemExit(f"{bundle} is missing and {ROOT} is not a git checkout: give a repository with --repo DIR")
    return Source("checkout", ROOT, bundle)


def clone() -> Path:
    """The repository of :func:`source`, which is said on stdout."""
    found = source()
    print(found.said())
    return found.repository


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def first_parent(repo: Path) -> list[str]:
    """Commits of the first-parent line, oldest first."""
    return git(repo, "rev-list", "--first-parent", "--reverse", "HEAD").split()


def changed_python(repo: Path, old: str, new: str) -> list[tuple[str, str]]:
    """``(old path, new path)`` of the Python files modified or renamed between two commits (not added/deleted)."""
    out = []
    for line in git(repo, "diff", "--name-status", "-M", old, new, "--", "*.py").splitlines():
        status, *paths = line.split("\t")
        if status == "M":
            out.append((paths[0], paths[0]))
        elif status.startswith("R"):
            out.append((paths[0], paths[1]))
    return out


T = TypeVar("T")


@dataclass(frozen=True)
class History:
    """The commit pairs a history benchmark replays, and where they come from."""

    source: Source
    name: str
    pairs: list[tuple[str, str]]
    seed: int

    def figures(self) -> dict[str, object]:
        return {"source": self.source.figures(), "name": self.name, "commit_pairs": len(self.pairs), "seed": self.seed}


def sampled_history(description: str, commits: int, seed: int) -> History:
    """The command line of a history benchmark: the repository (``--repo``, default the click bundle, said on
    stdout), its name, and ``--commits`` commit pairs (B = A + 1 on the first-parent line) sampled with
    ``seed``."""
    parser = argparse.ArgumentParser(description=description.split("\n")[0])
    parser.add_argument(
        "--repo", type=Path, help="another git repository (default: the click bundle, else this checkout)"
    )
    parser.add_argument("--commits", type=int, default=commits, help="commit pairs sampled")
    args, _ = parser.parse_known_args()  # a benchmark may read flags of its own
    found = Source("repo", args.repo, None) if args.repo else source()
    if not args.repo:
        print(found.said())
    repo = found.repository
    pairs = list(itertools.pairwise(first_parent(repo)))
    sample = sorted(random.Random(seed).sample(range(len(pairs)), min(args.commits, len(pairs))))
    name = repo.name if repo.name != "repo" else repo.parent.name  # a fetched mirror is .../owner+name/repo
    name = "this checkout" if repo.resolve() == ROOT else name
    return History(found, name, [pairs[k] for k in sample], seed)


def sampled_pairs(description: str, commits: int, seed: int) -> tuple[Path, str, list[tuple[str, str]]]:
    """:func:`sampled_history` as (repository, name, commit pairs)."""
    history = sampled_history(description, commits, seed)
    return history.source.repository, history.name, history.pairs


def collect(
    repo: Path, pairs: list[tuple[str, str]], cases_of_commit: Callable[[Blobs, Path, str, str], Iterable[T]]
) -> list[T]:
    """Every case of every commit pair, files read through one ``git cat-file --batch``."""
    blobs = Blobs(repo)
    try:
        return [case for parent, commit in pairs for case in cases_of_commit(blobs, repo, parent, commit)]
    finally:
        blobs.close()


class Blobs:
    """Files at commits through one long-lived ``git cat-file --batch``."""

    def __init__(self, repo: Path) -> None:
        self.proc = subprocess.Popen(
            ["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def read(self, commit: str, path: str) -> bytes | None:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(f"{commit}:{path}\n".encode())
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            return None
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return data

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


@dataclass(frozen=True)
class Definition:
    """A function, method or class: its qualified name and whole lines (decorators included)."""

    name: str
    kind: str  # "function" or "class"
    start: int  # byte offset of the first line's start
    end: int  # byte offset of the end of the last line (trailing spaces included, before the newline)
    column: int
    first_row: int
    last_row: int
    scope_end: int  # end of the last line of the block (or file) that holds it
    decorated: bool

    def text(self, data: bytes) -> bytes:
        return data[self.start : self.end]


def _content_end(data: bytes, start: int, end: int) -> int:
    while end > start and data[end - 1 : end] in b" \t\r\n":
        end -= 1
    return end


def _line_end(data: bytes, offset: int) -> int:
    """The end of the line holding ``offset`` (trailing spaces included, the line break not)."""
    end = data.find(b"\n", offset)
    return len(data) if end < 0 else end


def _definitions(node: Node, prefix: str, data: bytes) -> Iterator[Definition]:
    scope_end = _content_end(data, node.start_byte, node.end_byte)
    for child in node.named_children:
        inner = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if inner is None or inner.type not in ("function_definition", "class_definition"):
            if child.type in ("block", "if_statement", "try_statement", "with_statement", "else_clause"):
                yield from _definitions(child, prefix, data)
            continue
        name_node = inner.child_by_field_name("name")
        if name_node is None or name_node.text is None:
            continue
        name = prefix + name_node.text.decode("utf-8", "replace")
        start = data.rfind(b"\n", 0, child.start_byte) + 1
        end = _line_end(data, _content_end(data, child.start_byte, child.end_byte))
        kind = "class" if inner.type == "class_definition" else "function"
        last_row = data.count(b"\n", 0, end)
        decorated = child.type == "decorated_definition"
        column, row = child.start_point.column, child.start_point.row
        yield Definition(name, kind, start, end, column, row, last_row, scope_end, decorated)
        body = inner.child_by_field_name("body")
        if body is not None:
            yield from _definitions(body, name + ".", data)


def definitions(data: bytes) -> dict[str, Definition] | None:
    """Definitions with a qualified name that is unique in the file (redefinitions are dropped); None when
    Python 3 does not compile the file (Python 2, a fragment, tabs mixed with spaces in a block), where no
    definition can be trusted."""
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    root = parse_text("python", data).root_node
    found = list(_definitions(root, "", data))
    counts = Counter(d.name for d in found)
    return {d.name: d for d in found if counts[d.name] == 1}
