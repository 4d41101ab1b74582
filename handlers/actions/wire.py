"""The wire types of structural actions (``tether/applyAction``), camelCase on the wire (``server/protocol.py``
converts them). Only the glue and its method table use them; the service and the actions never do."""

from __future__ import annotations

import attrs
from lsprotocol import types


@attrs.define
class ActionTargets:
    """What an action acts on: cursor node ids from ``tether/applySelector`` (of the version named beside them),
    or, with no ids, the smallest named node holding each range (an editor's selections or cursor)."""

    cursor_node_ids: list[int] = attrs.field(factory=list)
    ranges: list[types.Range] | None = None


@attrs.define
class ActionDestination:
    """Where ``move``/``bring`` put the targets (or ``swap``'s second target): in the same document unless
    ``textDocument`` names another open one (``move`` and ``bring`` only)."""

    cursor_node_ids: list[int] = attrs.field(factory=list)
    ranges: list[types.Range] | None = None
    text_document: types.VersionedTextDocumentIdentifier | None = None


@attrs.define
class ApplyActionParams:
    text_document: types.VersionedTextDocumentIdentifier
    action: str
    targets: ActionTargets
    destination: ActionDestination | None = None
    #: clone, move, bring, insert: after the target/destination (default) or before it.
    after: bool = True
    #: wrap: ``try``, ``with``, ``if`` or ``call``; ``placeholder`` is the text left for the user to type over.
    wrapper: str | None = None
    placeholder: str | None = None


@attrs.define
class ApplyActionResult:
    #: The edit to apply as one step (versioned document changes); the server applies nothing itself.
    edit: types.WorkspaceEdit
    #: What the action produced (moved, cloned, inserted, wrapped code; the cursor's place for insert and
    #: remove), as ranges in the documents *after* the edit.
    produced: list[types.Location]
