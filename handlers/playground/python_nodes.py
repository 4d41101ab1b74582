"""Where the Python rules look: the candidate nodes (one tree-sitter query) and their ancestors and scopes.

Kept apart from the rules (:mod:`.detect_python`) because this is the part whose cost grows with the tree's
depth: asked in document order, :class:`Scopes` walks a nesting once where ``node.parent`` walked down from the
root at each level (seconds on a 5,000-deep dict).
"""

from __future__ import annotations

from tree_sitter import Node, Query, QueryCursor

from tether_lsp.server.nodes import Ancestors
from tether_lsp.server.syntax import language_by_name

from .python_values import source


class Scopes(Ancestors):
    """The ancestors of the nodes the rules look at (never ``node.parent``: O(depth) each), and their scopes."""

    def __init__(self, root: Node) -> None:
        super().__init__(root)
        self._scopes = [""]  # the scope inside each node of the chain

    def scope(self, node: Node) -> str:
        """``Class.method().`` of the definitions holding ``node``; empty at module level."""
        chain = self.chain(node)
        return self._scopes[len(chain) - 2] if len(chain) > 1 else ""

    def _push(self, node: Node) -> None:
        super()._push(node)
        scope = self._scopes[-1]
        if node.type in ("function_definition", "class_definition"):
            name = source(node.child_by_field_name("name"))
            scope += name + ("()." if node.type == "function_definition" else ".")
        self._scopes.append(scope)

    def _pop(self) -> None:
        super()._pop()
        self._scopes.pop()


_QUERY: Query | None = None


def candidates(root: Node) -> dict[str, list[Node]]:
    """Assignments, keyword arguments, dicts, calls and returns, found by one tree-sitter query (in C). The kinds
    that nest are put in document order (the query gives nested nodes out of it): asked in that order,
    :class:`Scopes` walks a nesting once. Returns keep the query's order, which numbers a function's returns in
    their anchors (``user_prompt().return[1]``)."""
    global _QUERY
    if _QUERY is None:
        _QUERY = Query(
            language_by_name("python").language,
            "(assignment) @a (keyword_argument) @k (dictionary) @d (call) @c (return_statement) @r (aliased_import) @i",
        )
    found = QueryCursor(_QUERY).captures(root)
    return {
        kind: nodes if kind == "r" else sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte))
        for kind, nodes in found.items()
    }
