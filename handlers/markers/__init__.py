"""Markers: notes pinned to code blocks that follow edits, commits, moves and renames (docs/markers.md).

``calculator`` carries a location across a text change; ``buffer`` moves locations with a document's exact
edits (``cache`` keeps an open document's markers that way); ``git`` reads the repository; ``store`` and
``service`` keep markers and their stored locations; ``tracking`` recomputes them at a new HEAD, which ``sync``
does once per HEAD; ``locating`` finds a file's markers in its current text; ``state`` is one server's markers
state and the one service API every front calls; ``lsp`` is the protocol edge (the agents' front is
``tether_lsp/mcp/notes.py``).
"""
