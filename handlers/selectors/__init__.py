"""Structural selections over the cached tree-sitter tree (``textDocument/selectionRange`` for now)."""
