"""Run every action on every target of one file and count what came of it (the worker's side of
``benchmarks.actions_corpus``)."""

from __future__ import annotations

import ast
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from tree_sitter import Node, Parser, Tree

from benchmarks.actions_corpus_check import ast_verdict, expectation_is_python, node_at, reparse, short_diff
from benchmarks.actions_corpus_expect import ACTIONS
from benchmarks.actions_corpus_targets import FileIndex, Target, index_file, targets
from tether_lsp.handlers.actions.model import ActionRefused, Outcome, applied
from tether_lsp.server.syntax import language_by_name

#: Examples kept per (action, kind, category) in one file's report.
EXAMPLES = 3


class Engine(Protocol):
    """The engine's generic actions, as the corpus calls them (a test may hand in a broken one)."""

    def member(self, source: bytes, node: Node) -> Any: ...
    def remove(self, source: bytes, member: Any) -> Outcome: ...
    def clone(self, source: bytes, member: Any) -> Outcome: ...
    def swap(self, source: bytes, a: Any, b: Any) -> Outcome: ...
    def move_up(self, source: bytes, member: Any) -> Outcome: ...


class TetherEngine:
    """handlers/actions: ``members.member_of`` and ``actions.remove/clone/swap/move_by``."""

    def __init__(self) -> None:
        from tether_lsp.handlers.actions import actions, members

        self.actions, self.members = actions, members

    def member(self, source: bytes, node: Node) -> Any:
        return self.members.member_of("python", source, node)

    def remove(self, source: bytes, member: Any) -> Outcome:
        return self.actions.remove(source, [member])

    def clone(self, source: bytes, member: Any) -> Outcome:
        return self.actions.clone(source, [member], after=True)

    def swap(self, source: bytes, a: Any, b: Any) -> Outcome:
        return self.actions.swap(source, a, b)

    def move_up(self, source: bytes, member: Any) -> Outcome:
        return self.actions.move_by(source, member, -1)


@dataclass
class Report:
    """Counts keyed ``action|kind|what`` and a few examples of each failure."""

    counts: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    unmatched: Counter[str] = field(default_factory=Counter)
    engine_ms: list[float] = field(default_factory=list)

    def add(self, action: str, kind: str, what: str, n: int = 1) -> None:
        self.counts[f"{action}|{kind}|{what}"] += n

    def fail(
        self, action: str, kind: str, what: str, path: str, line: int, detail: str, diff: _Diff | str = ""
    ) -> None:
        self.add(action, kind, what)
        kept = self.examples.setdefault(f"{action}|{kind}|{what}", [])
        if len(kept) < EXAMPLES:
            kept.append({"where": f"{path}:{line}", "detail": detail, "diff": str(diff)})

    def merge(self, other: Report) -> None:
        self.counts += other.counts
        self.refusals += other.refusals
        self.skipped += other.skipped
        self.unmatched += other.unmatched
        self.engine_ms += other.engine_ms
        for key, kept in other.examples.items():
            mine = self.examples.setdefault(key, [])
            mine += kept[: max(0, EXAMPLES - len(mine))]


class _Diff:
    """A short diff, made only when a failure is kept."""

    def __init__(self, old: bytes, new: bytes) -> None:
        self.old, self.new = old, new

    def __str__(self) -> str:
        return short_diff(self.old, self.new)


class FileRun:
    """One file: its trees, its targets, and the engine."""

    def __init__(self, path: str, source: bytes, module: ast.Module, tree: Tree, engine: Engine, report: Report):
        self.path, self.source, self.tree, self.engine, self.report = path, source, tree, engine, report
        self.parser = Parser(language_by_name("python").language)
        self.index: FileIndex = index_file(source, module, tree.root_node)
        self.verify_every, self.count = 0, 0

    def run(self, verify_every: int = 0) -> None:
        self.verify_every = verify_every
        for target in targets(self.index, self.tree.root_node):
            for action in ACTIONS:
                if action == "swap" and target.index + 1 >= len(target.siblings):
                    continue
                if action == "moveUp" and target.index == 0:
                    continue
                self.one(target, action)
        self.report.unmatched.update(self.index.unmatched)

    def act(self, action: str, source: bytes, node: Node, other: Node | None) -> tuple[Outcome, list[Any]]:
        """The engine's outcome and the members it acted on."""
        member = self.engine.member(source, node)
        if action == "remove":
            return self.engine.remove(source, member), [member]
        if action == "clone":
            return self.engine.clone(source, member), [member]
        if action == "swap":
            assert other is not None
            second = self.engine.member(source, other)
            return self.engine.swap(source, member, second), [member, second]
        return self.engine.move_up(source, member), [member]

    def one(self, target: Target, action: str) -> None:
        kind, line = target.kind, target.node.start_point[0] + 1
        self.report.add(action, kind, "tried")
        other = target.siblings[target.index + 1] if action == "swap" else None
        started = time.perf_counter()
        try:
            outcome, members = self.act(action, self.source, target.node, other)
        except ActionRefused as refused:
            self.refused(target, action, refused)
            return
        except Exception as error:  # an engine crash is a failure to list, not the end of the run
            self.report.fail(action, kind, "crash", self.path, line, _last_frame(error))
            return
        self.report.engine_ms.append((time.perf_counter() - started) * 1000)
        new = applied(self.source, outcome.replaces)
        verdict = ast_verdict(self.index, target, action, outcome.replaces, new)
        # swap and clone need the new text's tree for their round trip: tree-sitter judges the whole file; remove
        # and moveUp are judged on the piece the ast was (the whole file when the piece did not do).
        whole = verdict.piece is None or action in ("swap", "clone") or self.sampled()
        new_tree = reparse(self.parser, self.tree, self.index.line_starts, outcome.replaces, new) if whole else None
        checked = new_tree if new_tree is not None else self.parser.parse(verdict.piece or b"")
        diff = _Diff(self.source, new)
        if verdict.kind == "notPython":
            self.report.fail(action, kind, "notRefused", self.path, line, f"expected a refusal: {verdict.detail}", diff)
            if not checked.root_node.has_error and _parses(new):
                self.report.add(action, kind, "valid")
            return
        if checked.root_node.has_error:
            self.report.fail(action, kind, "invalid", self.path, line, "tree-sitter: " + _error_node(checked), diff)
            return
        if verdict.kind == "invalid":
            self.report.fail(action, kind, "invalid", self.path, line, verdict.detail, diff)
            return
        self.report.add(action, kind, "valid")
        if verdict.kind == "unequal":
            self.report.fail(action, kind, "unequal", self.path, line, verdict.detail, diff)
        else:
            self.report.add(action, kind, "equal")
            if self.sampled():
                self.verify(target, action, outcome, new, new_tree)
        if action in ("swap", "clone"):
            assert new_tree is not None
            self.round_trip(target, action, outcome, members, new, new_tree, diff)
        self.count += 1

    def sampled(self) -> bool:
        return bool(self.verify_every) and self.count % self.verify_every == self.verify_every - 1

    def refused(self, target: Target, action: str, refused: ActionRefused) -> None:
        if not expectation_is_python(self.index, target, action):
            self.report.add(action, target.kind, "refusedRightly")
            return
        self.report.add(action, target.kind, "refused")
        self.report.refusals[f"{action}|{target.kind}|{refused.reason}"] += 1
        line = target.node.start_point[0] + 1
        kept = self.report.examples.setdefault(f"{action}|{target.kind}|refused", [])
        if len(kept) < EXAMPLES:
            kept.append({"where": f"{self.path}:{line}", "detail": f"{refused.field}: {refused.reason}", "diff": ""})

    def verify(self, target: Target, action: str, outcome: Outcome, new: bytes, tree: Tree | None) -> None:
        """A sample of the passes judged again on the whole file by both parsers: the pieces must agree."""
        self.report.add(action, target.kind, "verified")
        full = ast_verdict(self.index, target, action, outcome.replaces, new, full=True)
        if full.kind != "equal" or tree is None or tree.root_node.has_error:
            line = target.node.start_point[0] + 1
            self.report.fail(action, target.kind, "windowDisagrees", self.path, line, full.detail or "tree-sitter")

    def round_trip(
        self, target: Target, action: str, outcome: Outcome, members: list[Any], new: bytes, tree: Tree, diff: _Diff
    ) -> None:
        """swap twice, clone then remove: the original bytes again."""
        kind, line = target.kind, target.node.start_point[0] + 1
        self.report.add(action, kind, "roundTripTried")
        originals = [target.node] + ([target.siblings[target.index + 1]] if action == "swap" else [])
        found = _produced_nodes(self.source, new, tree, outcome, originals, members, action)
        if isinstance(found, str):
            self.report.fail(action, kind, "roundTripFails", self.path, line, found, diff)
            return
        try:
            back, _ = self.act("swap" if action == "swap" else "remove", new, found[0], found[-1])
        except Exception as error:
            self.report.fail(
                action, kind, "roundTripFails", self.path, line, "second action: " + _last_frame(error), diff
            )
            return
        again = applied(new, back.replaces)
        if again == self.source:
            self.report.add(action, kind, "roundTrip")
        else:
            self.report.fail(
                action, kind, "roundTripFails", self.path, line, "not the original text", _Diff(self.source, again)
            )


def _produced_nodes(
    source: bytes, new: bytes, tree: Tree, outcome: Outcome, originals: list[Node], members: list[Any], action: str
) -> list[Node] | str:
    """The nodes the action produced, found in the new tree at the produced spans (each original node sits at the
    same offset inside its member's span as before)."""
    wanted = originals if action == "swap" else originals[:1]
    spans = list(outcome.produced)
    if len(spans) < len(wanted):
        return f"{len(spans)} produced spans for {len(wanted)} members"
    found: list[Node] = []
    for node, member in zip(wanted, members, strict=True):
        text = source[node.start_byte : node.end_byte]
        head, tail = node.start_byte - member.span[0], member.span[1] - node.end_byte
        hits = [
            hit
            for start, end in spans
            if end - start == head + len(text) + tail
            and new[start + head : end - tail] == text
            and (hit := node_at(tree, start + head, end - tail, node.type)) is not None
        ]
        if not hits:
            return f"no {node.type} at the produced spans {spans}"
        found.append(hits[-1] if action == "clone" or node is not wanted[0] else hits[0])
    if action == "swap":
        found.sort(key=lambda n: n.start_byte)
    return found


def _parses(text: bytes) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _error_node(tree: Tree) -> str:
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return f"{'MISSING' if node.is_missing else 'ERROR'} at line {node.start_point[0] + 1}"
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return "error"


def _last_frame(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    return f"{type(error).__name__}: {error}{where}"


def check_source(path: str, source: bytes, engine: Engine, report: Report, verify_every: int = 0) -> None:
    """Every action on every target of one file, counted into ``report`` (a file that is not taken is counted
    in ``report.skipped`` with why)."""
    with warnings.catch_warnings():  # the corpus's invalid escapes would warn on every parse of a piece
        warnings.simplefilter("ignore")
        _check_source(path, source, engine, report, verify_every)


def _check_source(path: str, source: bytes, engine: Engine, report: Report, verify_every: int) -> None:
    reason = _not_taken(source)
    if reason:
        report.skipped[reason] += 1
        return
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        report.skipped["not Python 3.11 (ast.parse fails)"] += 1
        return
    tree = Parser(language_by_name("python").language).parse(source)
    if tree.root_node.has_error:
        report.skipped["tree-sitter finds an error in the original"] += 1
        return
    FileRun(path, source, module, tree, engine, report).run(verify_every)


def _not_taken(source: bytes) -> str:
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    if source.startswith(b"\xef\xbb\xbf"):
        return "starts with a byte-order mark"
    if source.count(b"\r") != source.count(b"\r\n"):
        return "a lone carriage return"
    return ""


EngineFactory = Callable[[], Engine]
