"""``act``: a structural action (remove, clone, swap, move, bring, moveUp, moveDown, insert, wrap, unwrap) on node
ids or ranges of ``base_version``. The action is the actions service's, the one every front calls
(``handlers/actions/service.py``), run on the base version's text and tree; its replacements, spans of that base,
go through ``edit``'s own placement and write (:func:`.edit.place_and_write`): carried onto the file as it is now,
all or none, into the editor's buffer in attached mode. This adapter only converts: arguments to nodes, the
outcome to span targets, the written spans to the ranges the action produced."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from tree_sitter import Node

from tether_lsp.handlers.actions import service
from tether_lsp.handlers.actions.model import ActionRefused, Outcome
from tether_lsp.handlers.actions.settings import ActionSettings
from tether_lsp.handlers.edits.service import Target, Written
from tether_lsp.server.errors import InvalidParams

from .args import Json, integer, range_of, span
from .context import Answer, Context
from .edit import base_of, place_and_write, written_answer
from .files import FileText

#: Longest line of produced text the text rendering shows.
SHOWN = 120


class _Action:
    """One call's action: its outcome on a base version (made once, though the write may place it again)."""

    def __init__(self, context: Context, request: service.Request, targets: list[Any], destination: Any) -> None:
        self.context, self.request, self.targets, self.destination = context, request, targets, destination
        self.outcome: Outcome | None = None

    def source(self, file: FileText, field: str) -> service.Source:
        parsed = self.context.trees.parsed(file, field)
        return service.Source(parsed.language, file.text, parsed.tree)

    def nodes(self, file: FileText, source: service.Source, given: Sequence[Any], field: str) -> list[Node]:
        """The node each id names in ``file``'s version, or the smallest named node holding each range."""
        out = []
        parsed = self.context.trees.parsed(file)
        for k, value in enumerate(given):
            where = f"{field}[{k}]" if field == "targets" else field
            if isinstance(value, dict):
                start, end = span(self.context.lines(file), value, where)
                root = source.tree.root_node
                out.append(root.named_descendant_for_byte_range(start, end) or root)
                continue
            node = parsed.ids.node(parsed.tree, integer(value, where, 0))
            if node is None:
                raise InvalidParams(
                    where,
                    f"node {value} is not a node of {file.shown} at version {file.version} (node ids name the nodes "
                    "of one version: outline or select again, or give the version they came from)",
                    kind="staleNode",
                )
            out.append(node)
        return out

    def refused(self, exc: ActionRefused) -> InvalidParams:
        return InvalidParams(exc.field, f"{self.request.action} refused: {exc.reason}", kind="actionRefused")

    def here(self, base: FileText) -> Iterator[tuple[str, Target]]:
        """The action inside one file: targets and destination in its base version."""
        if self.outcome is None:
            source = self.source(base, "path")
            targets = self.nodes(base, source, self.targets, "targets")
            places = self.nodes(base, source, [self.destination], "destination") if self.destination is not None else []
            try:
                self.outcome = service.perform(source, self.request, targets, places)
            except ActionRefused as exc:
                raise self.refused(exc) from None
        yield from _targets(self.outcome)

    def into(self, origin: FileText, goal: FileText) -> Iterator[tuple[str, Target]]:
        """A bring from ``origin`` (at its base version) to the destination in ``goal``'s base version."""
        if self.outcome is None:
            source = self.source(origin, "path")
            targets = self.nodes(origin, source, self.targets, "targets")
            goal_source = self.source(goal, "destination_path")
            places = self.nodes(goal, goal_source, [self.destination], "destination")
            try:
                _, self.outcome = service.perform_across(source, self.request, targets, goal_source, places)
            except ActionRefused as exc:
                raise self.refused(exc) from None
        yield from _targets(self.outcome)


def _targets(outcome: Outcome) -> Iterator[tuple[str, Target]]:
    """Each replacement as an edit of the base: its byte span and new text."""
    for k, r in enumerate(outcome.replaces):
        yield f"changes[{k}]", Target(str(k), r.text.decode("utf-8"), span=(r.start, r.end))


def produced_spans(outcome: Outcome, written: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    """The outcome's produced spans (in the base with its replacements made) in the text written, where each
    replacement ``k`` landed at ``written[k]``: a produced span lies in a replacement's text (an empty one at the
    start of a removal), at the same offset in what was written there."""
    starts, delta = [], 0
    for r in outcome.replaces:
        starts.append(r.start + delta)
        delta += len(r.text) - (r.end - r.start)
    out = []
    for p0, p1 in outcome.produced:
        k = next(
            (k for k, r in enumerate(outcome.replaces) if starts[k] <= p0 and p1 <= starts[k] + len(r.text)),
            None,
        )
        if k is None:  # not made by the action (the engines never answer so): the nearest replacement's end
            k = max((k for k in range(len(starts)) if starts[k] <= p0), default=0)
        lo, hi = written[k]
        out.append((min(lo + p0 - starts[k], hi), min(lo + p1 - starts[k], hi)))
    return out


def act(
    context: Context,
    *,
    path: str,
    base_version: str,
    action: str,
    targets: list[Any],
    destination: Any = None,
    destination_path: str | None = None,
    destination_version: str | None = None,
    after: bool = True,
    wrapper: str | None = None,
    placeholder: str | None = None,
) -> Answer:
    limit = context.settings.section(ActionSettings).maxTargets
    named = len(targets) + (destination is not None)
    if named > limit:
        raise InvalidParams("targets", f"{named} targets named, more than tether.actions.maxTargets ({limit})")
    doing = _Action(context, service.Request(action, after, wrapper, placeholder), targets, destination)
    origin = context.load(path)
    goal = context.load(destination_path, "destination_path") if destination_path is not None else origin
    if goal.path == origin.path:
        if destination_version is not None and destination_version != base_version:
            raise InvalidParams(
                "destination_version", "a destination in the same file is read in base_version: leave this out"
            )
        done = place_and_write(context, path, base_version, doing.here, "targets")
        return _answer(context, doing, done, base_version)
    if destination is None:
        raise InvalidParams("destination", "missing: the node id or range in destination_path to bring the targets to")
    if action == "move":
        raise InvalidParams(
            "destination_path",
            "move into another file would write two files, which cannot be written all or none: bring the targets "
            "there, then remove them here (two calls)",
            kind="actionRefused",
        )
    origin_base = base_of(context, origin, base_version)
    into = destination_version if destination_version is not None else goal.version
    done = place_and_write(
        context, destination_path or path, into, lambda goal_base: doing.into(origin_base, goal_base), "destination"
    )
    return _answer(context, doing, done, into)


def _answer(context: Context, doing: _Action, done: Written[FileText], base_version: str) -> Answer:
    """``edit``'s answer, with the ranges the action produced in the version written."""
    answer = written_answer(context, done, base_version, label="changes")
    assert doing.outcome is not None
    produced: list[Json] = []
    text = [f"{doing.request.action}: {answer.text}"]
    if done.wrote is not None and done.change is not None:
        lines = context.lines(done.wrote)
        for start, end in produced_spans(doing.outcome, done.change.spans):
            produced.append(range_of(lines, start, end))
            r = produced[-1]
            at = f"{r['start']['line']}:{r['start']['column']}"
            if start == end:
                text.append(f"cursor at {at}")
                continue
            body = done.wrote.text[start:end].decode("utf-8").splitlines()
            more = " …" if len(body) > 1 or len(body[0]) > SHOWN else ""
            text.append(f"produced {at}-{r['end']['line']}:{r['end']['column']}  {body[0][:SHOWN]}{more}")
    return Answer({**answer.structured, "produced": produced}, "\n".join(text))
