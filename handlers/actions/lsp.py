"""LSP edge of structural actions: ``tether/applyAction`` and the move-up/move-down entries of
``textDocument/codeAction``. Method names, wire classes and conversions live here only; the work is
:func:`.service.perform`, which the agents' front calls too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from tether_lsp.server.errors import ContentModified, InvalidParams
from tether_lsp.server.methods import Feature, Method
from tether_lsp.server.positions import LineIndex, lsp_offset, lsp_range

from .settings import ActionSettings
from .wire import ActionDestination, ActionTargets, ApplyActionParams, ApplyActionResult

if TYPE_CHECKING:
    from tree_sitter import Node

    from tether_lsp.server.app import TetherServer
    from tether_lsp.server.syntax import Snapshot

    from .model import Outcome
    from .service import Source

#: The code action kind of moving the member at the cursor among its siblings.
MOVE_KIND = "refactor.move"


class Actions:
    """The structural actions feature's context: the server (actions keep no state between requests)."""

    def __init__(self, server: TetherServer) -> None:
        server.register_settings("actions", ActionSettings)
        self.server = server

    def apply(self, params: ApplyActionParams) -> ApplyActionResult:
        """Act on what a selector found (remove, clone, swap, move, bring, moveUp, moveDown, insert, wrap, unwrap);
        the answer is one edit and the ranges of what it produced, nothing is applied by the server."""
        from .model import ActionRefused
        from .service import Request, perform, perform_across

        limit = self.server.settings.section(ActionSettings).maxTargets
        named = _count(params.targets) + (_count(params.destination) if params.destination else 0)
        if named > limit:
            raise InvalidParams("targets", f"{named} targets named, more than tether.actions.maxTargets ({limit})")
        uri = params.text_document.uri
        snapshot = self._current(uri, params.text_document.version, "textDocument")
        source = self._source(snapshot, "textDocument")
        targets = self._nodes(snapshot, source, params.targets, "targets")
        request = Request(params.action, params.after, params.wrapper, params.placeholder)
        goal_doc = params.destination.text_document if params.destination else None
        try:
            if goal_doc is not None and goal_doc.uri != uri:
                goal = self._current(goal_doc.uri, goal_doc.version, "destination.textDocument")
                goal_source = self._source(goal, "destination.textDocument")
                assert params.destination is not None
                place = self._nodes(goal, goal_source, params.destination, "destination")
                out, into = perform_across(source, request, targets, goal_source, place)
                changes = [(goal, into)] if out is None else [(snapshot, out), (goal, into)]
                return self._result(changes)
            place = self._nodes(snapshot, source, params.destination, "destination") if params.destination else []
            return self._result([(snapshot, perform(source, request, targets, place))])
        except ActionRefused as exc:
            raise InvalidParams(exc.field, exc.reason, kind="actionRefused", action=params.action) from None

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """Move the member at the cursor up or down among its siblings (an argument, an element, a statement…)."""
        from .model import ActionRefused
        from .service import Request, perform

        wanted = params.context.only
        if wanted and not any(MOVE_KIND.startswith(kind) or kind.startswith(MOVE_KIND) for kind in wanted):
            return []
        snapshot = self.server.snapshot(params.text_document.uri)
        if snapshot is None or snapshot.language not in ("python", "yaml"):
            return []
        tree = snapshot.tree_or_raise()
        if tree is None:
            return []
        from .service import Source

        source = Source(snapshot.language, snapshot.text, tree)
        node = self._covering(snapshot, source, params.range)
        found = []
        for action, title in (("moveUp", "Move up"), ("moveDown", "Move down")):
            try:
                outcome = perform(source, Request(action), [node])
            except ActionRefused:
                continue  # the first or last of its container, or nothing movable here
            found.append(types.CodeAction(title=title, kind=MOVE_KIND, edit=self._result([(snapshot, outcome)]).edit))
        return found

    def _current(self, uri: str, version: int, field: str) -> Snapshot:
        snapshot = self.server.snapshot(uri)
        if snapshot is None:
            raise InvalidParams(f"{field}.uri", f"{uri} is not open", kind="unknownDocument")
        if version != snapshot.client_version:
            raise ContentModified(uri, version, snapshot.client_version)
        return snapshot

    def _source(self, snapshot: Snapshot, field: str) -> Source:
        from .service import Source

        if snapshot.language not in ("python", "yaml"):
            raise InvalidParams(
                f"{field}.uri",
                f"structural actions work on Python and YAML documents, not {snapshot.language or 'plain text'}",
                kind="actionRefused",
            )
        tree = snapshot.tree_or_raise()
        assert tree is not None  # a parsed language
        return Source(snapshot.language, snapshot.text, tree)

    def _nodes(
        self, snapshot: Snapshot, source: Source, where: ActionTargets | ActionDestination, field: str
    ) -> list[Node]:
        """The nodes the ids name (document order), or with no ids the smallest named node holding each range."""
        if where.cursor_node_ids:
            ids = snapshot.ids
            assert ids is not None
            stale = [i for i in where.cursor_node_ids if not ids.contains(i)]
            if stale:
                raise InvalidParams(
                    f"{field}.cursorNodeIds",
                    f"{stale[:5]} are not nodes of version {snapshot.client_version} of {snapshot.uri}",
                )
            nodes = {i: ids.node(source.tree, i) for i in sorted(set(where.cursor_node_ids))}
            return [n for n in nodes.values() if n is not None]
        return [self._covering(snapshot, source, r) for r in where.ranges or []]

    def _covering(self, snapshot: Snapshot, source: Source, where: types.Range) -> Node:
        encoding = self.server.encoding
        start = lsp_offset(snapshot.index, where.start, encoding)
        end = lsp_offset(snapshot.index, where.end, encoding)
        root = source.tree.root_node
        return root.named_descendant_for_byte_range(min(start, end), max(start, end)) or root

    def _result(self, changes: Sequence[tuple[Snapshot, Outcome]]) -> ApplyActionResult:
        from .model import applied

        encoding = self.server.encoding
        edits: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = []
        produced = []
        for snapshot, outcome in changes:
            index = snapshot.index
            edits.append(
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=snapshot.uri, version=snapshot.client_version
                    ),
                    edits=[
                        types.TextEdit(range=lsp_range(index, r.start, r.end, encoding), new_text=r.text.decode())
                        for r in outcome.replaces
                    ],
                )
            )
            if outcome.produced:
                after = LineIndex(applied(snapshot.text, outcome.replaces))
                produced += [
                    types.Location(uri=snapshot.uri, range=lsp_range(after, start, end, encoding))
                    for start, end in outcome.produced
                ]
        return ApplyActionResult(edit=types.WorkspaceEdit(document_changes=edits), produced=produced)


def _count(where: ActionTargets | ActionDestination) -> int:
    return len(where.cursor_node_ids) + len(where.ranges or [])


FEATURE = Feature(
    "actions",
    setup=Actions,
    methods=[
        Method("tether/applyAction", Actions.apply, ApplyActionParams, ApplyActionResult),
        Method(
            types.TEXT_DOCUMENT_CODE_ACTION,
            Actions.code_actions,
            options=types.CodeActionOptions(code_action_kinds=[MOVE_KIND]),
        ),
    ],
)
