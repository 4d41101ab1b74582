"""Attached mode's glue in the language server: the agents' front served by a running language server.

* :mod:`.attachment` — what the language server loads at start-up: the ``tether.mcp`` settings sections and the
  switch that starts and stops the endpoint as ``tether.mcp.http`` says;
* :mod:`.editor_link` — the editor's workspace and ``workspace/applyEdit``, reached from the tool calls' worker
  threads (the :class:`~tether_lsp.mcp.attached_source.Editor` the front's source reads and writes through).

This package knows both sides (the language server, lsprotocol, and the front); the front's engine-facing
modules never import it.
"""
