"""Markers: notes pinned to code blocks that follow edits and commits (MARKERS.md).

Landed so far: the pure location calculator. Storage, git access, the marker service and the LSP edge
are still to come (issue 4 stays open).
"""
