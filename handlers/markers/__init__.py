"""Markers: notes pinned to code blocks that follow edits, commits, moves and renames (docs/markers.md).

``calculator`` carries a location across a text change; ``buffer`` moves locations with a document's exact
edits; ``git`` reads the repository; ``store`` and ``service`` keep markers and their stored locations;
``tracking`` recomputes them at a new HEAD; ``state`` holds one server's markers state (worker-side work
and the HEAD sync); ``lsp`` is the protocol edge.
"""
